"""Figures for worker.engine, each against a baseline measured in the same run.

    python bench/engine.py [--only stepper,fastpath,memory] [--puzzles DIR]
                           [--repeat 5] [--sample 20] [--max-puzzles N]

stepper   C steps per second with events on (run() in 64K-step slices, as a
          worker does), per strategy, against the Python reference
          (worker.reference) on the same puzzles; target >= 20M steps/s for
          mrv/first. Workload: the hardest sample set, each search capped.
fastpath  solve() and count(limit=2) on every *.txt set in DIR (default
          tests/data; point it at the full sets for real figures), single
          thread: puzzles/s and µs/puzzle over the whole set, and a pure-Python
          Norvig-style solver (bench/norvig.py) on the first `sample` puzzles
          of each set, with the C time on that same sample for the ratio.
memory    bytes per live Stepper (tracemalloc and RSS growth over 10,000).

Every figure is the median of `repeat` runs. Times are this process's CPU
time by default (--clock cpu), because the machine is shared and wall time
then measures the neighbours too; --clock wall gives wall time. Compare
ratios taken in the same run. The fast-path part runs alone with
--only fastpath.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import norvig  # noqa: E402  (bench/, not part of the package)

from worker import reference  # noqa: E402
from worker.engine import Stepper, count, solve  # noqa: E402

DATA = ROOT / "tests" / "data"
STRATEGIES: list[tuple[str, dict[str, Any]]] = [
    ("naive", {"strategy": "naive"}),
    ("mrv/first", {"strategy": "mrv", "tie_break": "first"}),
    ("mrv/rotate", {"strategy": "mrv", "tie_break": "rotate"}),
    ("mrv/random", {"strategy": "mrv", "tie_break": "random", "seed": 1}),
]
SLICE = 1 << 16
C_CAP = 2_000_000  # steps per puzzle, C side
PY_CAP = 3_000  # steps per puzzle, Python side
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
clock = time.process_time


def read(path: Path, most: int | None = None) -> list[str]:
    lines = [line.strip() for line in path.read_text().splitlines()]
    puzzles = [line[:81] for line in lines if len(line) >= 81 and not line.startswith("#")]
    return puzzles[:most]


def median_time(function: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = clock()
        function()
        times.append(clock() - start)
    return statistics.median(times)


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    print(f"\n{title}")
    for row in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(str(cell).rjust(w) if i else str(cell).ljust(w)
                        for i, (cell, w) in enumerate(zip(row, widths))))


# ---- stepper ----


Searcher = Stepper | reference.Stepper


def steps_per_second(make: Callable[[str], Searcher], puzzles: list[str], repeat: int) -> float:
    """Median over runs of (steps taken) / (time), events on."""
    rates = []
    for _ in range(repeat):
        steppers = [make(p) for p in puzzles]
        gc.collect()
        start = clock()
        for stepper in steppers:
            while stepper.run(SLICE):
                pass
        elapsed = clock() - start
        rates.append(sum(s.steps for s in steppers) / elapsed)
    return statistics.median(rates)


def bench_stepper(repeat: int) -> None:
    puzzles = read(DATA / "forum_hardest_1106.txt")
    rows = []
    for name, options in STRATEGIES:
        def c_side(p: str, o: dict[str, Any] = options) -> Searcher:
            return Stepper(p, max_steps=C_CAP, **o)

        def python(p: str, o: dict[str, Any] = options) -> Searcher:
            return reference.Stepper(p, max_steps=PY_CAP, **o)

        c_rate = steps_per_second(c_side, puzzles, repeat)
        py_rate = steps_per_second(python, puzzles[:10], max(1, repeat // 2))
        rows.append([name, f"{c_rate / 1e6:.1f}M", f"{py_rate / 1e3:.1f}K", f"{c_rate / py_rate:.0f}x"])
    table(f"Stepper, events on, {len(puzzles)} puzzles of forum_hardest_1106 (C capped at "
          f"{C_CAP:,} steps each, Python at {PY_CAP:,} on 10), median of {repeat}",
          ["strategy", "C steps/s", "Python steps/s", "C / Python"], rows)


# ---- fast path ----


def per_puzzle_us(function: Callable[[str], object], puzzles: list[str], repeat: int) -> float:
    def all_of_them():
        for puzzle in puzzles:
            function(puzzle)

    return median_time(all_of_them, repeat) / len(puzzles) * 1e6


def bench_fastpath(folder: Path, repeat: int, sample: int, most: int | None) -> None:
    rows = []
    for path in sorted(folder.glob("*.txt")):
        puzzles = read(path, most)
        if not puzzles:
            continue
        for puzzle in puzzles[:100]:  # warm caches and the CPU clock, untimed
            solve(puzzle)
            count(puzzle, limit=2)
        solve_us = per_puzzle_us(solve, puzzles, repeat)
        count_us = per_puzzle_us(lambda p: count(p, limit=2), puzzles, repeat)
        few = puzzles[:sample]
        norvig_solve = per_puzzle_us(norvig.solve, few, 1)
        norvig_count = per_puzzle_us(lambda p: norvig.count(p, 2), few, 1)
        c_solve_few = per_puzzle_us(solve, few, repeat)
        c_count_few = per_puzzle_us(lambda p: count(p, limit=2), few, repeat)
        rows.append([
            path.stem, f"{len(puzzles):,}",
            f"{solve_us:.1f}", f"{1e6 / solve_us:,.0f}",
            f"{count_us:.1f}", f"{1e6 / count_us:,.0f}",
            f"{norvig_solve / 1e3:.2f}", f"{norvig_solve / c_solve_few:,.0f}x",
            f"{norvig_count / 1e3:.2f}", f"{norvig_count / c_count_few:,.0f}x",
        ])
    table(f"Fast path, one thread, {folder} (median of {repeat}); Norvig-style Python on the "
          f"first {sample} puzzles of each set, ratio against C on those same puzzles",
          ["set", "puzzles", "solve µs", "solve/s", "count2 µs", "count2/s",
           "norvig solve ms", "ratio", "norvig count2 ms", "ratio"], rows)


# ---- memory ----


def rss_bytes() -> int:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return 0
    import resource

    return pages * resource.getpagesize()


def bench_memory(live: int = 10_000) -> None:
    puzzles = read(DATA / "forum_hardest_1106.txt")
    gc.collect()
    rss_before = rss_bytes()
    tracemalloc.start()
    start, _ = tracemalloc.get_traced_memory()
    steppers = [Stepper(puzzles[i % len(puzzles)]) for i in range(live)]
    for stepper in steppers:
        stepper.skip(500)  # mid-search, stack in use: still no allocation
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_after = rss_bytes()
    rows = [
        ["tracemalloc, current", f"{(current - start) / live:,.0f}"],
        ["tracemalloc, peak", f"{(peak - start) / live:,.0f}"],
        ["RSS growth", f"{(rss_after - rss_before) / live:,.0f}" if rss_before else "n/a"],
        ["type's basic size", f"{Stepper.__basicsize__:,}"],
    ]
    table(f"Memory per Stepper, {live:,} live steppers (bytes; the list's pointers included)",
          ["measure", "bytes/stepper"], rows)
    del steppers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="stepper,fastpath,memory",
                        help="comma-separated parts: stepper, fastpath, memory")
    parser.add_argument("--puzzles", type=Path, default=DATA, help="folder of *.txt puzzle sets")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sample", type=int, default=20,
                        help="puzzles per set for the Norvig baseline")
    parser.add_argument("--max-puzzles", type=int, default=None,
                        help="use at most this many puzzles of each set")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    print(f"clock: {args.clock} time; python {sys.version.split()[0]}")
    parts = set(args.only.split(","))
    unknown = parts - {"stepper", "fastpath", "memory"}
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    if "stepper" in parts:
        bench_stepper(args.repeat)
    if "fastpath" in parts:
        bench_fastpath(args.puzzles, args.repeat, args.sample, args.max_puzzles)
    if "memory" in parts:
        bench_memory()


if __name__ == "__main__":
    main()
