"""Remakes docs/watch-compare.svg: `sudoku watch --compare` on a hard puzzle.

    make up                           # in another terminal: the service
    .venv/bin/python docs/record_watch.py [--addr HOST:PORT] [--duration 10s]

It asks the service for the same two watched solves the command starts
(naive and mrv, the same duration and frame rate), but unpaced, so it takes
seconds rather than the duration: the service cuts the frames by
duration x fps either way. It then draws them with the command's own view
(client.view) at a third of the way and at the end, on a rich Console that
records, and saves that as SVG.
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

from rich.console import Console
from rich.text import Text

from client import Client
from client.durations import parse_duration
from client.frames import Drawing
from client.view import Shown, screen
from sudoku.v1 import sudoku_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
PUZZLE = (ROOT / "tests/data/norvig_hardest.txt").read_text().split()[0]  # naive: 671,215 steps
FPS = 30


def frames_of(client: Client, strategy: str, duration: float) -> list[pb.Frame]:
    return list(client.watch(PUZZLE, duration=duration, fps=FPS, strategy=strategy, unpaced=True))


def shown_at(title: str, frames: list[pb.Frame], fraction: float) -> Shown:
    """What the screen shows after `fraction` of the frames."""
    drawing = Drawing()
    for frame in frames[: max(1, round(fraction * len(frames)))]:
        drawing.apply(frame)
    return Shown(title, drawing)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--addr", help="the service (default: $SUDOKU_ADDR, else localhost:50051)")
    parser.add_argument("--duration", type=parse_duration, default=10.0, help="as `sudoku watch` (default: 10s)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs/watch-compare.svg")
    args = parser.parse_args()
    with Client(args.addr) as client:
        runs = {strategy: frames_of(client, strategy, args.duration) for strategy in ("naive", "mrv")}
    console = Console(record=True, width=76, force_terminal=True, color_system="truecolor", file=io.StringIO())
    console.print(Text(f"$ sudoku watch --compare --duration {args.duration:g}s norvig_hardest_1.txt", style="bold"))
    for fraction in (1 / 3, 1.0):
        console.print()
        console.print(Text(f"after {fraction * args.duration:.1f} s of {args.duration:g} s", style="italic"))
        console.print(screen([shown_at(s, frames, fraction) for s, frames in runs.items()], colour=True, keys=True))
    console.save_svg(str(args.out), title="sudoku watch --compare")
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")


if __name__ == "__main__":
    main()
