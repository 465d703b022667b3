"""Median time of one hint (worker.hints.hint), in µs, over the puzzles of tests/data.

    python bench/hints.py [--repeat 3] [--candidates] [DATA_DIR]

Two boards per puzzle: the bare puzzle (the player's first hint) and the
puzzle with every other blank filled in from the solution (a player half way,
the typical board). Each is timed `repeat` times and its fastest run kept,
because this machine is shared and the slower runs measure the neighbours;
the table gives the median and the 99th percentile over the puzzles. The
`engine` column is the engine's part of a hint, count(limit=2) plus solve of
the givens, timed the same way; the rest is the hint's own Python. Only the
function is timed: queueing and gRPC belong to the service's benchmark.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from worker import engine
from worker.hints import hint

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
COLUMNS = ("bare p50", "p99", "half p50", "p99", "engine p50")


def half_way(puzzle: str) -> str:
    """Entries: every other blank of `puzzle`, from its solution (none without one)."""
    solution = engine.solve(puzzle)
    if solution is None:
        return ""
    blanks = [c for c in range(81) if puzzle[c] == "."]
    entries = ["."] * 81
    for c in blanks[::2]:
        entries[c] = solution[c]
    return "".join(entries)


def fastest_us(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter_ns()
        run()
        best = min(best, time.perf_counter_ns() - start)
    return best / 1000


def engine_part(givens: str) -> None:
    """What a hint asks of the engine for a unique puzzle."""
    engine.count(givens, limit=2)
    engine.solve(givens)


def percentile(times: list[float], p: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def row(name: str, bare: list[float], half: list[float], core: list[float]) -> str:
    figures = [statistics.median(bare), percentile(bare, 0.99)]
    figures += [statistics.median(half), percentile(half, 0.99), statistics.median(core)]
    return f"{name:36} {len(bare):7} " + " ".join(f"{x:10.0f}" for x in figures)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", nargs="?", type=Path, default=DATA)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--candidates", action="store_true", help="ask for the candidates too")
    args = parser.parse_args()
    want = args.candidates

    print(f"{'file (µs)':36} {'puzzles':>7} " + " ".join(f"{c:>10}" for c in COLUMNS))
    every: tuple[list[float], list[float], list[float]] = ([], [], [])
    for path in sorted(args.data.glob("*.txt")):
        puzzles = path.read_text().split()
        bare = [fastest_us(lambda: hint(p, "", want), args.repeat) for p in puzzles]
        boards = [(p, half_way(p)) for p in puzzles]
        half = [fastest_us(lambda: hint(p, e, want), args.repeat) for p, e in boards]
        core = [fastest_us(lambda: engine_part(p), args.repeat) for p in puzzles]
        for total, part in zip(every, (bare, half, core)):
            total += part
        print(row(path.name, bare, half, core))
    print(row("all", *every))


if __name__ == "__main__":
    main()
