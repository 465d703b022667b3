"""Puzzles generated per second at each level, ours against qqwing's, one core each.

    python bench/generate.py [--seconds 3] [--rounds 2]
    python bench/generate.py --against DIR [--seconds 2] [--rounds 5]


Ours: worker.generate.generate in this process (what one worker does per
puzzle, without RQ). Rates are puzzles per second of CPU time (this
process's, and qqwing's as a child's), so a busy neighbour on a shared
machine slows both the same; the wall-clock rate of ours is shown too. qqwing: Debian's `qqwing --generate N --difficulty D`
(its generator rates each puzzle with its own solver and keeps those of the
level asked for); the bench installs it with apt-get when it can, else says
so and shows ours alone. Levels are compared where they mean the same:
qqwing's easy with our easy, intermediate (pairs, pointing, box-line) with
our medium, expert (its solver had to guess) with our hard, expert and
extreme. The two run interleaved, round after round, and the best round of
each is kept: this machine is shared, and slower rounds measure the
neighbours.

qqwing's solver knows fewer techniques than ours, so its labels do not
match our levels beyond medium: its expert puzzles are our hard, expert or
extreme. The last two columns also grade every puzzle qqwing made with our
grader and give qqwing's rate of puzzles of our level (its rate times the
share of its output at that level; our grading time is not charged to it):
what a caller who wants, say, extreme puzzles gets from qqwing.

--against DIR: ours against another checkout's build (a `git worktree add`
of an older commit, its extension built in place with `python setup.py
build_ext --inplace`), the same seeds in each, run in turn round after
round (the order swapped every round) in child processes started in each
tree; the median of the rounds' CPU rates, their range, and new / old.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from sudoku.seeds import puzzle_seed
from worker.generate import generate
from worker.logic import grade_many

LEVELS = [("easy", 1, "easy"), ("medium", 2, "intermediate"), ("hard", 3, "expert"),
          ("expert", 4, "expert"), ("extreme", 5, "expert")]


def qqwing_path() -> str | None:
    found = shutil.which("qqwing")
    if found or not shutil.which("apt-get"):
        return found
    print("qqwing not found: trying `apt-get install -y qqwing`...", flush=True)
    done = subprocess.run(["apt-get", "install", "-y", "qqwing"], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"could not install qqwing ({done.stderr.strip().splitlines()[-1:]}); ours alone", flush=True)
    return shutil.which("qqwing")


def our_rate(level: int, seconds: float, seed: int) -> tuple[float, float]:
    """(puzzles per CPU second, per wall second)."""
    made, cpu, wall = 0, time.process_time(), time.perf_counter()
    while time.process_time() - cpu < seconds:
        generate(puzzle_seed(seed, made), level)
        made += 1
    return made / (time.process_time() - cpu), made / (time.perf_counter() - wall)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def qqwing_rate(qqwing: str, difficulty: str, seconds: float) -> tuple[float, list[str]]:
    """qqwing's puzzles per CPU second, and the puzzles: started for batches
    big enough to last about `seconds`."""
    n = 20
    while True:
        before = children_cpu()
        done = subprocess.run([qqwing, "--generate", str(n), "--difficulty", difficulty, "--one-line"],
                              capture_output=True, check=True, text=True)
        took = children_cpu() - before
        if took >= seconds / 2:
            return n / took, done.stdout.split()
        n *= 4


# A child's measurement, run in the tree under test (its `worker` package).
CHILD = """
import json, sys, time
try:
    from sudoku.seeds import puzzle_seed
except ImportError:  # a tree from before sudoku/seeds.py
    from worker.generate import puzzle_seed
from worker.generate import generate
seconds, rnd = float(sys.argv[1]), int(sys.argv[2])
rates = {}
for level in range(1, 6):
    made, cpu = 0, time.process_time()
    while time.process_time() - cpu < seconds:
        generate(puzzle_seed(1000 * rnd + level, made), level)
        made += 1
    rates[level] = made / (time.process_time() - cpu)
print(json.dumps(rates))
"""


def against(other: Path, seconds: float, rounds: int) -> None:
    trees = [other.resolve(), Path(__file__).resolve().parent.parent]
    rates: dict[Path, dict[int, list[float]]] = {t: {lv: [] for lv in range(1, 6)} for t in trees}
    for r in range(rounds):
        for t in trees if r % 2 == 0 else trees[::-1]:
            done = subprocess.run([sys.executable, "-c", CHILD, str(seconds), str(r)], cwd=t,
                                  capture_output=True, text=True, check=True)
            for level, rate in json.loads(done.stdout).items():
                rates[t][int(level)].append(rate)
        print(f"round {r + 1}/{rounds}", file=sys.stderr, flush=True)
    old, new = trees
    print(f"puzzles per CPU second, median of {rounds} rounds (range); old: {old}")
    print(f"{'level':8} {'old':>22} {'new':>22} {'new/old':>8}")
    for name, level, _ in LEVELS:
        o, n = (statistics.median(rates[t][level]) for t in trees)
        o_range, n_range = (f"({min(rates[t][level]):.1f}-{max(rates[t][level]):.1f})" for t in trees)
        print(f"{name:8} {o:8.1f} {o_range:>13} {n:8.1f} {n_range:>13} {n / o:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="per level, per round, per generator")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--against", type=Path, help="another checkout, its extension built: ours against it")
    args = parser.parse_args()
    if args.against:
        against(args.against, args.seconds, args.rounds)
        return
    qqwing = qqwing_path()
    print(f"{'level':8} {'ours/cpu-s':>10} {'(wall)':>8} {'qqwing level':>13} {'qqwing/cpu-s':>12} {'ratio':>7}"
          f" {'at our level/cpu-s':>18} {'share (of n)':>17} {'ratio':>7}")
    for name, level, theirs in LEVELS:
        ours = wall = qq = 0.0
        made: list[str] = []
        for r in range(args.rounds):
            cpu_rate, wall_rate = our_rate(level, args.seconds, seed=1000 * r + level)
            ours, wall = max(ours, cpu_rate), max(wall, wall_rate)
            if qqwing:
                rate, puzzles = qqwing_rate(qqwing, theirs, args.seconds)
                qq, made = max(qq, rate), made + puzzles
        line = f"{name:8} {ours:10.1f} {wall:8.1f} {theirs if qqwing else '-':>13} {qq or float('nan'):12.1f}"
        if qq:
            share = sum(g.level == level for g in grade_many("".join(made))) / len(made)
            graded = f"{ours / (qq * share):6.1f}x" if share else "inf"
            line += f" {ours / qq:6.1f}x {qq * share:18.2f} {share:7.1%} ({len(made):5}) {graded:>7}"
        print(line, flush=True)
    if qqwing:
        print("at our level: qqwing's puzzles that our grader puts at the row's level, per CPU second of qqwing's;"
              " share: how many of those it made were")


if __name__ == "__main__":
    main()
