"""Uniqueness counting at generator scale: run by hand, prints figures.

    python bench/count.py [--set 17_clue] [--n 20000]

Puzzles per second for count(limit=2):
  - the engine alone, one process (one core), the baseline;
  - CountBatch through the service with 2 workers (embedded Redis, cache
    off), one client streaming the puzzles;
and the ratio per worker (the issue's target is >= 70% of the engine's
single-core rate per worker). Also the hint round trip p50/p99.

Puzzles come from tests/data, or from SUDOKU_PUZZLES when it points at the
full sets; they are repeated to reach --n, with their digits relabelled so
that each is a distinct puzzle (and the result cache could not help anyway,
it is off).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# The repository instead of bench/ itself: bench/service.py must not shadow
# the `service` package when run as `python bench/service.py`.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402

from bench.stack import percentile, puzzles, sudoku_server  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc  # noqa: E402
from worker import engine  # noqa: E402


def relabelled(puzzle: str, rng: random.Random) -> str:
    digits = list("123456789")
    rng.shuffle(digits)
    return "".join(digits[int(c) - 1] if c != "." else "." for c in puzzle)


def engine_rate(boards: list[str]) -> float:
    t0 = time.perf_counter()
    for board in boards:
        engine.count(board, limit=2)
    return len(boards) / (time.perf_counter() - t0)


def service_rate(stub, boards: list[str]) -> float:
    t0 = time.perf_counter()
    replies = sum(1 for _ in stub.CountBatch(pb.CountRequest(board=b) for b in boards))
    assert replies == len(boards)
    return replies / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="17_clue")
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--batch-size", type=int, default=None, help="SUDOKU_BATCH_SIZE for the service")
    args = parser.parse_args()
    rng = random.Random(1)
    source = puzzles(args.set)
    boards = [relabelled(source[i % len(source)], rng) for i in range(args.n)]
    base = max(engine_rate(boards) for _ in range(3))
    settings = {"cache_ttl_s": 0}
    if args.batch_size:
        settings["batch_size"] = args.batch_size
    with sudoku_server(workers=2, **settings) as (address, _):
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.SudokuStub(channel)
            service_rate(stub, boards[:2000])  # warm up
            rates = [service_rate(stub, boards) for _ in range(3)]
            hints = []
            for board in source[:300]:
                t0 = time.perf_counter()
                stub.Hint(pb.HintRequest(givens=relabelled(board, rng)))
                hints.append(time.perf_counter() - t0)
    through = sorted(rates)[1]
    print(f"set {args.set}, {args.n} puzzles, count(limit=2)")
    print(f"engine alone, one core:         {base:10.0f} puzzles/s ({1e6 / base:.1f} µs each)")
    print(f"CountBatch, 2 workers (median): {through:10.0f} puzzles/s (runs: {', '.join(f'{r:.0f}' for r in rates)})")
    print(f"per worker vs engine alone:     {through / 2 / base:10.1%}   (target >= 70%)")
    print(f"hint round trip p50/p99:        {percentile(hints, .5) * 1000:.2f} / {percentile(hints, .99) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
