"""Queueing jobs on RQ and waiting for their results.

Each enqueue is one round trip from the event loop (service/enqueue.py),
for a solve together with the stream's first frame. Results are awaited by
blocking on RQ's own result stream through the hub, never by polling.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
import zlib
from base64 import b64decode
from typing import Any

from redis import Redis
from rq import Callback, Queue, Retry
from rq.results import Result
from rq.serializers import JSONSerializer

from service import metrics
from service.config import Settings
from service.enqueue import Enqueuer
from service.hub import StreamHub
from service.relay import JobFailed
from service.validate import Invalid
from sudoku import keys
from sudoku.specs import Spec, SolveSpec
from sudoku.v1 import sudoku_pb2 as pb

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


class Jobs:
    def __init__(self, settings: Settings, redis: Redis, hub: StreamHub, enqueuer: Enqueuer):
        self.settings = settings
        self.redis = redis  # synchronous: RQ's Queue objects hold it (jobs are written by Enqueuer)
        self.hub = hub
        self.queues = {name: Queue(name, connection=redis, serializer=JSONSerializer) for name in keys.QUEUES}
        self.enqueuer = enqueuer
        for queue in self.queues.values():
            queue.get_redis_server_version()  # cached from now on: no round trip per job

    async def _enqueue(self, queue_name: str, func: str, args: Any, job_id: str, **options: Any) -> bytes | None:
        """Queues the job; returns the cached reply instead when options'
        `cached` key holds one."""
        queued, waiting, cached = await self.enqueuer.enqueue(
            self.queues[queue_name], self.settings.queue_bound, func, args, job_id, **options
        )
        if not queued and cached is None:
            raise QueueFull(f"{waiting} jobs are waiting, the bound is {self.settings.queue_bound}; retry in a moment")
        return cached

    async def claim_request_id(self, request: pb.SolveRequest, job_id: str) -> str | None:
        """None when `request_id` is new (now ours), else the job it started."""
        key = keys.request(request.request_id)
        mine = json.dumps({"job_id": job_id, "fingerprint": fingerprint(request)})
        ttl = self.settings.stream_ttl_s + self.settings.max_time_ms // 1000 + 3600
        for _ in range(3):  # the key may expire between SET NX and GET
            if await self.hub.waker.set(key, mine, nx=True, ex=ttl):
                return None
            theirs = await self.hub.waker.get(key)
            if theirs is not None:
                theirs = json.loads(theirs)
                if theirs["fingerprint"] != fingerprint(request):
                    raise Invalid("request_id: already used for a different request; use a new id")
                return theirs["job_id"]
        raise RuntimeError("request_id kept expiring")

    async def release_request_id(self, request_id: str) -> None:
        await self.hub.waker.delete(keys.request(request_id))

    async def start_solve(self, spec: SolveSpec, adjustments: list[str], unpaced: bool, runs: bool = False) -> pb.Frame:
        """Queues the solve; returns frame 1, which is written with the job,
        so the client has its job id at once. The stream lives until the
        worker ends it (or a day, if none ever does)."""
        first = header_frame(spec, adjustments, unpaced, runs)
        await self._enqueue(
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
        )
        return first

    async def run(self, func: str, spec: Spec | list[dict[str, Any]], queue_name: str, time_limit_ms: int) -> Any:
        """Queues a unary job and returns its result (or raises JobFailed)."""
        return (await self.run_cached(func, spec, queue_name, time_limit_ms, None))[0]

    async def run_cached(
        self, func: str, spec: Spec | list[dict[str, Any]], queue_name: str, time_limit_ms: int, cache_key: str | None,
    ) -> tuple[Any, bool]:
        """run(), unless the result cache holds the reply at `cache_key`
        (looked up in the enqueue's round trip); returns the result and
        whether it came from the cache."""
        job_id = new_job_id()
        args = spec if isinstance(spec, list) else spec.to_dict()
        queued_at = time.monotonic()
        cached = await self._enqueue(
            queue_name,
            func,
            args,
            job_id,
            cached=cache_key,
            timeout=time_limit_ms // 1000 + 60,
            result_ttl=self.settings.result_ttl_s,
            failure_ttl=self.settings.result_ttl_s,
            retry=Retry(max=self.settings.job_retries),
        )
        if cached is not None:
            return json.loads(cached), True
        value = await self.result(job_id)
        metrics.job_done(func.rpartition(".")[2], queued_at)
        return value, False

    async def result(self, job_id: str) -> Any:
        # Waits on the result stream from its start, so a result already
        # there is returned at once. A loop of waits, not hub.follow(): an
        # async generator left mid-iteration is closed by asyncio's finalizer
        # through call_soon_threadsafe, a wake-up of the loop per call.
        key, after = keys.result(job_id), "0-0"
        while True:
            batch = await self.hub.wait(key, after)
            for result_id, payload in batch:
                kind, value, exc_string = read_result(payload)
                if kind == Result.Type.SUCCESSFUL:
                    return value
                if kind in TERMINAL_FAILURES:
                    last_line = (exc_string or "failed").strip().splitlines()[-1]
                    raise JobFailed("ABORTED", f"the job failed on every worker that tried it: {last_line}")
                after = result_id

