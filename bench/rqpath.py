"""RQ's public path against ours: a job's cost, and a call's. Run by hand, prints figures.

    python bench/rqpath.py [--jobs 3000] [--rounds 3]          # a job's cost
    python bench/rqpath.py --calls 2000 [--rounds 3] [--pace 20]  # a Hint's cost

A job's cost: the same jobs (a function that returns 600 bytes, what a
Hint's reply weighs) go through each path on one embedded Redis, in turn,
`--rounds` times (medians: this machine is shared):

- **rq**: RQ's public API as its docs give it: `Queue.enqueue_many` in a
  pipeline (a job per call of it, as a service that cannot wait to batch
  would), and `rq.SimpleWorker` in burst mode, storing each result;
- **ours**: the service's Enqueuer (one ENQUEUE script, service/jobs/enqueue.py)
  and LeanWorker (START and FINISH scripts, worker/run/lifecycle.py), what
  sudoku-server runs.

For each: Redis CPU (INFO used_cpu) and commands (INFO commandstats, the
commands inside a script counted too) a job, the enqueuing process's CPU
and the worker's CPU a job, and jobs/s of one worker.

A call's cost (`--calls`): Hints on fresh boards through sudoku-server as
`make up` runs it, with its workers on LeanWorker (ours) and on RQ's own
SimpleWorker lifecycle (bench/rqworker.py's PublicWorker: RQ's dequeue,
execution and outcome, under the same heartbeats), in turn, at one call in
flight, 16 in flight, and one client sending `--pace` calls a second
(sporadic calls: each one's job ends before the next comes). CPU of every
server-side process a call (bench/pipeline.py's measure), Redis's, and the
latency. A job that takes calls while it runs (worker/calls.py) carries up
to 64 calls at a steady flow, so a job's own cost is shared by that many;
a sporadic call pays a whole job.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from redis import Redis  # noqa: E402
from redis.asyncio import Redis as AsyncRedis  # noqa: E402
from rq import Queue  # noqa: E402
from rq.serializers import JSONSerializer  # noqa: E402

from bench.pipeline import METHODS, Server, measure, redis_cpu, requests_of  # noqa: E402
from bench.stack import ROOT  # noqa: E402
from launcher.embedded_redis import EmbeddedRedis  # noqa: E402
from service.jobs.enqueue import Enqueuer  # noqa: E402

QUEUE = "bench-rqpath"
REPLY = b"\x00" * 600


def reply(i: int) -> str:
    """The job: its reply, as RQ stores a result."""
    return REPLY.hex()


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def enqueue_rq(redis: Redis, n: int) -> None:
    queue = Queue(QUEUE, connection=redis, serializer=JSONSerializer)
    for i in range(n):
        with redis.pipeline() as pipe:
            queue.enqueue_many([Queue.prepare_data("bench.rqpath.reply", args=(i,), job_id=uuid.uuid4().hex, result_ttl=5)],
                               pipeline=pipe)
            pipe.execute()


def enqueue_ours(url: str, n: int) -> None:
    async def run() -> None:
        redis = AsyncRedis.from_url(url)
        enqueuer = Enqueuer(redis, slots=1)
        queue = Queue(QUEUE, connection=Redis.from_url(url), serializer=JSONSerializer)
        queue.get_redis_server_version()
        for i in range(n):
            await enqueuer.enqueue(queue, 10**9, "bench.rqpath.reply", [i], uuid.uuid4().hex, result_ttl=5)
        await enqueuer.close()
        await redis.aclose()

    asyncio.run(run())


WORK = """
import sys
sys.path[0] = {root!r}
from redis import Redis
from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer
from worker.run.lifecycle import LeanWorker
redis = Redis.from_url({url!r})
cls = LeanWorker if {path!r} == "ours" else SimpleWorker
queues = [{queue!r}] if cls is LeanWorker else [Queue({queue!r}, connection=redis, serializer=JSONSerializer)]
cls(queues, connection=redis, serializer=JSONSerializer).work(burst=True, logging_level="WARNING")
"""


def run(path: str, url: str, n: int) -> dict:
    redis = Redis.from_url(url)
    redis.flushall()
    cpu0, r0 = own_cpu(), redis_cpu(redis)
    (enqueue_ours(url, n) if path == "ours" else enqueue_rq(redis, n))
    cpu1, r1 = own_cpu(), redis_cpu(redis)
    started = time.perf_counter()
    child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", WORK.format(root=str(ROOT), url=url, path=path, queue=QUEUE)],
                   check=True, cwd=ROOT)
    took = time.perf_counter() - started
    child1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r2 = redis_cpu(redis)
    left = redis.llen(f"rq:queue:{QUEUE}")
    assert left == 0, f"{left} jobs left in the queue"
    worker_s = (child1.ru_utime + child1.ru_stime) - (child0.ru_utime + child0.ru_stime)
    return {"enqueue_redis_us": (r1[0] - r0[0]) * 1e6 / n, "enqueue_cmds": (r1[1] - r0[1]) / n,
            "work_redis_us": (r2[0] - r1[0]) * 1e6 / n, "work_cmds": (r2[1] - r1[1]) / n,
            "enqueuer_us": (cpu1 - cpu0) * 1e6 / n, "worker_us": worker_s * 1e6 / n, "jobs_per_s": n / took}


def calls_view(calls: int, rounds: int, pace: float) -> None:
    """A Hint's cost through the service with each worker lifecycle (see the module docstring)."""
    loads = [("1 in flight", 1, 0.0), ("16 in flight", 16, 0.0), (f"{pace:g} calls/s", 1, pace)]
    paths = {"ours": (), "rq": ("--worker-class", "bench.rqworker.PublicWorker")}
    rng = random.Random(22)
    runs: dict[tuple[str, str], list[dict]] = {}
    for _ in range(rounds):
        for path, extra in paths.items():
            server = Server(ROOT, extra)
            try:
                for load, in_flight, rate in loads:
                    n = calls if not rate else max(100, calls // 10)  # sporadic calls take their time
                    result = measure(server, METHODS["hint"][0], False, requests_of("hint", n + 50, rng), in_flight,
                                     server.redis, rate)
                    runs.setdefault((path, load), []).append(result)
            finally:
                server.close()
    print(f"Hints a run: {calls} (sporadic: {max(100, calls // 10)}), medians of {rounds} rounds, in turn")
    print(f"{'path':5} {'load':14} {'CPU ms/call':>11} {'service':>7} {'workers':>7} {'Redis us/call':>13} "
          f"{'cmds/call':>9} {'calls/s':>8} {'p50 ms':>7} {'p99 ms':>7}")
    medians = {}
    for (path, load), results in runs.items():
        m = medians[path, load] = {k: statistics.median(r[k] for r in results) for k in results[0]}
        print(f"{path:5} {load:14} {m['cpu_ms']:11.3f} {m['service_ms']:7.3f} {m['workers_ms']:7.3f} "
              f"{m['redis_us']:13.1f} {m['commands']:9.1f} {m['per_s']:8.0f} {m['p50']:7.2f} {m['p99']:7.2f}")
    for load, _, _ in loads:
        rq, ours = medians["rq", load], medians["ours", load]
        print(f"rq / ours, {load}: CPU a call {rq['cpu_ms'] / ours['cpu_ms']:.2f}x, "
              f"p50 {rq['p50'] / ours['p50']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=3000)
    parser.add_argument("--calls", type=int, default=0, help="a call's cost instead: Hints a run")
    parser.add_argument("--pace", type=float, default=20.0, help="sporadic calls a second (with --calls)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.calls:
        calls_view(args.calls, args.rounds, args.pace)
        return
    server = EmbeddedRedis().start()
    runs: dict[str, list[dict]] = {"rq": [], "ours": []}
    try:
        for _ in range(args.rounds):
            for path in runs:
                runs[path].append(run(path, server.url, args.jobs))
    finally:
        server.stop()
    print(f"{args.jobs} jobs a run, medians of {args.rounds} runs; a job's figures (the worker's CPU includes "
          "its start, spread over the jobs)")
    print(f"{'path':5} {'Redis us':>9} {'cmds':>6} {'enqueue Redis us':>16} {'enqueue cmds':>12} "
          f"{'worker Redis us':>15} {'worker cmds':>11} {'enqueuer CPU us':>15} {'worker CPU us':>13} {'jobs/s':>7}")
    medians = {}
    for path, results in runs.items():
        m = {k: statistics.median(r[k] for r in results) for k in results[0]}
        medians[path] = m
        print(f"{path:5} {m['enqueue_redis_us'] + m['work_redis_us']:9.1f} {m['enqueue_cmds'] + m['work_cmds']:6.1f} "
              f"{m['enqueue_redis_us']:16.1f} {m['enqueue_cmds']:12.1f} {m['work_redis_us']:15.1f} "
              f"{m['work_cmds']:11.1f} {m['enqueuer_us']:15.1f} {m['worker_us']:13.1f} {m['jobs_per_s']:7.0f}")
    rq, ours = medians["rq"], medians["ours"]
    total = lambda m: m["enqueue_redis_us"] + m["work_redis_us"] + m["enqueuer_us"] + m["worker_us"]  # noqa: E731
    print(f"rq / ours: Redis CPU {(rq['enqueue_redis_us'] + rq['work_redis_us']) / (ours['enqueue_redis_us'] + ours['work_redis_us']):.2f}x, "
          f"all CPU {total(rq) / total(ours):.2f}x, jobs/s {rq['jobs_per_s'] / ours['jobs_per_s']:.2f}x")


if __name__ == "__main__":
    main()
