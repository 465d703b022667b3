"""A load run with a worker SIGKILLed every 30 s. Run by hand, prints figures.

    python bench/load.py --minutes 10 --kill-every 30

sudoku-server (embedded Redis, 2 workers) takes a steady mix of calls from
`--clients` concurrent clients using the client library (which retries
UNAVAILABLE, a solve with the same request_id): unwatched solves of hard
puzzles with the naive strategy (long enough to be running when a worker
dies), watched solves, counts and hints. Every `--kill-every` seconds one
worker process is SIGKILLed; the supervisor starts a new one and the job
it was running is retried elsewhere.

At the end: requests sent, completed, failed by status code, lost (sent
and never answered within 60 s: must be 0), wrong answers (must be 0),
p50/p99 latency.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

# The repository instead of bench/ itself: bench/service.py must not shadow
# the `service` package when run as `python bench/service.py`.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.stack import percentile, puzzles, sudoku_server  # noqa: E402
from client import AsyncClient, SudokuError  # noqa: E402
from sudoku.grid import is_solution_of  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402

CALL_TIMEOUT = 60.0


def worker_pids(server_pid: int) -> list[int]:
    out = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,args="], capture_output=True, text=True).stdout
    pids = []
    for line in out.splitlines():
        pid, ppid, args = line.split(None, 2)
        if int(ppid) == server_pid and "worker.process" in args:
            pids.append(int(pid))
    return pids


class Tally:
    def __init__(self) -> None:
        self.sent = 0
        self.done = 0
        self.failed: collections.Counter[str] = collections.Counter()
        self.wrong = 0
        self.latency: list[float] = []
        self.open = 0


async def one_call(client: AsyncClient, rng: random.Random, boards: dict, tally: Tally) -> None:
    kind = rng.choices(["solve", "watch", "count", "hint"], weights=[2, 1, 4, 3])[0]
    tally.sent += 1
    tally.open += 1
    t0 = time.perf_counter()
    try:
        if kind == "solve":
            board = rng.choice(boards["hard"])
            result = await client.solve(board, strategy="naive", max_steps=20_000_000, timeout=CALL_TIMEOUT)
            ok = result.outcome in (pb.SOLVED, pb.GAVE_UP) and (not result.solved or is_solution_of(result.solution, board))
        elif kind == "watch":
            board = rng.choice(boards["easy"])
            stream = client.watch(board, duration=1.0, fps=30, timeout=CALL_TIMEOUT)
            async for _ in stream:
                pass
            ok = is_solution_of(stream.result().solution, board)
        elif kind == "count":
            reply = await client.count(rng.choice(boards["easy"]), timeout=CALL_TIMEOUT)
            ok = reply.verdict == pb.CountReply.UNIQUE
        else:
            reply = await client.hint(rng.choice(boards["easy"]), timeout=CALL_TIMEOUT)
            ok = reply.kind == pb.HintReply.NEXT_MOVE
        tally.done += 1
        tally.wrong += not ok
        tally.latency.append(time.perf_counter() - t0)
    except SudokuError as exc:
        tally.failed[exc.code.name] += 1
    finally:
        tally.open -= 1


async def client_loop(address: str, seed: int, boards: dict, tally: Tally, until: float) -> None:
    rng = random.Random(seed)
    async with AsyncClient(address) as client:
        while time.monotonic() < until:
            await one_call(client, rng, boards, tally)


async def killer(server_pid: int, every: float, until: float, kills: list[float]) -> None:
    rng = random.Random(0)
    while time.monotonic() + every < until:
        await asyncio.sleep(every)
        pids = worker_pids(server_pid)
        if pids:
            os.kill(rng.choice(pids), signal.SIGKILL)
            kills.append(time.monotonic())


async def run(address: str, server_pid: int, args) -> tuple[Tally, list[float]]:
    boards = {"hard": puzzles("forum_hardest_1106")[:30], "easy": puzzles("qqwing_easy")}
    tally = Tally()
    kills: list[float] = []
    until = time.monotonic() + args.minutes * 60
    tasks = [client_loop(address, i, boards, tally, until) for i in range(args.clients)]
    await asyncio.gather(killer(server_pid, args.kill_every, until, kills), *tasks)
    return tally, kills


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--kill-every", type=float, default=30)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    with sudoku_server(workers=2) as (address, proc):
        tally, kills = asyncio.run(run(address, proc.pid, args))
    # Lost: never answered, neither a result nor an error the client can act
    # on (a deadline that passed is a request nobody answered).
    lost = tally.failed.get("DEADLINE_EXCEEDED", 0) + tally.open
    print(f"{args.minutes:g} min, {args.clients} clients, {len(kills)} workers SIGKILLed (every {args.kill_every:g} s)")
    print(f"sent {tally.sent}, completed {tally.done}, failed {dict(tally.failed) or 0}, lost {lost}, wrong {tally.wrong}")
    if tally.latency:
        print(f"latency p50 {percentile(tally.latency, .5) * 1000:.1f} ms, p99 {percentile(tally.latency, .99) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
