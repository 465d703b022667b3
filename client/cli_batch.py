"""`sudoku batch`: every puzzle of a file through CountMany, one output line each.

The input is read lazily, --chunk puzzles a message, and the client keeps
at most a window of chunks in flight, so a file of millions of lines runs
in bounded memory; output lines are written as chunks are answered, in
input order.
"""

from __future__ import annotations

import argparse
import collections
import csv
import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from typing import IO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, TimeRemainingColumn
from rich.text import Text

from client.requests import MANY_CHUNK
from client.results import BatchItem
from sudoku.v1 import sudoku_pb2 as pb

HELP = """\
input: one puzzle a line, 81 cells ('1'-'9', '.' or '0' for a blank); blank
lines and '#' comments are skipped; FILE '-' reads stdin.

output (stdout, or -o FILE): one CSV line per puzzle line, in input order:
  puzzle,verdict,count    verdict: unique, multiple, none or unknown (the cap
                          stopped the count); with --limit 1 just the count
  puzzle,solution         with --solve: the solution, or none, or unknown
A bad line is reported on stderr as "FILE, line N: message" and still gets
its output line, with "error" as the verdict (or solution) and no count, so
the output has exactly one line per puzzle line. The batch goes on; the exit
code is 2 if any line was bad, else 0. A progress bar with the rate and the
time left is drawn on stderr when stderr is a terminal.

examples:
  $ sudoku batch puzzles.txt -o counts.csv
  $ grep -v '^#' puzzles.txt | sudoku batch --solve - | head
  4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......,417369825632158947958724316825437169791586432346912758289643571573291684164875293"""


CHUNK_PLACE = re.compile(r"^(packed_)?boards\[\d+\]")


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="puzzles, one a line ('-' for stdin)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the results here (default: stdout)")
    parser.add_argument("--solve", action="store_true", help="write puzzle,solution instead of counts")
    parser.add_argument("--limit", type=int, default=2, help="count up to this many solutions (default: 2)")
    parser.add_argument("--max-steps", type=int, default=0, help="cap on each count's guesses")
    parser.add_argument("--chunk", type=int, default=MANY_CHUNK,
                        help=f"puzzles per message (default: {MANY_CHUNK}); output comes a chunk at a time, so "
                             "use 1 for a slow producer on stdin that wants each answer at once")
    parser.add_argument("--window", type=int, default=4, help=argparse.SUPPRESS)


def puzzle_of(line: str) -> str:
    """The puzzle on a line, without its comment; '' for a line to skip."""
    return line.split("#", 1)[0].strip()


class Lines:
    """The puzzle lines of a file, remembering the line number of each one in flight."""

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.in_flight: collections.deque[int] = collections.deque()

    def __iter__(self) -> Iterator[str]:
        for number, line in enumerate(self.stream, 1):
            puzzle = puzzle_of(line)
            if puzzle:
                self.in_flight.append(number)
                yield puzzle


def count_puzzle_lines(path: str) -> int | None:
    """How many puzzle lines a regular file has (for the ETA); None for stdin."""
    if path == "-":
        return None
    with open(path) as stream:
        return sum(1 for line in stream if puzzle_of(line))


def result_row(item: BatchItem, solve: bool) -> list[str]:
    reply = item.reply
    if reply is None:
        return [item.board, "error"] if solve else [item.board, "error", ""]
    if solve:
        if reply.solution:
            return [item.board, reply.solution]
        return [item.board, "none" if reply.complete else "unknown"]
    if reply.verdict == pb.CountReply.VERDICT_UNSPECIFIED:
        verdict = "unknown" if not reply.complete else "counted"
    else:
        verdict = pb.CountReply.Verdict.Name(reply.verdict).lower()
    return [item.board, verdict, str(reply.count)]


class RateColumn(ProgressColumn):
    """Puzzles per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f}/s" if speed else "-/s", style="progress.data.speed")


def progress_bar(total: int | None) -> Progress:
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


def cmd_batch(args: argparse.Namespace) -> int:
    from client.cli import BAD_INPUT, OK, Failure, connect, say

    source = "stdin" if args.file == "-" else args.file
    bad = 0
    with ExitStack() as stack:
        try:
            stream = sys.stdin if args.file == "-" else stack.enter_context(open(args.file))
            out = sys.stdout if args.output is None else stack.enter_context(open(args.output, "w", newline=""))
            total = count_puzzle_lines(args.file) if sys.stderr.isatty() else None
        except OSError as exc:
            raise Failure(BAD_INPUT, f"{exc.filename}: {exc.strerror}") from None
        writer = csv.writer(out, lineterminator="\n")
        lines = Lines(stream)
        client = stack.enter_context(connect(args))
        progress = stack.enter_context(progress_bar(total)) if sys.stderr.isatty() else None
        task = progress.add_task("batch", total=total) if progress else None
        limit = 1 if args.solve else args.limit
        chunks = client.count_many(lines, limit=limit, max_steps=args.max_steps, include_solution=args.solve,
                                   chunk=args.chunk, window=args.window)
        for item in (item for chunk in chunks for item in chunk.items()):
            number = lines.in_flight.popleft()
            if item.error is not None:
                bad += 1
                # The server names the board by its place in its chunk; here the line says which.
                detail = CHUNK_PLACE.sub("board", item.error.message)
                if item.error.code.name != "INVALID_ARGUMENT":
                    detail = str(item.error)
                message = f"{source}, line {number}: {detail}"
                if progress:
                    progress.console.print(f"sudoku: {message}", markup=False, highlight=False)
                else:
                    say(message)
            writer.writerow(result_row(item, args.solve))
            if progress and task is not None:
                progress.advance(task)
    if bad:
        say(f"{bad} bad line{'s' if bad != 1 else ''} in {source}")
        return BAD_INPUT
    return OK
