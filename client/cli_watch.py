"""`sudoku watch`: the search, live in the terminal, paced by the service.

Each watched search is one Solve stream (VIEW_SEARCH, paced to the
duration) read by the AsyncClient, which resumes it with Watch after a
dropped connection. Pausing stops reading (the job goes on; resuming is a
Watch from the last frame seen); q cancels the jobs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import termios
import tty
from collections.abc import Callable, Iterator
from typing import TextIO

from rich.console import Console, RenderableType
from rich.live import Live

from client.aio import AsyncClient, AsyncFrameStream
from client.boards import PUZZLE_HELP
from client.connection import Retry
from client.durations import parse_duration
from client.frames import Drawing
from client.requests import STRATEGIES
from client.view import Shown, screen
from sudoku.grid import cell_name
from sudoku.v1 import sudoku_pb2 as pb

HELP = """\
The grid is redrawn in place: givens, the player's entries, the search's
values and its cursor are drawn apart (in colour when the terminal has it;
otherwise 5 given, 5' entry, 5* search, >5 cursor), with the counters and a
progress bar of steps out of the search's total. Keys: space pauses and
resumes, q stops and cancels the job. A dropped connection is resumed.

--compare plays naive and mrv side by side in the same duration.
--step moves the search only when asked, from the keyboard: → or n one
step, a number then Enter that many, space plays at --speed steps a second
and pauses, q quits; the counters show placements, retractions and the
depth (placements - retractions). The service keeps nothing between steps.
--plain prints one line per frame instead (for pipes and tests):
  STRATEGY SEQ STEPS/TOTAL CURSOR OUTCOME BOARD
where CURSOR is r#c# or -, OUTCOME is - until the last frame, and BOARD
is 81 characters ('.' blank).

examples:
  $ sudoku watch --duration 10s puzzle.txt
  $ sudoku watch --compare --duration 20s hard.txt
  $ sudoku watch --plain --duration 2s puzzle.txt | tail -1
  $ sudoku watch --step --compare hard.txt"""


def duration(text: str) -> float:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE", help=PUZZLE_HELP)
    parser.add_argument("--duration", type=duration, default=10.0, metavar="TIME",
                        help="play the whole search in about this long: 10s, 500ms, 2m (default: 10s)")
    parser.add_argument("--fps", type=int, default=30, help="frames per second (default: 30)")
    parser.add_argument("--strategy", choices=sorted(STRATEGIES), default="mrv",
                        help="how the search picks a cell (default: mrv)")
    parser.add_argument("--compare", action="store_true", help="naive and mrv side by side")
    parser.add_argument("--plain", action="store_true", help="one text line per frame, no animation")
    parser.add_argument("--step", action="store_true",
                        help="step the search from the keyboard instead: → or n one step, a number then Enter "
                             "that many, space plays and pauses, q quits")
    parser.add_argument("--speed", type=float, default=10.0, metavar="STEPS",
                        help="with --step: steps a second that space plays (default: 10)")


class Watched:
    """One watched search: its stream and what is drawn of it."""

    def __init__(self, strategy: str, stream: AsyncFrameStream):
        self.stream = stream
        self.shown = Shown(strategy, Drawing())

    @property
    def strategy(self) -> str:
        return self.shown.title


async def follow(watched: Watched, changed: Callable[[Watched, pb.Frame], None]) -> None:
    async for frame in watched.stream:
        watched.shown.drawing.apply(frame)
        changed(watched, frame)


async def run_all(watched: list[Watched], changed: Callable[[Watched, pb.Frame], None]) -> None:
    tasks = [asyncio.create_task(follow(w, changed)) for w in watched]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def plain_line(watched: Watched, frame: pb.Frame) -> str:
    d = watched.shown.drawing
    cursor = cell_name(d.cursor) if d.cursor >= 0 else "-"
    outcome = pb.Outcome.Name(d.outcome).lower() if d.done else "-"
    return f"{watched.strategy} {frame.seq} {d.counters.steps}/{d.total_steps} {cursor} {outcome} {d.text}"


@contextlib.contextmanager
def keyboard() -> Iterator[int | None]:
    """The terminal in cbreak mode (keys without Enter), or None without one."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        yield None
        return
    try:
        saved = termios.tcgetattr(fd)
    except termios.error:
        os.close(fd)
        yield None
        return
    try:
        tty.setcbreak(fd)
        yield fd
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        os.close(fd)


class Session:
    """The running `watch`: streams, the screen (or plain lines) and the keys."""

    def __init__(self, watched: list[Watched], console: Console, plain: bool, out: TextIO):
        self.watched = watched
        self.console = console
        self.plain = plain
        self.out = out
        self.live: Live | None = None
        self.quit = asyncio.Event()
        self.paused = False
        self.keys = False

    def render(self) -> RenderableType:
        colour = self.console.color_system is not None and not self.console.no_color
        return screen([w.shown for w in self.watched], colour, self.keys)

    def changed(self, watched: Watched, frame: pb.Frame) -> None:
        if self.plain:
            print(plain_line(watched, frame), file=self.out, flush=True)
        elif self.live is not None:
            self.live.update(self.render(), refresh=True)

    def on_key(self, fd: int) -> None:
        try:
            keys = os.read(fd, 64)
        except (BlockingIOError, InterruptedError):
            return
        for key in keys.decode(errors="ignore"):
            if key == " ":
                self.toggle_pause()
            elif key in "qQ":
                self.quit.set()

    def toggle_pause(self) -> None:
        self.paused = not self.paused
        for w in self.watched:
            w.shown.paused = self.paused
            if self.paused:
                w.stream.pause()
            else:
                w.stream.resume()
        if self.live is not None:
            self.live.update(self.render(), refresh=True)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        with keyboard() as fd:
            self.keys = fd is not None
            if fd is not None:
                loop.add_reader(fd, self.on_key, fd)
            try:
                with contextlib.ExitStack() as stack:
                    if not self.plain:
                        self.live = stack.enter_context(
                            Live(self.render(), console=self.console, auto_refresh=False, transient=False))
                    await self.until_done_or_quit()
                    if self.live is not None:
                        self.live.update(self.render(), refresh=True)
            finally:
                if fd is not None:
                    loop.remove_reader(fd)

    async def until_done_or_quit(self) -> None:
        following = asyncio.create_task(run_all(self.watched, self.changed))
        quitting = asyncio.create_task(self.quit.wait())
        try:
            await asyncio.wait({following, quitting}, return_when=asyncio.FIRST_COMPLETED)
            if quitting.done() and not following.done():
                await self.cancel_jobs()
            else:
                await following  # raises the stream's error, if any
        except BaseException:
            if not following.done():
                await asyncio.shield(self.cancel_jobs())
            raise
        finally:
            for task in (following, quitting):
                task.cancel()
            await asyncio.gather(following, quitting, return_exceptions=True)

    async def cancel_jobs(self) -> None:
        """q (or Ctrl-C): stop the jobs, not just this client."""
        for w in self.watched:
            if not w.shown.drawing.done:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(w.stream.cancel(), 2.0)
                w.shown.note = "cancelled"


def summary(watched: Watched) -> str:
    d = watched.shown.drawing
    c = d.counters
    state = watched.shown.status
    return (f"{watched.strategy}: {state}, {c.steps:,} steps "
            f"({c.placements:,} placements, {c.retractions:,} retractions)")


def exit_code(watched: list[Watched]) -> int:
    return exit_code_of([w.shown.drawing.outcome for w in watched])


def exit_code_of(outcome_list: list[int]) -> int:
    """The exit code of searches that ended (or stopped) with these outcomes."""
    from client.cli import FAILED, GAVE_UP, OK, UNSOLVABLE

    outcomes = set(outcome_list)
    if pb.EXHAUSTED in outcomes:
        return UNSOLVABLE
    if pb.GAVE_UP in outcomes:
        return GAVE_UP
    if outcomes <= {pb.SOLVED, pb.CANCELLED, pb.OUTCOME_UNSPECIFIED}:
        return OK
    return FAILED


async def watch_async(args: argparse.Namespace, board: str) -> int:
    from client.cli import say

    strategies = ["naive", "mrv"] if args.compare else [args.strategy]
    console = Console(stderr=False)
    retry = Retry(attempts=args.retries)
    async with AsyncClient(args.addr, ca_file=args.ca_file, token=args.token, timeout=args.timeout,
                           retry=retry) as client:
        watched = [Watched(s, client.watch(board, duration=args.duration, fps=args.fps, strategy=s))
                   for s in strategies]
        session = Session(watched, console, args.plain, sys.stdout)
        try:
            await session.run()
        finally:  # also after q or Ctrl-C: say where each search stopped
            for w in watched:
                say(summary(w))
    for w in watched:
        conflicts = w.shown.drawing.conflicts
        if conflicts:
            say(f"unsolvable: the givens conflict at {', '.join(cell_name(c) for c in conflicts)}")
            break
    return exit_code(watched)


def cmd_watch(args: argparse.Namespace) -> int:
    from client.cli import read_puzzle

    board = read_puzzle(args.file)
    if args.step:
        from client.cli_step import cmd_step

        return cmd_step(args, board)
    return asyncio.run(watch_async(args, board))
