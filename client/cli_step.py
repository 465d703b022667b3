"""`sudoku watch --step`: a search stepped through from the keyboard.

The same screen as `sudoku watch` (client/view.py), but the search moves
only when asked: → or n takes one step, a number then Enter runs that many
(Backspace edits it), space plays from where the search is at --speed steps
a second and pauses, q quits. With --compare naive and mrv move together.
Each search is an AsyncStepSearch (client/stepping.py): the service keeps
nothing between calls, so the terminal can sit idle as long as it likes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os

from rich.console import Console, RenderableType
from rich.live import Live

from client.aio import AsyncClient
from client.cli_watch import keyboard
from client.connection import Retry
from client.stepping import AsyncStepSearch
from client.view import Shown, screen
from sudoku.grid import cell_name

KEYS = "→/n step, a number + Enter run it, space play/pause, q quit"
RIGHT = ("\x1b[C", "\x1bOC")  # the right arrow, in normal and application cursor mode
ENTER = ("\r", "\n")
BACKSPACE = ("\x7f", "\b")
MOST_DIGITS = 9


class NoTerminal(Exception):
    """There is no terminal to read keys from."""


class Stepped:
    """One search being stepped, as the screen shows it."""

    def __init__(self, strategy: str, search: AsyncStepSearch):
        self.search = search
        self.shown = Shown(strategy, search.drawing, note="ready")

    def redraw(self) -> None:
        self.shown.drawing = self.search.drawing  # goto() may start a new drawing


class StepSession:
    """The keys, the searches and the screen of `watch --step`."""

    def __init__(self, stepped: list[Stepped], console: Console, speed: float, fps: int):
        self.stepped = stepped
        self.console = console
        self.speed = speed
        self.fps = max(1, fps)
        self.live: Live | None = None
        self.typed = ""
        self.quit = asyncio.Event()
        self.commands: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        self.player: asyncio.Task | None = None
        self.error: BaseException | None = None

    def render(self) -> RenderableType:
        colour = self.console.color_system is not None and not self.console.no_color
        prompt = f"run: {self.typed}_" if self.typed else ""
        return screen([s.shown for s in self.stepped], colour, True, KEYS, prompt)

    def show(self) -> None:
        for s in self.stepped:
            s.redraw()
        if self.live is not None:
            self.live.update(self.render(), refresh=True)

    def on_key(self, fd: int) -> None:
        try:
            data = os.read(fd, 64).decode(errors="ignore")
        except (BlockingIOError, InterruptedError):
            return
        for key in split_keys(data):
            self.key(key)
        self.show()

    def key(self, key: str) -> None:
        if key in RIGHT or key in ("n", "N"):
            self.commands.put_nowait(("step", 1))
        elif key.isdigit() and len(self.typed) < MOST_DIGITS:
            self.typed += key
        elif key in BACKSPACE:
            self.typed = self.typed[:-1]
        elif key in ENTER and self.typed:
            self.commands.put_nowait(("step", int(self.typed)))
            self.typed = ""
        elif key == " ":
            self.commands.put_nowait(("play", 0))
        elif key in ("q", "Q"):
            self.quit.set()

    @property
    def all_done(self) -> bool:
        return all(s.search.done for s in self.stepped)

    def note(self, text: str) -> None:
        for s in self.stepped:
            s.shown.note = "" if s.search.done else text

    async def take(self, steps: int) -> None:
        """`steps` steps on every search, side by side."""
        await asyncio.gather(*(s.search.run(steps) for s in self.stepped if not s.search.done))
        self.show()

    async def play(self) -> None:
        """Steps on the client's clock: speed steps a second, drawn fps times a second at most."""
        tick = max(1 / self.speed, 1 / self.fps)
        per_tick = max(1, round(self.speed * tick))
        self.note("playing")
        self.show()
        loop = asyncio.get_running_loop()
        due = loop.time()
        while not self.all_done:
            await self.take(per_tick)
            due += tick
            await asyncio.sleep(max(0.0, due - loop.time()))

    async def stop_playing(self) -> None:
        if self.player is not None and not self.player.done():
            self.player.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.player
        self.player = None
        self.note("paused")
        self.show()

    async def obey(self) -> None:
        """Runs the commands the keys queued, one after another."""
        while True:
            command, steps = await self.commands.get()
            playing = self.player is not None and not self.player.done()
            if command == "play":
                if playing:
                    await self.stop_playing()
                elif not self.all_done:
                    self.player = asyncio.create_task(self.play())
                    self.player.add_done_callback(self._played)
                continue
            if playing:
                await self.stop_playing()  # a step while playing pauses first, where it is
            self.note("stepping")
            await self.take(steps)

    def _played(self, task: asyncio.Task) -> None:
        if task.cancelled():
            return
        if task.exception() is not None:
            self.error = task.exception()
            self.quit.set()
            return
        self.note("paused")
        self.show()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        with keyboard() as fd:
            if fd is None:
                raise NoTerminal("watch --step needs a terminal for its keys (→, n, digits, space, q)")
            loop.add_reader(fd, self.on_key, fd)
            obeying = asyncio.create_task(self.obey())
            quitting = asyncio.create_task(self.quit.wait())
            try:
                with Live(self.render(), console=self.console, auto_refresh=False, transient=False) as live:
                    self.live = live
                    await asyncio.wait({obeying, quitting}, return_when=asyncio.FIRST_COMPLETED)
                    self.show()
                if obeying.done() and obeying.exception() is not None:
                    raise obeying.exception()
                if self.error is not None:
                    raise self.error
            finally:
                loop.remove_reader(fd)
                for task in (obeying, quitting, self.player):
                    if task is not None:
                        task.cancel()
                await asyncio.gather(*(t for t in (obeying, quitting, self.player) if t is not None),
                                     return_exceptions=True)


def split_keys(data: str) -> list[str]:
    """The keys in what the terminal sent: escape sequences whole, else one character each."""
    keys, i = [], 0
    while i < len(data):
        if data[i] == "\x1b" and i + 2 < len(data) and data[i + 1] in "[O":
            keys.append(data[i : i + 3])
            i += 3
        else:
            keys.append(data[i])
            i += 1
    return keys


def summary(stepped: Stepped) -> str:
    d = stepped.search.drawing
    c = d.counters
    state = stepped.shown.status
    return (f"{stepped.shown.title}: {state} at step {c.steps:,} ({c.placements:,} placements, "
            f"{c.retractions:,} retractions, depth {d.depth:,})")


async def step_async(args: argparse.Namespace, board: str) -> int:
    from client.cli import BAD_INPUT, say
    from client.cli_watch import exit_code_of

    strategies = ["naive", "mrv"] if args.compare else [args.strategy]
    console = Console(stderr=False)
    async with AsyncClient(args.addr, ca_file=args.ca_file, token=args.token, timeout=args.timeout,
                           retry=Retry(attempts=args.retries)) as client:
        stepped = [Stepped(s, client.search(board, strategy=s)) for s in strategies]
        session = StepSession(stepped, console, args.speed, args.fps)
        try:
            await session.run()
        except NoTerminal as exc:
            say(str(exc))
            return BAD_INPUT
        finally:
            for s in stepped:
                say(summary(s))
    for s in stepped:
        conflicts = s.search.drawing.conflicts
        if conflicts:
            say(f"unsolvable: the givens conflict at {', '.join(cell_name(c) for c in conflicts)}")
            break
    return exit_code_of([s.search.drawing.outcome for s in stepped])


def cmd_step(args: argparse.Namespace, board: str) -> int:
    if args.speed <= 0:
        from client.cli import BAD_INPUT, say

        say("--speed must be above 0")
        return BAD_INPUT
    return asyncio.run(step_async(args, board))
