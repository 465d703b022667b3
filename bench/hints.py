"""Hints and grades of top1465 boards: on a worker, and round trips through the service.

    python bench/hints.py [--puzzles 200] [--repeat 3] [--no-service]

Boards: `--puzzles` of magictour_top1465 ($SUDOKU_PUZZLES, else
tests/data), sampled with a fixed seed (the file is ordered: its first
puzzles are its easiest), each three ways: bare (a player's first hint: most need
eliminations before the first placement), half way without pencil marks
(every other blank filled in from the solution), half way with the
rules' pencil marks (the next step on them), and, for puzzles that need
more than singles, where a player following the hints with pencil marks
meets the hardest step of the logical solution (the step search's worst
case).

1. On a worker (worker.hints.hint in this process, the fastest of `repeat`
   runs, since this machine is shared): p50 and p99 of a hint, and of its
   parts: the step search (worker.logic, in C), the count and solve (the
   engine), the rest (Python: checks, sentence, reply). The step search's
   share is of the summed times.
2. Round trips (unless --no-service): sudoku-server with 2 workers and
   embedded Redis, the result cache off, one call at a time: Hint for the
   same boards, p50 and p99.
3. Grades: a whole logical solution of each puzzle on a worker
   (worker.logic.grade, in C) and the Grade round trip, p50 and p99.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # the repository, for `bench` and `service`

from bench.stack import percentile, puzzles, sudoku_server  # noqa: E402
from sudoku import engine  # noqa: E402
from sudoku.grid import PEERS  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc  # noqa: E402
from worker import logic  # noqa: E402
from worker.hints import candidates, hint  # noqa: E402


def half_way(puzzle: str) -> str:
    """Entries: every other blank of `puzzle`, from its solution."""
    solution = engine.solve(puzzle)
    entries = ["."] * 81
    for c in [c for c in range(81) if puzzle[c] == "."][::2]:
        entries[c] = solution[c]
    return "".join(entries)


def board_of(givens: str, entries: str) -> str:
    return "".join(e if e != "." else g for g, e in zip(givens, entries or "." * 81))


def fastest_ms(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter_ns()
        run()
        best = min(best, time.perf_counter_ns() - start)
    return best / 1e6


def figures(name: str, times: list[float]) -> str:
    return f"{name:44} {statistics.median(times):8.3f} {percentile(times, 0.99):8.3f}"


def hardest_point(puzzle: str) -> tuple[str, list[int]] | None:
    """The entries and pencil marks where the logical solution takes its
    hardest step (the first such), as a player following the hints gets there."""
    steps = logic.path(puzzle, unique=True)
    top = max(range(len(steps)), key=lambda i: (logic.LEVELS[steps[i].technique], -i), default=None)
    if top is None or logic.LEVELS[steps[top].technique] == 1:
        return None
    cells = list(engine.parse_board(puzzle))
    marks = candidates(bytes(cells))
    for s in steps[:top]:
        if s.is_placement:
            cells[s.cell] = s.digit
            marks = [m if c != s.cell else 0 for c, m in enumerate(marks)]
            marks = [m & ~(1 << (s.digit - 1)) if c in PEERS[s.cell] else m for c, m in enumerate(marks)]
        for c, d in s.eliminations:
            marks[c] &= ~(1 << (d - 1))
    entries = "".join(str(v) if v and puzzle[c] == "." else "." for c, v in enumerate(cells))
    return entries, marks


CASES = ("bare", "half way", "half way, pencil marks", "at its hardest step, pencil marks")


def cases(boards: list[str]) -> list[tuple[str, str, str, list[int] | None]]:
    """(case, givens, entries, pencil marks) for each board, four ways."""
    out = []
    for p in boards:
        entries = half_way(p)
        marks = candidates(engine.parse_board(board_of(p, entries)))
        out += [("bare", p, "", None), ("half way", p, entries, None), ("half way, pencil marks", p, entries, marks)]
        hardest = hardest_point(p)
        if hardest is not None:
            out.append((CASES[3], p, *hardest))
    return out


def on_a_worker(all_cases, repeat: int) -> None:
    print(f"\n1. hint on a worker, ms{'':25} {'p50':>8} {'p99':>8}")
    for case in CASES:
        total, search, counting = [], [], []
        for kind, givens, entries, marks in all_cases:
            if kind != case:
                continue
            board = board_of(givens, entries)
            total.append(fastest_ms(lambda: hint(givens, entries, pencil_marks=marks), repeat))
            if marks is None:
                search.append(fastest_ms(lambda: logic.path(board, unique=True, until_placement=True), repeat))
            else:
                search.append(fastest_ms(lambda: logic.step(board, marks, unique=True), repeat))
            counting.append(fastest_ms(lambda: (engine.count(givens), engine.solve(givens)), repeat))
        rest = [max(0.0, t - s - c) for t, s, c in zip(total, search, counting)]
        share = 100 * sum(search) / sum(total)
        print(figures(f"{case}: hint", total))
        print(figures(f"  step search ({share:.0f}% of the time)", search))
        print(figures("  count and solve", counting))
        print(figures("  the rest (Python)", rest))


def timed_calls(call, requests) -> list[float]:
    out = []
    for request in requests:
        start = time.perf_counter()
        call(request)
        out.append((time.perf_counter() - start) * 1000)
    return out


def round_trips(all_cases, boards: list[str]) -> None:
    import grpc

    with sudoku_server(workers=2, cache_ttl_s=0) as (address, _):
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.SudokuStub(channel)
            timed_calls(stub.Hint, [pb.HintRequest(givens=b) for b in boards[:30]])  # warm up
            print(f"\n2. round trips, 2 workers, ms{'':16} {'p50':>8} {'p99':>8}")
            for case in CASES:
                requests = [pb.HintRequest(givens=g, entries=e, pencil_marks=m or [])
                            for kind, g, e, m in all_cases if kind == case]
                print(figures(f"Hint, {case}", timed_calls(stub.Hint, requests)))
            grades = timed_calls(stub.Grade, [pb.GradeRequest(board=b) for b in boards])
    print(figures("Grade", grades))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--puzzles", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-service", action="store_true", help="skip the round trips")
    args = parser.parse_args()
    every = puzzles("magictour_top1465")
    boards = random.Random(14).sample(every, min(args.puzzles, len(every)))
    print(f"{len(boards)} top1465 puzzles")
    all_cases = cases(boards)
    on_a_worker(all_cases, args.repeat)
    grades = [fastest_ms(lambda: logic.grade(b), args.repeat) for b in boards]
    print(f"\n3. grade on a worker, ms{'':20} {'p50':>8} {'p99':>8}")
    print(figures("logic.grade (count, then the logical solution)", grades))
    if not args.no_service:
        round_trips(all_cases, boards)


if __name__ == "__main__":
    main()
