"""Puzzles generated per second at each level, ours against qqwing's, one core each.

    python bench/generate.py [--seconds 3] [--rounds 2]

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
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import time

from worker.generate import generate, puzzle_seed
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="per level, per round, per generator")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
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
