"""How the grades fall on sets no one here made: the calibration of the levels.

    python bench/grades.py [--sample N] [--seed S] [DATA_DIR]

Grades (worker.logic.grade_many, the engine alone) a sample of each set: the
qqwing sets (qqwing rates them easy, intermediate, expert with its own
solver), magictour top1465 and the forum's hardest (11+). Prints the
confusion table (rows: the set, columns: our level, cells: share of the
set), the median score per set, the share of steps by level, and the grading
time per puzzle (median and 99th percentile, in ms). DATA_DIR defaults to
$SUDOKU_PUZZLES, else tests/data.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # the repository, for `bench`

from bench.stack import percentile, sample, sampled_sets  # noqa: E402
from worker import logic  # noqa: E402

SETS = ["qqwing_easy", "qqwing_intermediate", "qqwing_expert", "magictour_top1465",
        "forum_hardest_1905_11plus"]


def grade_timed(puzzles: list[str]) -> tuple[list[logic.Grade], list[float]]:
    grades, times = [], []
    for p in puzzles:
        start = time.perf_counter()
        (g,) = logic.grade_many(p)
        times.append((time.perf_counter() - start) * 1000)
        grades.append(g)
    return grades, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    args = sampled_sets(parser, sample=1000)

    levels = logic.LEVEL_NAMES[1:]
    print(f"data: {args.data}, at most {args.sample} puzzles a set (seed {args.seed})\n")
    print(f"{'set':28} {'n':>5} " + " ".join(f"{name:>8}" for name in levels)
          + f" {'unsolved':>8} {'median score':>12} {'ms p50':>7} {'ms p99':>7}")
    for name in SETS:
        path = args.data / f"{name}.txt"
        if not path.exists():
            continue
        puzzles = sample(path, args.sample, args.seed)
        grades, times = grade_timed(puzzles)
        by_level = [sum(g.level == level for g in grades) for level in range(1, 6)]
        unsolved = sum(not g.solved for g in grades)
        shares = " ".join(f"{100 * k / len(grades):7.1f}%" for k in by_level)
        median = statistics.median(g.score for g in grades)
        print(f"{name:28} {len(grades):5} {shares} {100 * unsolved / len(grades):7.1f}% {median:12.0f}"
              f" {statistics.median(times):7.2f} {percentile(times, 0.99):7.2f}")
    print("\nscore: the sum over a solution's steps of each technique's weight (worker.logic.WEIGHTS)")


if __name__ == "__main__":
    main()
