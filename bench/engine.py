"""Figures for sudoku.engine, each against a baseline measured in the same run.

    python bench/engine.py [--only stepper,fastpath,memory,sets] [--puzzles DIR]
                           [--repeat 5] [--sample 20] [--max-puzzles N]
                           [--against RUN_BENCHMARK] [--seconds 2]

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
sets      the fast path on the first 5,000 puzzles (--max-puzzles) of 17-clue,
          magictour top1465 and forum hardest 1905 11+ in DIR, first solution
          and count to 2, each timed the way tdoku's run_benchmark times
          itself: one C call (count_many) per pass over the puzzles, passes
          for `seconds` of wall time after a warm-up pass (CPU time by
          default, see --clock; tdoku's own wall-time figure is then scaled
          by its CPU time over its elapsed time). With --against
          PATH (tdoku's run_benchmark, built by hand: it is no dependency)
          tdoku runs on the same puzzles (a file of them, `-r0` so they are
          not permuted, `-n` so none is added), its runs interleaved with
          ours so that the machine's drift hits both, and the table gives
          ours / tdoku. --against alone runs only this part.

Every figure is the median of `repeat` runs. Times are this process's CPU
time by default (--clock cpu), because the machine is shared and wall time
then measures the neighbours too; --clock wall gives wall time. Compare
ratios taken in the same run. The fast-path part runs alone with
--only fastpath.
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import norvig  # noqa: E402  (bench/, not part of the package)

from sudoku.engine import Stepper, count, count_many, solve  # noqa: E402
from worker import reference  # noqa: E402

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


# ---- the reference sets, side by side with tdoku ----

SETS = ["17_clue", "magictour_top1465", "forum_hardest_1905_11plus"]
SIDE_BY_SIDE = 5_000  # puzzles of each set unless --max-puzzles


def ours_us(joined: str, n: int, limit: int, seconds: float) -> float:
    """µs a puzzle over whole passes for `seconds` of wall time, as tdoku does
    (timed with `clock`)."""
    count_many(joined, limit, None, limit == 1)  # warm-up pass
    passes = 0
    start = end = time.perf_counter()
    began = clock()
    while end - start < seconds:
        found, _, _ = count_many(joined, limit, None, limit == 1)
        passes += 1
        end = time.perf_counter()
    assert min(found) >= 1, "a set holds a puzzle without a solution"
    return (clock() - began) / (passes * n) * 1e6


def tdoku_us(binary: Path, path: Path, n: int, first: bool, seconds: float) -> float:
    """tdoku's own figure (wall time); with the CPU clock, scaled by the share
    of its run it had a core for (its CPU time over its elapsed time), which
    takes out the time it waited on a shared machine."""
    command = [str(binary), f"-t{max(1, round(seconds))}", "-w1", "-e1", "-v0", "-c1", "-r0",
               f"-n{n}", "-s", "tdoku", *(["-f"] if first else []), str(path)]
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows = [line.split(",") for line in out.splitlines() if line.count(",") >= 6]
    if not rows:
        raise SystemExit(f"no CSV line from {' '.join(command)}:\n{out}")
    share = 1.0
    if clock is time.process_time:
        share = min(1.0, (after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime) / elapsed)
    return float(rows[-1][6]) * share


def bench_sets(folder: Path, repeat: int, most: int | None, against: Path | None,
               seconds: float) -> None:
    most = most or SIDE_BY_SIDE
    runs: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        chosen = []
        for name in SETS:
            path = folder / f"{name}.txt"
            if not path.exists():
                print(f"\nsets: {path} is missing, skipped")
                continue
            puzzles = read(path, most)
            copy = Path(tmp) / path.name
            copy.write_text("".join(p + "\n" for p in puzzles))
            chosen.append((name, "".join(puzzles), len(puzzles), copy))
        for _ in range(repeat):
            for name, joined, n, copy in chosen:
                for limit, key in ((1, "solve"), (2, "count2")):
                    runs.setdefault((name, key), []).append(ours_us(joined, n, limit, seconds))
                    if against:
                        runs.setdefault((name, "tdoku " + key), []).append(
                            tdoku_us(against, copy, n, limit == 1, seconds))
    rows = []
    for name, _, n, _ in chosen:
        med = {key: statistics.median(runs[(name, key)]) for key in
               ("solve", "count2", *(("tdoku solve", "tdoku count2") if against else ()))}
        row = [name, f"{n:,}", f"{med['solve']:.2f} / {med['count2']:.2f}"]
        if against:
            row += [f"{med['tdoku solve']:.2f} / {med['tdoku count2']:.2f}",
                    f"{med['solve'] / med['tdoku solve']:.2f} / "
                    f"{med['count2'] / med['tdoku count2']:.2f}"]
        rows.append(row)
    header = ["set", "puzzles", "ours solve / count2 µs"]
    if against:
        header += ["tdoku -f / default µs", "ratio"]
    table(f"Fast path on the reference sets, one thread, {'CPU' if clock is time.process_time else 'wall'} "
          f"time, {seconds:g} s of passes a figure, median of {repeat}" + (f", interleaved with {against}" if against else ""),
          header, rows)


# ---- memory ----


def rss_bytes() -> int:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return 0
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
    parser.add_argument("--only", default=None,
                        help="comma-separated parts: stepper, fastpath, memory, sets "
                             "(default: all; only sets with --against)")
    parser.add_argument("--puzzles", type=Path, default=DATA, help="folder of *.txt puzzle sets")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sample", type=int, default=20,
                        help="puzzles per set for the Norvig baseline")
    parser.add_argument("--max-puzzles", type=int, default=None,
                        help="use at most this many puzzles of each set")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument("--against", type=Path, default=None, metavar="RUN_BENCHMARK",
                        help="tdoku's run_benchmark binary, to run side by side in `sets`")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="sets: wall time of passes per figure (tdoku's -t)")
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    print(f"clock: {args.clock} time; python {sys.version.split()[0]}")
    if args.against and not args.against.is_file():
        parser.error(f"--against: {args.against} is not a file (tdoku's build/run_benchmark)")
    only = args.only or ("sets" if args.against else "stepper,fastpath,memory,sets")
    parts = set(only.split(","))
    unknown = parts - {"stepper", "fastpath", "memory", "sets"}
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    if "stepper" in parts:
        bench_stepper(args.repeat)
    if "fastpath" in parts:
        bench_fastpath(args.puzzles, args.repeat, args.sample, args.max_puzzles)
    if "memory" in parts:
        bench_memory()
    if "sets" in parts:
        bench_sets(args.puzzles, args.repeat, args.max_puzzles, args.against, args.seconds)


if __name__ == "__main__":
    main()
