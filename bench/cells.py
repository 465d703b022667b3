"""Cells that add up: Redis CPU per call and the routing split at 1, 2 and 4 cells.

    python bench/cells.py                       # 1, 2 and 4 cells, 1,500 calls each
    python bench/cells.py --cells 1,2 --calls 3000
    python bench/cells.py --rate-per-cell 60    # 60 calls/s a cell: the load grows with the cells

For each count of cells, that many of Debian's redis-server (Redis 7,
external, on loopback) and one sudoku-server on all of them (REDIS_URL
listing them; 2 workers dealt out over the cells, at least one each), fed
a game backend's mix from this process, 16 calls in flight: 70% `Hint`,
20% `CountSolutions`, 10% watched unpaced `Solve`, on fresh boards (no
cache answers). With --rate-per-cell, calls start at that rate times the
cells instead, whenever the ones before end (--calls is then a cell's):
each cell sees the same load however many there are, as when cells are
added for more load. A job's own Redis work is shared by the calls that
arrived while it was queued, so the Redis CPU a call costs depends on a
cell's load; with 16 in flight in all, 4 cells see 4 each. Each Redis's CPU time comes from its INFO (used_cpu_sys +
used_cpu_user), since this machine has fewer cores than the processes
measured; the calls each cell took from the service's
sudoku_cell_calls_total. Printed: Redis CPU per call (flat as cells are
added is the point), each cell's share of the calls and of the Redis CPU,
the Redis-bound ceiling: the calls/s one Redis core carries at that cost
(net of what an idle cell's Redis spends each second, measured for IDLE_S
first), times the cells; and the CPU a call costs the service's process
and the workers' (from /proc), for the capacity model's other cores.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402
from redis import Redis  # noqa: E402

from bench.pipeline import METHODS, cpu_seconds, descendants, redis_cpu, requests_of  # noqa: E402
from bench.stack import free_port, sudoku_server  # noqa: E402
from tests.stack import SystemRedis  # noqa: E402

MIX = (("hint", 70), ("count", 20), ("solve", 10))
IN_FLIGHT = 16
IDLE_S = 3.0  # Redis CPU measured with no calls, for each cell's background (heartbeats, health PINGs)
errors: dict[str, int] = {}


def mixed_requests(n: int, rng: random.Random) -> list[tuple[str, bytes]]:
    kinds = rng.choices([kind for kind, _ in MIX], [weight for _, weight in MIX], k=n)
    pools = {kind: requests_of(kind, kinds.count(kind), rng) for kind, _ in MIX}
    return [(kind, pools[kind].pop()) for kind in kinds]


async def drive(address: str, requests: list[tuple[str, bytes]], rate: float = 0) -> int:
    """Sends the requests IN_FLIGHT at a time, or `rate` a second if given;
    returns the calls that failed."""
    failed = 0
    async with grpc.aio.insecure_channel(address) as channel:
        calls = {kind: (channel.unary_stream if METHODS[kind][1] else channel.unary_unary)(
            METHODS[kind][0], request_serializer=bytes, response_deserializer=bytes) for kind, _ in MIX}

        async def one(kind: str, request: bytes) -> None:
            nonlocal failed
            try:
                if METHODS[kind][1]:
                    async for _ in calls[kind](request, timeout=60):
                        pass
                else:
                    await calls[kind](request, timeout=60)
            except grpc.aio.AioRpcError as exc:
                failed += 1
                error = f"{kind} {exc.code().name}: {exc.details()[:80]}"
                errors[error] = 1 + errors.get(error, 0)

        if rate:
            loop, started = asyncio.get_running_loop(), []
            start = loop.time()
            for i, (kind, request) in enumerate(requests):
                await asyncio.sleep(max(0.0, start + i / rate - loop.time()))
                started.append(asyncio.create_task(one(kind, request)))
            await asyncio.gather(*started)
        else:
            todo = list(reversed(requests))

            async def client():
                while todo:
                    await one(*todo.pop())

            await asyncio.gather(*(client() for _ in range(IN_FLIGHT)))
    return failed


def routed(metrics_port: int, cells: int) -> list[float]:
    """sudoku_cell_calls_total of each cell, from the service's /metrics."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
    counts = [0.0] * cells
    for line in text.splitlines():
        if line.startswith("sudoku_cell_calls_total{"):
            cell = int(line.split('cell="')[1].split('"')[0])
            counts[cell] = float(line.rsplit(" ", 1)[1])
    return counts


def run(cells: int, calls: int, rng: random.Random, rate: float) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        servers = [SystemRedis(folder).start() for _ in range(cells)]
        clients = [Redis(port=server.port) for server in servers]
        metrics_port = free_port()
        env = {"REDIS_URL": ",".join(server.url for server in servers), "SUDOKU_POSITION_KEY": "bench-cells"}
        try:
            with sudoku_server(workers=2, env=env, interactive_workers=0, metrics_port=metrics_port,
                               max_frame_rate_per_connection=100_000) as (address, proc):
                asyncio.run(drive(address, mixed_requests(50, rng)))  # warm up
                idle0 = [redis_cpu(c)[0] for c in clients]
                time.sleep(IDLE_S)  # no calls: what each cell's Redis spends on its own
                idle = sum(redis_cpu(c)[0] for c in clients) - sum(idle0)
                requests = mixed_requests(calls, rng)
                pids = descendants(proc.pid)  # the service and its workers (the Redis servers are not its)
                cpu0, routed0 = [redis_cpu(c)[0] for c in clients], routed(metrics_port, cells)
                own0, all0 = cpu_seconds([proc.pid]), cpu_seconds(pids)
                started = time.perf_counter()
                failed = asyncio.run(drive(address, requests, rate))
                took = time.perf_counter() - started
                own1, all1 = cpu_seconds([proc.pid]), cpu_seconds(pids)
                cpu1, routed1 = [redis_cpu(c)[0] for c in clients], routed(metrics_port, cells)
        finally:
            for client in clients:
                client.close()
            for server in servers:
                server.kill()
    cpu = [b - a for a, b in zip(cpu0, cpu1)]
    split = [b - a for a, b in zip(routed0, routed1)]
    per_call_us = sum(cpu) * 1e6 / calls
    # The background of idle cells (workers' heartbeats and cleanups,
    # health PINGs) is paid per second, not per call: at a few hundred
    # calls/s it shows in the gross figure; a busy Redis barely notices it.
    net_us = (sum(cpu) - idle * took / IDLE_S) * 1e6 / calls
    return {"cells": cells, "calls/s": calls / took, "failed": failed, "redis_us": per_call_us, "net_us": net_us,
            "idle_us_s": idle * 1e6 / IDLE_S / cells, "ceiling": cells * 1e6 / net_us,
            "split": [s / max(1.0, sum(split)) for s in split],
            "cpu_split": [c / max(1e-9, sum(cpu)) for c in cpu],
            "service_ms": (own1 - own0) * 1e3 / calls, "workers_ms": ((all1 - all0) - (own1 - own0)) * 1e3 / calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", default="1,2,4")
    parser.add_argument("--calls", type=int, default=1500, help="calls a run (a cell's, with --rate-per-cell)")
    parser.add_argument("--rate-per-cell", type=float, default=0,
                        help=f"calls a second a cell, instead of {IN_FLIGHT} in flight in all")
    args = parser.parse_args()
    rng = random.Random(23)
    mix = ", ".join(f"{w}% {k}" for k, w in MIX)
    load = f"{args.rate_per_cell:g} calls/s a cell" if args.rate_per_cell else f"{IN_FLIGHT} in flight"
    print(f"mix: {mix}; {load}; {args.calls} calls a run{' a cell' if args.rate_per_cell else ''}")
    print(f"{'cells':>5} {'calls/s':>8} {'failed':>6} {'Redis us/call':>13} {'net of idle':>11} "
          f"{'idle us/s/cell':>14} {'ceiling calls/s':>15} {'service ms/call':>15} {'workers ms/call':>15}  "
          f"{'calls per cell':24} Redis CPU per cell")
    for cells in (int(n) for n in args.cells.split(",")):
        per = cells if args.rate_per_cell else 1
        r = run(cells, args.calls * per, rng, args.rate_per_cell * cells)
        print(f"{r['cells']:5} {r['calls/s']:8.0f} {r['failed']:6} {r['redis_us']:13.0f} {r['net_us']:11.0f} "
              f"{r['idle_us_s']:14.0f} {r['ceiling']:15.0f} {r['service_ms']:15.3f} {r['workers_ms']:15.3f}  "
              f"{' / '.join(f'{s:.0%}' for s in r['split']):24} {' / '.join(f'{s:.0%}' for s in r['cpu_split'])}",
              flush=True)
    for error, n in sorted(errors.items(), key=lambda e: -e[1]):
        print(f"  failed: {n} x {error}")


if __name__ == "__main__":
    main()
