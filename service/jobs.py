"""Queueing jobs on RQ and waiting for their results.

Each enqueue is one round trip from the event loop (service/enqueue.py),
for a solve together with the stream's first frame. Results are awaited by
blocking on RQ's own result stream through the hub, never by polling.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import json
import logging
import time
import uuid
import zlib
from base64 import b64decode
from datetime import datetime
from typing import Any

from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import RedisError
from rq import Callback, Queue, Retry
from rq.job import Job
from rq.results import Result
from rq.serializers import JSONSerializer

from service import metrics
from service.config import Settings
from service.enqueue import Claim, Enqueued, Enqueuer, RequestIdReused
from service.hub import StreamHub
from service.relay import IDLE_CHECK_S, JobFailed
from service.validate import Invalid
from sudoku import keys
from sudoku.specs import Spec, SolveSpec
from sudoku.v1 import sudoku_pb2 as pb

log = logging.getLogger("sudoku.service")

TERMINAL_FAILURES = {Result.Type.FAILED, Result.Type.STOPPED, Result.Type.MAX_RETRIES_EXCEEDED}


def read_result(payload: dict[bytes, bytes]) -> tuple[Result.Type, Any, str | None]:
    """A result entry's type, return value and error, read as Result.restore
    reads them (JSONSerializer), without the dates and worker details the
    service has no use for: 10 µs instead of 51."""
    value = payload.get(b"return_value")
    exc_string = payload.get(b"exc_string")
    return (
        Result.Type(int(payload[b"type"])),
        json.loads(b64decode(value)) if value is not None else None,
        zlib.decompress(b64decode(exc_string)).decode() if exc_string else None,
    )


class QueueFull(Exception):
    """More jobs are waiting than the configured bound."""


class StoreFull(Exception):
    """Redis is near its memory bound: new work is refused before Redis
    would refuse the writes of work already queued."""


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


class JobLost(Exception):
    """The job's state is gone from Redis before it ended: the Redis it was
    queued on restarted empty (or evicted it). Nothing will ever finish it."""

    def __init__(self, job_id: str):
        super().__init__(job_id)
        self.job_id = job_id


class JobStuck(Exception):
    """The job has been running for longer than its own timeout: no worker
    is making progress on it (they are all stopped, or gone)."""


# How long past its timeout a started job may go before a waiter gives up
# on it: the heartbeat TTL and the cleanup pass that would have requeued it.
STUCK_SLACK_S = 10


def new_job_id() -> str:
    return uuid.uuid4().hex


def header_frame(spec: SolveSpec, adjustments: list[str], pacing_unpaced: bool, runs: bool = False) -> pb.Frame:
    """Frame 1: what the job will do, and the board it starts from."""
    info = pb.JobInfo(
        givens=spec.givens,
        entries=spec.entries,
        strategy=pb.STRATEGY_NAIVE if spec.strategy == "naive" else pb.STRATEGY_MRV,
        tie_break={"rotate": pb.TIE_BREAK_ROTATE, "first": pb.TIE_BREAK_FIRST, "random": pb.TIE_BREAK_RANDOM}[
            spec.tie_break
        ],
        seed=spec.seed,
        max_steps=spec.max_steps,
        time_limit_ms=spec.time_limit_ms,
        view=pb.VIEW_SEARCH if spec.view == "search" else pb.VIEW_FINAL,
        adjustments=adjustments,
    )
    if spec.view == "search":
        info.pacing.CopyFrom(
            pb.Pacing(
                duration_ms=spec.duration_ms,
                fps=spec.fps,
                steps_per_frame=spec.steps_per_frame,
                unpaced=pacing_unpaced,
                runs=runs and not pacing_unpaced,
            )
        )
    return pb.Frame(seq=1, job_id=spec.job_id, cursor=-1, board=spec.board, counters=pb.Counters(), job=info)


def fingerprint(request: pb.SolveRequest) -> str:
    """What a retry must repeat exactly to attach to the same job."""
    copy = pb.SolveRequest()
    copy.CopyFrom(request)
    copy.request_id = ""
    return hashlib.sha256(copy.SerializeToString(deterministic=True)).hexdigest()


# Extends a finished stream's expiry back to the full TTL when a watcher
# attaches (it was shortened because nobody was reading); a running job's
# stream, whose expiry is longer, is left alone. KEYS: frames; ARGV: ttl
EXTEND_FINISHED = """
local left = redis.call('TTL', KEYS[1])
if left >= 0 and left < tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return left
"""


class Watched:
    """The jobs whose frames this process's clients are reading, marked in
    Redis while they are (keys.watched: a hash with a field per service
    instance with readers): a job that ends with nobody reading its frames
    gets the short expiry (worker/stream.py). An instance removes its field
    when its last reader of the job leaves; the hash expires TTL_S after the
    last renewal, so an instance that died leaves no mark for long. One task
    renews every mark of the instance, in one round trip, every RENEW_EVERY_S."""

    TTL_S = 15
    RENEW_EVERY_S = 5

    def __init__(self, redis: AsyncRedis, stream_ttl_s: int):
        self.redis = redis
        self.stream_ttl_s = stream_ttl_s
        self.instance = uuid.uuid4().hex
        self.readers: collections.Counter[str] = collections.Counter()
        self._extend = redis.register_script(EXTEND_FINISHED)

    @contextlib.asynccontextmanager
    async def reading(self, job_id: str):
        self.readers[job_id] += 1
        try:
            if self.readers[job_id] == 1:
                async with self.redis.pipeline(transaction=False) as pipe:
                    self._mark(pipe, job_id)
                    await pipe.execute()
                await self._extend(keys=[keys.frames(job_id)], args=[self.stream_ttl_s])
            yield
        finally:
            self.readers[job_id] -= 1
            if not self.readers[job_id]:
                del self.readers[job_id]
                await asyncio.shield(self._unmark(job_id))

    def _mark(self, pipe, job_id: str) -> None:
        pipe.hset(keys.watched(job_id), self.instance, 1)
        pipe.expire(keys.watched(job_id), self.TTL_S)

    async def _unmark(self, job_id: str) -> None:
        try:
            await self.redis.hdel(keys.watched(job_id), self.instance)
        except RedisError:
            pass  # Redis is away: the mark expires by itself

    async def renew(self) -> None:
        while True:
            await asyncio.sleep(self.RENEW_EVERY_S)
            if not self.readers:
                continue
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for job_id in list(self.readers):
                        self._mark(pipe, job_id)
                    await pipe.execute()
            except RedisError as exc:  # Redis away: the streams themselves fail and resume
                log.warning("could not renew the watched marks: %s", exc)


class Jobs:
    def __init__(self, settings: Settings, redis: Redis, hub: StreamHub, enqueuer: Enqueuer):
        self.settings = settings
        self.redis = redis  # synchronous: RQ's Queue objects hold it (jobs are written by Enqueuer)
        self.hub = hub
        self.queues = {name: Queue(name, connection=redis, serializer=JSONSerializer) for name in keys.QUEUES}
        self.enqueuer = enqueuer
        self.watched = Watched(hub.waker, settings.stream_ttl_s)
        self.store_full: str | None = None  # set by the health monitor (memory_verdict)
        for queue in self.queues.values():
            queue.get_redis_server_version()  # cached from now on: no round trip per job

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
        if not done.queued and done.cached is None and done.attached is None:
            raise QueueFull(f"{done.waiting} jobs are waiting, the bound is {self.settings.queue_bound}; "
                            "retry in a moment")
        return done

    async def start_solve(self, spec: SolveSpec, adjustments: list[str], request: pb.SolveRequest,
                          ) -> tuple[str, pb.Frame | None]:
        """Queues the solve; returns its job id and frame 1, which is written
        with the job, so the client has its job id at once. The stream lives
        until the worker ends it (or a day, if none ever does). When the
        request's request_id names a job that still has its stream, nothing
        is queued: returns that job's id and None."""
        first = header_frame(spec, adjustments, request.pacing.unpaced, request.pacing.runs)
        claim = None
        if request.request_id:
            ttl = self.settings.stream_ttl_s + self.settings.max_time_ms // 1000 + 3600
            claim = Claim(keys.request(request.request_id), fingerprint(request), ttl)
        done = await self._enqueue(
            keys.QUEUE_INTERACTIVE,
            "worker.jobs.solve",
            spec.to_dict(),
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
        if done.attached is not None:
            return done.attached, None
        return spec.job_id, first

    async def run(self, func: str, spec: Spec | dict[str, Any], queue_name: str, time_limit_ms: int) -> Any:
        """Queues a unary job and returns its result (or raises JobFailed)."""
        return (await self.run_cached(func, spec, queue_name, time_limit_ms, None))[0]

    async def run_cached(
        self, func: str, spec: Spec | dict[str, Any], queue_name: str, time_limit_ms: int, cache_key: str | None,
    ) -> tuple[Any, bool]:
        """run(), unless the result cache holds the reply at `cache_key`
        (looked up in the enqueue's round trip); returns the result and
        whether it came from the cache."""
        job_id = new_job_id()
        args = spec if isinstance(spec, dict) else spec.to_dict()
        queued_at = time.monotonic()
        cached = (await self._enqueue(
            queue_name,
            func,
            args,
            job_id,
            cached=cache_key,
            timeout=time_limit_ms // 1000 + 60,
            result_ttl=self.settings.result_ttl_s,
            failure_ttl=self.settings.result_ttl_s,
            retry=Retry(max=self.settings.job_retries),
        )).cached
        if cached is not None:
            return json.loads(cached), True
        value = await self.result(job_id)
        metrics.job_done(func.rpartition(".")[2], queued_at)
        return value, False

    async def alive(self, job_id: str, stream: str | None = None) -> None:
        """Returns if the job can still end by itself (queued, or started
        within its timeout), and its `stream`, if given, still exists;
        raises JobLost or JobStuck if not."""
        async with self.hub.waker.pipeline(transaction=False) as pipe:
            pipe.hmget(Job.key_for(job_id), "status", "started_at", "timeout")
            pipe.exists(stream or Job.key_for(job_id))
            (status, started_at, timeout), exists = await pipe.execute()
        if status is None or not exists:
            raise JobLost(job_id)
        if status == b"started" and started_at and timeout:
            running = time.time() - datetime.fromisoformat(started_at.decode()).timestamp()
            if running > int(timeout) + STUCK_SLACK_S:
                raise JobStuck(f"job {job_id} has run {running:.0f} s, past its {int(timeout)} s timeout, "
                               "and no worker took it over; retry")

    async def result(self, job_id: str) -> Any:
        # Waits on the result stream from its start, so a result already
        # there is returned at once. A loop of waits, not hub.follow(): an
        # async generator left mid-iteration is closed by asyncio's finalizer
        # through call_soon_threadsafe, a wake-up of the loop per call.
        key, after = keys.result(job_id), "0-0"
        while True:
            batch = await self.hub.wait(key, after, IDLE_CHECK_S)
            if not batch:
                await self.alive(job_id)
                batch = await self.hub.read(key, after)  # it may have ended meanwhile
            for result_id, payload in batch:
                kind, value, exc_string = read_result(payload)
                if kind == Result.Type.SUCCESSFUL:
                    return value
                if kind in TERMINAL_FAILURES:
                    last_line = (exc_string or "failed").strip().splitlines()[-1]
                    raise JobFailed("ABORTED", f"the job failed on every worker that tried it: {last_line}")
                after = result_id

