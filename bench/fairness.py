"""Interactive calls beside greedy batch calls. Run by hand, prints figures.

    python bench/fairness.py [--greedy 2] [--counts 200] [--interactive-workers 1]

sudoku-server (embedded Redis, 2 workers and the interactive ones) takes
`--greedy` clients each sending maximal CountMany requests without pause
(a million solutions, 10 s a board, boards whose counts take seconds);
meanwhile one more client counts `--counts` fresh (uncached) top1465
boards with CountSolutions, one after the other, and the script prints
their latency. Run it with `--interactive-workers 0` for the service
without a worker kept for interactive jobs.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402

from bench.stack import percentile, puzzles, sudoku_server  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc  # noqa: E402
from tests.puzzles import long_boards, relabelled  # noqa: E402


def greedy(address: str, stop: threading.Event) -> None:
    request = pb.CountManyRequest(boards=long_boards(64), limit=1_000_000, time_limit_ms=10_000)

    def requests():
        while not stop.is_set():
            yield request

    with grpc.insecure_channel(address) as channel:
        call = pb_grpc.SudokuStub(channel).CountMany(requests())
        try:
            for _ in call:
                if stop.is_set():
                    break
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED and not stop.is_set():
                print(f"greedy client: {exc.code().name}: {exc.details()}")
        finally:
            call.cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--greedy", type=int, default=2, help="clients sending maximal CountMany calls")
    parser.add_argument("--counts", type=int, default=200, help="CountSolutions calls to time")
    parser.add_argument("--interactive-workers", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(1)
    boards = puzzles("magictour_top1465")
    with sudoku_server(workers=2, interactive_workers=args.interactive_workers) as (address, _):
        stop = threading.Event()
        hogs = [threading.Thread(target=greedy, args=(address, stop)) for _ in range(args.greedy)]
        for thread in hogs:
            thread.start()
        time.sleep(3)  # the batches have every general worker
        took = []
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.SudokuStub(channel)
            for _ in range(args.counts):
                board = relabelled(rng.choice(boards), rng)
                t0 = time.monotonic()
                stub.CountSolutions(pb.CountRequest(board=board), timeout=120)
                took.append(time.monotonic() - t0)
        stop.set()
        for thread in hogs:
            thread.join(60)
    ms = [t * 1000 for t in took]
    print(f"{args.greedy} greedy CountMany clients, {args.interactive_workers} interactive worker(s): "
          f"{len(ms)} CountSolutions of fresh top1465 boards")
    print(f"  p50 {percentile(ms, 0.5):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms, "
          f"p99 {percentile(ms, 0.99):.1f} ms, max {max(ms):.1f} ms")


if __name__ == "__main__":
    main()
