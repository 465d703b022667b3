"""Queueing jobs on RQ, and what refuses or attaches a new one.

Each enqueue is one round trip from the event loop (service/jobs/enqueue.py),
for a solve together with the stream's first frame. New work is refused
while too many jobs wait (QueueFull) or Redis is near its memory bound
(StoreFull); a solve whose request_id was seen attaches to its first job.
A unary job's result is then awaited through service/jobs/waiting.py.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import RedisError
from rq import Callback, Queue, Retry
from rq.serializers import JSONSerializer
from rq.worker_registration import WORKERS_BY_QUEUE_KEY

from service.jobs.enqueue import Claim, Enqueued, Enqueuer, RequestIdReused
from service.rpc.validate import Invalid
from service.streams.hub import StreamHub
from sudoku import cells, keys, lanes, tracing
from sudoku.config import Settings
from sudoku.errors import Exhausted
from sudoku.replies import header_frame
from sudoku.specs import SolveSpec
from sudoku.v1 import sudoku_pb2 as pb


class QueueFull(Exhausted):
    """More jobs are waiting than the configured bound."""

    def details(self) -> str:
        return f"queue full: {self}"


class StoreFull(Exhausted):
    """Redis is near its memory bound: new work is refused before Redis
    would refuse the writes of work already queued."""


# How long RQ keeps a job that answered on an inbox (a coalesced job's
# calls, a batch's part): 0, deleted as it finishes (worker/run/lifecycle.py
# does that in its FINISH script), since its answers are on the inbox and a
# waiter's look at a job that is gone or finished says the same: lost. So a
# call keeps nothing in Redis once answered but its cache entry.
ANSWERED_TTL_S = 0
# The share of Redis's maxmemory past which new work is refused.
MEMORY_HIGH = 0.9


def memory_verdict(info: dict) -> str | None:
    """What to say to new work given Redis's INFO memory: None when there is
    room (or no bound), else why it is refused."""
    used, most = int(info.get("used_memory", 0)), int(info.get("maxmemory", 0))
    if most <= 0 or used < MEMORY_HIGH * most:
        return None
    return (f"the job store is nearly full ({used >> 20} of {most >> 20} MB); "
            "retry once running jobs have ended")


def eviction_warning(info: dict) -> str | None:
    """What to warn of given Redis's INFO memory: None when a full Redis
    refuses writes (noeviction, or no bound), else what its policy does."""
    policy = info.get("maxmemory_policy", "noeviction")
    if int(info.get("maxmemory", 0)) <= 0 or policy == "noeviction":
        return None
    return (f"Redis's maxmemory-policy is {policy}: when full it evicts keys that queued jobs, calls waiting "
            "for replies and solves' frames need, and those fail or wait out their deadlines; "
            "set maxmemory-policy noeviction (new work is refused before Redis is full)")


def new_job_id(cell: int = 0) -> str:
    return cells.new_job_id(cell)


def fingerprint(request: pb.SolveRequest) -> str:
    """What a retry must repeat exactly to attach to the same job."""
    copy = pb.SolveRequest()
    copy.CopyFrom(request)
    copy.request_id = ""
    return hashlib.sha256(copy.SerializeToString(deterministic=True)).hexdigest()


class Jobs:
    def __init__(self, settings: Settings, redis: Redis, hub: StreamHub, enqueuer: Enqueuer, cell: int = 0):
        self.settings = settings
        self.cell = cell  # its place in REDIS_URL, which its job ids carry (sudoku/cells.py)
        # Jobs waiting in the queue as the last enqueue found them: the
        # cell's load, for routing (service/jobs/cells.py).
        self.waiting = 0
        self.redis = redis  # synchronous: RQ's Queue objects hold it (jobs are written by Enqueuer)
        self.hub = hub
        self.queues = {name: Queue(name, connection=redis, serializer=JSONSerializer) for name in keys.QUEUES}
        self.enqueuer = enqueuer
        self.store_full: str | None = None  # set by the health monitor (memory_verdict)
        self.retry = Retry(max=settings.job_retries)  # of a job whose worker died
        self.calls_failure = Callback("worker.jobs.on_calls_failure")
        self.part_failure = Callback("worker.jobs.on_part_failure")
        # Workers taking each queue, from RQ's registry (a worker that died
        # stays there until a worker's maintenance cleans it: at worst an
        # overcount); the health monitor refreshes it.
        self.workers: dict[str, int] = {}
        try:
            for queue in self.queues.values():
                queue.get_redis_server_version()  # cached from now on: no round trip per job
        except RedisError:
            pass  # a cell down as the service starts: RQ asks again when it is needed

    def new_job_id(self) -> str:
        return new_job_id(self.cell)

    async def count_workers(self, redis: AsyncRedis) -> None:
        async with redis.pipeline(transaction=False) as pipe:
            for name in keys.QUEUES:
                pipe.scard(WORKERS_BY_QUEUE_KEY % name)
            self.workers = dict(zip(keys.QUEUES, await pipe.execute()))

    async def _enqueue(self, queue_name: str, func: str, args: Any, job_id: str, **options: Any) -> Enqueued:
        """Queues the job, unless the options' `cached` key holds a reply or
        their `claim` names a job already (see Enqueuer.enqueue)."""
        if self.store_full:
            raise StoreFull(self.store_full)
        try:
            done = await self.enqueuer.enqueue(
                self.queues[queue_name], self.settings.queue_bound, func, args, job_id, **options
            )
        except RequestIdReused:
            raise Invalid("request_id: already used for a different request; use a new id") from None
        if done.cached is None and done.attached is None:  # those found no queue depth
            self.waiting = done.waiting
        if not done.queued and done.cached is None and done.attached is None:
            raise QueueFull(f"{done.waiting} jobs are waiting, the bound is {self.settings.queue_bound}; "
                            "retry in a moment")
        return done

    async def enqueue(self, queue_name: str, func: str, args: Any, job_id: str, **options: Any) -> Enqueued:
        """Queues func(args) as job `job_id` (QueueFull, StoreFull when refused)."""
        return await self._enqueue(queue_name, func, args, job_id, **options)

    async def start_solve(self, spec: SolveSpec, adjustments: list[str], request: pb.SolveRequest,
                          ) -> tuple[str, pb.Frame | None]:
        """Queues the solve, in the cheap lane when its step cap is small
        (sudoku/lanes.py), else the heavy one; returns its job id and frame 1,
        which is written with the job, so the client has its job id at once. The stream lives
        until the worker ends it (or a day, if none ever does). When the
        request's request_id names a job that still has its stream, nothing
        is queued: returns that job's id and None."""
        first = header_frame(spec, adjustments, request.pacing.unpaced, request.pacing.runs)
        claim = None
        if request.request_id:
            ttl = self.settings.stream_ttl_s + self.settings.max_time_ms // 1000 + 3600
            claim = Claim(keys.request(request.request_id), fingerprint(request), ttl)
        lane = lanes.CHEAP if spec.max_steps <= lanes.CHEAP_SOLVE_STEPS else lanes.HEAVY
        args = spec.to_dict()
        trace, started = tracing.carrier(), time.time_ns()
        if trace:  # worker/jobs.py solve reads them
            args["trace"], args["queued_ns"] = trace, started
        done = await self._enqueue(
            lanes.QUEUES[lane],
            "worker.jobs.solve",
            args,
            spec.job_id,
            stream=keys.frames(spec.job_id),
            first_frame=first.SerializeToString(),
            timeout=2 * spec.time_limit_ms // 1000 + 60,
            result_ttl=spec.stream_ttl_s,
            failure_ttl=spec.stream_ttl_s,
            retry=Retry(max=self.settings.job_retries),
            on_failure=Callback("worker.jobs.on_solve_failure"),
            claim=claim,
        )
        if trace:
            tracing.record("enqueue", trace, started, time.time_ns(), kind="solve", lane=lane, job=spec.job_id)
        if done.attached is not None:
            return done.attached, None
        return spec.job_id, first
