"""What a call costs the whole server side: CPU per call against a bare gRPC echo, Redis CPU, calls/s.

    python bench/pipeline.py                        # this tree
    python bench/pipeline.py --against /tmp/old     # and another checkout, in turn, in the same run
    python bench/pipeline.py --calls 3000 --kinds hint,count,grade,solve --rounds 5

For each tree, sudoku-server as `make up` runs it (2 workers and the
interactive one, embedded Redis, the result cache on: the boards are fresh,
so it never answers) takes `--calls` calls of each kind from this process's
grpc.aio client, one at a time and then 16 in flight. The CPU time of every
server-side process (the service, its workers, Redis: from /proc) and
Redis's own (INFO commandstats' usec, and used_cpu) over each run, divided
by the calls, is the cost of a call: in all, and split into the service's
process, the workers' and Redis's. A bare grpc.aio server answering the
same request bytes with reply bytes of the same size, in a process of its
own, measured the same way, is the floor: the ratio of the two is what the
pipeline costs beyond gRPC itself.

Kinds: hint (top1465 puzzles with a random part of their solution filled
in: a fresh board each call), count (the same boards, limit 2), grade
(top1465 puzzles, rows and columns shuffled: a third need forcing chains,
so they go on to the heavy lane, in jobs of up to 4), grade-qqwing (qqwing's
intermediate and expert puzzles, shuffled: what a generator or a game
grades, answered in the cheap lane), solve (a watched unpaced MRV solve of
a fresh board; Redis CPU is also given per frame), solve-final (an
unwatched MRV solve of a fresh board: the default Solve).

Redis B/call is what a call keeps in Redis while it is kept: used_memory
after 300 more calls at 16 in flight, less before, per call (a job that
answered on an inbox goes as it ends; the result cache's entry stays
SUDOKU_CACHE_TTL_S), and calls/job
@16 how many calls a coalesced job carried in that burst.

--in-flight also takes rates: `--in-flight 1,16,40/s,100/s` adds a steady
flow of 40 and of 100 calls a second (up to 4 in flight), a backend's
traffic between its bursts, where calls come further apart than a job
waits for more without a ring (worker/calls.py: LINGER_MS).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402
from redis import Redis  # noqa: E402

from bench.stack import free_port, percentile, puzzles  # noqa: E402
from sudoku import engine  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402
from tests.puzzles import transformed  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of these processes (whole processes, all threads)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICKS


def descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        parent = todo.pop()
        out.append(parent)
        children = Path(f"/proc/{parent}/task/{parent}/children")
        if children.exists():
            todo += [int(c) for c in children.read_text().split()]
    return out


def redis_cpu(redis: Redis) -> tuple[float, int]:
    """Redis's CPU seconds (used_cpu_sys + used_cpu_user) and its commands processed so far."""
    info = redis.info()
    return info["used_cpu_sys"] + info["used_cpu_user"], info["total_commands_processed"]


def _entry_point(tree: Path) -> str:
    """Code that runs `tree`'s own sudoku-server (its pyproject.toml says
    where: the module has moved between commits)."""
    module, function = tomllib.loads((tree / "pyproject.toml").read_text())["project"]["scripts"][
        "sudoku-server"].split(":")
    return f"import sys; from {module} import {function}; sys.exit({function}())"


class Server:
    """sudoku-server from `tree` (this repository or another checkout), in its own process, with `args` added."""

    def __init__(self, tree: Path, args: tuple[str, ...] = ()):
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env["PYTHONPATH"] = str(tree)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _entry_point(tree), "--listen", f"127.0.0.1:{self.port}", "--workers", "2",
             "--metrics-port", "0", "--http-listen", "", *args],
            stdout=subprocess.PIPE, text=True, env=env, cwd=tree)
        banner = self.proc.stdout.readline()
        if "listening" not in banner:
            raise SystemExit(f"sudoku-server from {tree} did not start: {banner!r}")
        socket = banner.split("embedded redis-server at ")[1].split(",")[0]
        self.redis = Redis(unix_socket_path=socket)
        self.address = f"127.0.0.1:{self.port}"
        time.sleep(2)  # the workers connect

    def pids(self) -> list[int]:
        return descendants(self.proc.pid)

    def close(self) -> None:
        self.redis.close()
        self.proc.terminate()
        self.proc.wait(30)
        self.proc.stdout.close()


ECHO = """
import asyncio, sys, grpc
reply = bytes(int(sys.argv[2]))
async def answer(request, context):
    return reply
async def main():
    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler("echo.Echo", {
        "Call": grpc.unary_unary_rpc_method_handler(answer, request_deserializer=bytes, response_serializer=bytes)})
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(sys.argv[1])
    await server.start()
    print("ready", flush=True)
    await server.wait_for_termination()
asyncio.run(main())
"""


class Echo:
    def __init__(self, reply_size: int):
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, "-c", ECHO, f"127.0.0.1:{self.port}", str(reply_size)],
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready"
        self.address = f"127.0.0.1:{self.port}"

    def pids(self) -> list[int]:
        return [self.proc.pid]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.proc.stdout.close()


def fresh_hints(n: int, rng: random.Random) -> list[bytes]:
    """Hint requests on boards no cache has seen: a top1465 puzzle with a random part of its solution filled in."""
    boards = puzzles("magictour_top1465")
    out = []
    for i in range(n):
        board = boards[i % len(boards)]
        solution = engine.solve(board)
        cells = [c if c != "." or rng.random() > 0.3 else s for c, s in zip(board, solution)]
        out.append(pb.HintRequest(givens=board, entries="".join(
            s if c == "." and cells[k] != "." else "." for k, (c, s) in enumerate(zip(board, cells)))).SerializeToString())
    return out


def requests_of(kind: str, n: int, rng: random.Random) -> list[bytes]:
    if kind == "hint":
        return fresh_hints(n, rng)
    boards = puzzles("magictour_top1465")
    fresh = [transformed(boards[i % len(boards)], rng) for i in range(n)]
    if kind == "count":
        return [pb.CountRequest(board=b).SerializeToString() for b in fresh]
    if kind == "grade":
        return [pb.GradeRequest(board=b).SerializeToString() for b in fresh]
    if kind == "grade-qqwing":
        boards = puzzles("qqwing_intermediate") + puzzles("qqwing_expert")
        return [pb.GradeRequest(board=transformed(boards[i % len(boards)], rng)).SerializeToString()
                for i in range(n)]
    if kind == "solve-final":
        return [pb.SolveRequest(board=b, view=pb.VIEW_FINAL).SerializeToString() for b in fresh]
    return [pb.SolveRequest(board=b, view=pb.VIEW_SEARCH, pacing=pb.Pacing(unpaced=True)).SerializeToString()
            for b in fresh]


METHODS = {"hint": ("/sudoku.v1.Sudoku/Hint", False), "count": ("/sudoku.v1.Sudoku/CountSolutions", False),
           "grade": ("/sudoku.v1.Sudoku/Grade", False), "grade-qqwing": ("/sudoku.v1.Sudoku/Grade", False),
           "solve": ("/sudoku.v1.Sudoku/Solve", True), "solve-final": ("/sudoku.v1.Sudoku/Solve", True),
           "echo": ("/echo.Echo/Call", False)}


async def drive(address: str, method: str, stream: bool, requests: list[bytes], in_flight: int,
                pace: float = 0.0) -> tuple[list, int]:
    """Sends the requests, `in_flight` at a time (with `pace`, a call starts
    every 1/pace s at most: sporadic calls); returns the latencies and
    the messages received. Unary calls share one connection; unpaced
    solves go 8 to a connection, within one connection's frame budget
    (SUDOKU_MAX_FRAME_RATE_PER_CONNECTION: 100 messages/s each)."""
    latencies, messages = [], 0
    per_channel = 8 if stream else in_flight
    channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(-(-in_flight // per_channel))]
    try:
        calls = [channel.unary_stream(method, request_serializer=bytes, response_deserializer=bytes) if stream else
                 channel.unary_unary(method, request_serializer=bytes, response_deserializer=bytes)
                 for channel in channels]
        todo = list(reversed(requests))
        next_at = time.perf_counter()

        async def client(call):
            nonlocal messages, next_at
            while todo:
                if pace:
                    wait, next_at = next_at - time.perf_counter(), max(next_at, time.perf_counter()) + 1 / pace
                    await asyncio.sleep(max(0.0, wait))
                    if not todo:  # another client took the last while this one waited
                        break
                request = todo.pop()
                started = time.perf_counter()
                if stream:
                    async for _ in call(request, timeout=60):
                        messages += 1
                else:
                    await call(request, timeout=60)
                    messages += 1
                latencies.append(time.perf_counter() - started)

        await asyncio.gather(*(client(calls[i // per_channel]) for i in range(in_flight)))
    finally:
        for channel in channels:
            await channel.close()
    return latencies, messages


def flow(flight: str) -> tuple[int, float]:
    """--in-flight's calls in flight and pace: "16" is 16 as fast as they
    go, "40/s" a steady 40 calls a second, up to 4 in flight."""
    return (4, float(flight[:-2])) if flight.endswith("/s") else (int(flight), 0.0)


def measure(target, method: str, stream: bool, requests: list[bytes], in_flight: int, redis: Redis | None,
            pace: float = 0.0) -> dict:
    asyncio.run(drive(target.address, method, stream, requests[:50], in_flight))  # warm up
    requests = requests[50:]
    pids = target.pids()
    front = pids[:1]  # the service's own process (for the echo, the echo)
    cpu0, front0, redis0 = cpu_seconds(pids), cpu_seconds(front), redis_cpu(redis) if redis else (0.0, 0)
    started = time.perf_counter()
    latencies, messages = asyncio.run(drive(target.address, method, stream, requests, in_flight, pace))
    took = time.perf_counter() - started
    cpu1, front1, redis1 = cpu_seconds(pids), cpu_seconds(front), redis_cpu(redis) if redis else (0.0, 0)
    n = len(requests)
    redis_ms = (redis1[0] - redis0[0]) * 1000 / n
    service_ms = (front1 - front0) * 1000 / n
    return {"cpu_ms": (cpu1 - cpu0) * 1000 / n, "service_ms": service_ms, "redis_us": redis_ms * 1000,
            "workers_ms": (cpu1 - cpu0) * 1000 / n - service_ms - redis_ms if redis else 0.0,
            "commands": (redis1[1] - redis0[1]) / n, "per_s": n / took, "p50": statistics.median(latencies) * 1000,
            "p99": percentile(latencies, 0.99) * 1000, "messages": messages / n}


def footprint(target, method: str, stream: bool, requests: list[bytes], redis: Redis) -> float:
    """Bytes of Redis memory a call keeps, and calls a job carried, over a
    burst of calls at 16 in flight: used_memory after less before, a
    call's share, with what the result cache keeps of it; the calls over
    the jobs they made."""
    time.sleep(6)  # what the run before keeps for seconds (a watched solve's job) goes, not during the burst
    used0, jobs0 = redis.info("memory")["used_memory"], jobs_done(redis)
    asyncio.run(drive(target.address, method, stream, requests, 16))
    used1, jobs1 = redis.info("memory")["used_memory"], jobs_done(redis)
    return (used1 - used0) / len(requests), len(requests) / max(1, jobs1 - jobs0)


def jobs_done(redis: Redis) -> int:
    """Jobs the workers have finished, by their own count (RQ's worker
    hashes): a job that answered on an inbox leaves no key behind to count."""
    from rq import Worker

    return sum(worker.successful_job_count for worker in Worker.all(connection=redis))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, action="append", default=[], help="another checkout to run too")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--kinds", default="hint,count,grade,solve")
    parser.add_argument("--in-flight", default="1,16")
    parser.add_argument("--rounds", type=int, default=3,
                        help="runs of each tree, in turn (the figures are their medians: this machine is shared)")
    args = parser.parse_args()
    trees = [ROOT, *args.against]
    rng = random.Random(22)
    kinds = args.kinds.split(",")
    flights = args.in_flight.split(",")
    runs: dict[tuple, list[dict]] = {}
    for _ in range(args.rounds):
        echo = Echo(reply_size=600)
        for flight in flights:
            calls, pace = flow(flight)
            result = measure(echo, METHODS["echo"][0], False, requests_of("hint", args.calls + 50, rng), calls,
                             None, pace)
            result["bytes"], result["calls_per_job"] = 0.0, 0.0
            runs.setdefault(("echo", "bare grpc.aio", flight), []).append(result)
        echo.close()
        for tree in trees:
            server = Server(tree)
            try:
                for kind in kinds:
                    for flight in flights:
                        method, stream = METHODS[kind]
                        # Fresh requests for every run: a cache must never answer.
                        requests = requests_of(kind, args.calls + 50, rng)
                        calls, pace = flow(flight)
                        result = measure(server, method, stream, requests, calls, server.redis, pace)
                        result["bytes"], result["calls_per_job"] = (0.0, 0.0) if pace else footprint(
                            server, method, stream, requests_of(kind, 300, rng), server.redis)
                        runs.setdefault((kind, str(tree), flight), []).append(result)
            finally:
                server.close()
    rows = [(*row, {name: statistics.median(r[name] for r in results) for name in results[0]})
            for row, results in runs.items()]
    floors = {flight: r for kind, _, flight, r in rows if kind == "echo"}
    print(f"{'kind':6} {'tree':24} {'in flight':>9} {'CPU ms/call':>11} {'x echo':>6} {'service':>7} {'workers':>7} "
          f"{'Redis us/call':>13} {'cmds/call':>9} {'calls/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'msgs/call':>9} "
          f"{'Redis B/call':>12} {'calls/job @16':>13}")
    for kind, tree, flight, r in rows:
        ratio = r["cpu_ms"] / floors[flight]["cpu_ms"]
        print(f"{kind:6} {tree[-24:]:24} {flight:>9} {r['cpu_ms']:11.3f} {ratio:6.1f} {r['service_ms']:7.3f} "
              f"{r['workers_ms']:7.3f} {r['redis_us']:13.1f} {r['commands']:9.1f} {r['per_s']:8.0f} {r['p50']:7.2f} "
              f"{r['p99']:7.2f} {r['messages']:9.1f} {r['bytes']:12.0f} {r['calls_per_job']:13.1f}")


if __name__ == "__main__":
    main()
