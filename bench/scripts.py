"""What a Lua script call costs the worker and the service: run by hand.

    python bench/scripts.py                 # 5 rounds of 2,000 calls each
    python bench/scripts.py --rounds 9 --calls 5000

On an embedded Redis (unix socket), one caller at a time, so the figures
are the caller's own time plus one round trip:
  - held / redis-py: one EVALSHA of a script that returns at once, with
    START's number of keys and arguments, on the worker's held connection
    (sudoku/scripts.py) and through redis-py's register_script;
  - worker job: a no-op job through the workers' class, SudokuWorker
    (dequeue, START, the call, FINISH), µs a job over a burst of `calls`
    jobs, and the worker's CPU µs a job (Redis's own is not counted);
  - enqueue: Enqueuer.enqueue (service/jobs/enqueue.py) one call at a time,
    and calls per second with 64 calls in flight, with the CPU µs of the
    caller's process a call then (the least noisy of these figures on a
    shared machine).
Each line gives the median of the rounds and their range.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from redis import Redis  # noqa: E402
from redis.asyncio import Redis as AsyncRedis  # noqa: E402
from rq import Queue  # noqa: E402
from rq.serializers import JSONSerializer  # noqa: E402

from launcher.embedded_redis import EmbeddedRedis  # noqa: E402
from service.jobs.enqueue import Enqueuer  # noqa: E402
from sudoku.scripts import HeldConnection, Script  # noqa: E402
from worker.run.classes import SudokuWorker  # noqa: E402

TRIVIAL = Script("return ARGV[1]")
KEYS = [f"bench:key:{i}" for i in range(7)]
ARGS = ["a" * 32, "b" * 32, 1767225600.123456, "worker-name", 70, 1767225730.5, 130, 1767225670.5,
        "worker-name:" + "c" * 32, "2026-01-01T00:00:00.123456Z", 130, "2026-01-01T00:00:00.123456Z"]


def per_call(call, calls: int) -> float:
    """µs a call, over `calls` calls."""
    t0 = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - t0) / calls * 1e6


def held(redis: Redis, calls: int) -> float:
    held = HeldConnection(redis)
    try:
        return per_call(lambda: held(TRIVIAL, KEYS, ARGS), calls)
    finally:
        held.close()


def redis_py(redis: Redis, calls: int) -> float:
    script = redis.register_script(TRIVIAL.source)
    return per_call(lambda: script(keys=KEYS, args=ARGS), calls)


def worker_jobs(redis: Redis, calls: int) -> tuple[float, float]:
    name = f"bench-{uuid.uuid4().hex}"
    queue = Queue(name, connection=redis, serializer=JSONSerializer)
    with redis.pipeline() as pipe:
        for i in range(calls):
            queue.enqueue_call("builtins.abs", args=(i,), result_ttl=60, pipeline=pipe)
        pipe.execute()
    worker = SudokuWorker([name], connection=redis, serializer=JSONSerializer)
    cpu, t0 = time.process_time(), time.perf_counter()
    worker.work(burst=True, logging_level="ERROR")
    took, cpu = time.perf_counter() - t0, time.process_time() - cpu
    assert queue.count == 0 and len(queue.finished_job_registry) == calls
    redis.flushdb()
    return took / calls * 1e6, cpu / calls * 1e6


async def enqueues(url: str, redis: Redis, calls: int) -> tuple[float, float, float]:
    """µs an enqueue one at a time; enqueues a second 64 at a time, and the
    CPU µs of this process an enqueue then."""
    queue = Queue(f"bench-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    client = AsyncRedis.from_url(url)
    enqueuer = Enqueuer(client)
    options = dict(timeout=70, result_ttl=60, failure_ttl=60)
    try:
        for _ in range(50):  # the template and the script, loaded
            await enqueuer.enqueue(queue, 10**9, "worker.jobs.part", {"board": "." * 81}, uuid.uuid4().hex, **options)
        t0 = time.perf_counter()
        for _ in range(calls):
            await enqueuer.enqueue(queue, 10**9, "worker.jobs.part", {"board": "." * 81}, uuid.uuid4().hex, **options)
        one = (time.perf_counter() - t0) / calls * 1e6
        pending = list(range(calls))

        async def caller():
            while pending:
                pending.pop()
                await enqueuer.enqueue(queue, 10**9, "worker.jobs.part", {"board": "." * 81}, uuid.uuid4().hex,
                                       **options)

        cpu, t0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(caller() for _ in range(64)))
        took, cpu = time.perf_counter() - t0, time.process_time() - cpu
        return one, calls / took, cpu / calls * 1e6
    finally:
        await enqueuer.close()
        await client.aclose()
        redis.flushdb()


def summary(values: list[float], unit: str) -> str:
    return f"{statistics.median(values):8.1f} {unit}  ({min(values):.1f} .. {max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    server = EmbeddedRedis().start()
    redis = Redis.from_url(server.url)
    rows: dict[str, list[float]] = {name: [] for name in (
        "held", "redis-py", "worker job", "worker CPU", "enqueue", "enqueue x64", "enqueue CPU")}
    try:
        for _ in range(args.rounds):
            rows["held"].append(held(redis, args.calls))
            rows["redis-py"].append(redis_py(redis, args.calls))
            took, cpu = worker_jobs(redis, args.calls)
            rows["worker job"].append(took)
            rows["worker CPU"].append(cpu)
            one, many, cpu = asyncio.run(enqueues(server.url, redis, args.calls))
            rows["enqueue"].append(one)
            rows["enqueue x64"].append(many)
            rows["enqueue CPU"].append(cpu)
    finally:
        redis.close()
        server.stop()
    print(f"{args.rounds} rounds of {args.calls} calls; median (min .. max)")
    for name, values in rows.items():
        unit = "calls/s" if name == "enqueue x64" else "µs"
        print(f"{name:12} {summary(values, unit)}")


if __name__ == "__main__":
    main()
