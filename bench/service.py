"""Service figures on loopback: run by hand, prints a table.

    python bench/service.py                      # both worker classes
    python bench/service.py --worker-class simple --requests 2000

For each RQ worker class (2 workers, embedded Redis, the result cache off
so every request reaches a worker):
  - unary round trip p50/p99 of a hint and of a count of an easy puzzle,
    one client, one call at a time;
  - jobs per second with 64 concurrent clients (counts);
  - the first frame of a watched solve: latency after the call, p50/p99;
  - frames per second delivered for one unpaced watched solve;
  - the service's time per count against the engine's own time for the
    same puzzle (their ratio is the overhead of queueing and transport).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

# The repository instead of bench/ itself: bench/service.py must not shadow
# the `service` package when run as `python bench/service.py`.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402

from bench.stack import percentile, puzzles, sudoku_server  # noqa: E402
from sudoku import engine  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc  # noqa: E402


def timed(call, requests) -> list[float]:
    out = []
    for request in requests:
        t0 = time.perf_counter()
        call(request)
        out.append(time.perf_counter() - t0)
    return out


def unary(stub, boards: list[str], n: int) -> dict[str, list[float]]:
    counts = [pb.CountRequest(board=boards[i % len(boards)]) for i in range(n)]
    hints = [pb.HintRequest(givens=boards[i % len(boards)]) for i in range(n)]
    timed(stub.CountSolutions, counts[:50])  # warm up
    return {"count": timed(stub.CountSolutions, counts), "hint": timed(stub.Hint, hints)}


async def concurrent_jobs(address: str, boards: list[str], clients: int, n: int) -> float:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        queue = list(range(n))

        async def client():
            while queue:
                i = queue.pop()
                await stub.CountSolutions(pb.CountRequest(board=boards[i % len(boards)]))

        t0 = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        return n / (time.perf_counter() - t0)


def first_frames(stub, board: str, n: int) -> list[float]:
    out = []
    request = pb.SolveRequest(board=board, view=pb.VIEW_SEARCH, pacing=pb.Pacing(unpaced=True))
    for _ in range(n):
        t0 = time.perf_counter()
        call = stub.Solve(request)
        next(call)
        out.append(time.perf_counter() - t0)
        for _ in call:
            pass
    return out


def frame_rate(stub, board: str) -> tuple[int, float]:
    request = pb.SolveRequest(
        board=board,
        strategy=pb.STRATEGY_NAIVE,
        max_steps=19_000,
        view=pb.VIEW_SEARCH,
        pacing=pb.Pacing(steps_per_frame=1, unpaced=True),
    )
    t0 = time.perf_counter()
    frames = sum(1 for _ in stub.Solve(request))
    return frames, frames / (time.perf_counter() - t0)


def engine_time(boards: list[str], repeat: int = 200) -> float:
    t0 = time.perf_counter()
    for i in range(repeat):
        engine.count(boards[i % len(boards)], limit=2)
    return (time.perf_counter() - t0) / repeat


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def run(worker_class: str, n: int) -> dict:
    easy = puzzles("qqwing_easy")
    hard = puzzles("norvig_hardest")[0]
    with sudoku_server(workers=2, worker_class=worker_class, cache_ttl_s=0) as (address, _):
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.SudokuStub(channel)
            rt = unary(stub, easy, n)
            firsts = first_frames(stub, easy[0], max(50, n // 10))
            frames, fps = frame_rate(stub, hard)
        jobs = asyncio.run(concurrent_jobs(address, easy, 64, n))
    return {"rt": rt, "jobs": jobs, "first": firsts, "frames": frames, "fps": fps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker-class", choices=("simple", "fork", "both"), default="both")
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    classes = ("simple", "fork") if args.worker_class == "both" else (args.worker_class,)
    engine_count = engine_time(puzzles("qqwing_easy"))
    rows = []
    for kind in classes:
        r = run(kind, args.requests)
        count, hint = r["rt"]["count"], r["rt"]["hint"]
        rows.append(
            (
                kind,
                f"{ms(percentile(hint, .5))} / {ms(percentile(hint, .99))}",
                f"{ms(percentile(count, .5))} / {ms(percentile(count, .99))}",
                f"{r['jobs']:.0f}",
                f"{ms(percentile(r['first'], .5))} / {ms(percentile(r['first'], .99))}",
                f"{r['fps']:.0f} ({r['frames']} frames)",
                f"{statistics.median(count) / engine_count:.0f}x",
            )
        )
    header = (
        "worker", "hint p50/p99 ms", "count p50/p99 ms", "jobs/s (64 clients)",
        "first frame p50/p99 ms", "frames/s, one stream", "count: service/engine",
    )
    print(f"engine alone: count(limit=2) of an easy puzzle {engine_count * 1e6:.1f} µs")
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    for row in (header, *rows):
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, widths)))


if __name__ == "__main__":
    main()
