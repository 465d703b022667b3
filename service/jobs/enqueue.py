"""Queueing an RQ job from asyncio: one round trip, the bound checked atomically.

RQ's own enqueue is synchronous and takes two round trips; from the event
loop it needs a thread, and under load the hand-off to that thread and back
(the GIL's 5 ms switch interval) cost more than the work itself. So the job
is built here exactly as Queue.enqueue_call builds it (Queue.create_job,
then Queue._prepare_for_queue), and what Queue._enqueue_async_job writes
(the job's hash with status "queued", its id pushed onto the queue, the
queue in RQ's set of queues), with a note that it was queued (for
worker/run/recovery.py), is sent as one Lua script (ENQUEUE, in
sudoku/scripts.py), which first checks the queue's length against the
bound: a full queue is refused exactly, not after a separate LLEN that
others could race. A solve's frame 1 goes in the same script, so a client
never sees a job id whose stream does not exist. Building RQ's objects
costs more than the rest of an enqueue, so the fields that are the same
for every job of one function and set of options are built by RQ once, and
only the call and the time are filled in per job. The call is compressed
with a 512-byte window: zlib's default state is ~256 KB, whose allocation
per job cost more than the compression (RQ decompresses either).
A hint or count first looks for its reply in the result cache
(service/jobs/cache.py), in the same script: a miss costs no extra round trip.
A solve with a request_id claims the id in the same script, together with
the job it names or not at all: a retry finds either the job (and attaches
to it) or nothing, never an id with no job behind it.
tests/test_enqueue.py checks that Redis holds what RQ's own enqueue would
have written, and that RQ reads the job back.
"""

from __future__ import annotations

import time
import zlib
from typing import Any, NamedTuple

from redis.asyncio import Redis
from redis.exceptions import RedisError
from rq import Queue
from rq.job import Job, JobStatus
from rq.utils import get_call_string, now, utcformat

from sudoku import keys, scripts
from sudoku.scripts import ScriptPool

# The job hash's fields that differ between two jobs of one function and
# set of options.
PER_JOB = ("created_at", "enqueued_at", "data", "description")
MAX_TEMPLATES = 256  # sets of options remembered (time limits vary per request)

# enqueue_call's options that only set fields of the job's hash, the same
# for every job that shares them, so the template carries them;
# tests/test_enqueue.py compares each with RQ's own enqueue. The others
# write elsewhere (ttl an expiry, depends_on the dependency registries,
# at_front the head of the queue, unique and rate_limit keys of their own)
# or per job (description): the script does not, so they are refused.
OPTIONS = frozenset({"timeout", "result_ttl", "failure_ttl", "meta", "retry", "on_success", "on_failure", "on_stopped"})


def _hashable(value: Any) -> Any:
    """Options (with their Retry and Callback objects) as a dictionary key."""
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if hasattr(value, "__dict__") and not callable(value):
        return (type(value).__name__, _hashable(vars(value)))
    return value


class Enqueued(NamedTuple):
    queued: bool
    waiting: int  # jobs waiting before this one (or instead of it, when refused)
    cached: bytes | None = None  # the cached reply that made the job unnecessary
    attached: str | None = None  # the job the request_id names, which made this one unnecessary


class Submitted(NamedTuple):
    job: str | None  # the job the calls not cached went into (None: all cached, or refused)
    waiting: int  # jobs waiting before a new job (or instead of it, when refused)
    cached: dict[int, bytes]  # the replies the cache gave, by the call's position
    refused: bool  # the queue was full: no call was stored


class JobTemplate(NamedTuple):
    """The hash's fields of jobs that differ only in their id and dates (Enqueuer.template)."""

    queue: Queue
    fields: list


class Claim(NamedTuple):
    """A request_id to claim with the job: its key, the request's
    fingerprint, and how long the claim lasts."""

    key: str
    fingerprint: str
    ttl_s: int


class RequestIdReused(Exception):
    """The request_id was claimed by a different request."""


class Enqueuer:
    """Queues jobs through the ENQUEUE script (sudoku/scripts.py), on
    connections of its own, at most `slots` calls at once (more wait their
    turn).

    `redis`: the service's client; the Enqueuer's connections are made with
    its pool's settings but are not in its pool, and it loads the script.
    """

    def __init__(self, redis: Redis, slots: int = 100):
        self._scripts = ScriptPool(redis, slots)
        self._templates: dict[Any, list] = {}

    async def close(self) -> None:
        await self._scripts.close()

    async def enqueue(
        self, queue: Queue, bound: int, func: str, args: Any, job_id: str, *,
        stream: str | None = None, first_frame: bytes = b"", cached: str | None = None,
        claim: Claim | None = None, **options: Any,
    ) -> Enqueued:
        """Queues func(args) as job `job_id` unless `bound` jobs are waiting.

        `options` are enqueue_call's, those in OPTIONS (TypeError for the
        others). With `stream`, writes `first_frame` as the stream's frame 1
        in the same step. With `cached`, a cache key: if it holds a reply,
        nothing is queued and the reply is returned. With `claim`, a
        request_id: if it names a job that still has its stream, nothing is
        queued and that job is returned; raises RequestIdReused if it names
        another request.
        """
        fields = self._fields(queue, func, args, job_id, options)
        keys_ = [queue.key, queue.job_class.key_for(job_id), queue.redis_queues_keys, keys.PENDING, stream or "",
                 cached or "", claim.key if claim else "", *keys.lingering_for(queue.name)]
        args = [bound, job_id, first_frame, repr(time.time()), claim.fingerprint if claim else "",
                claim.ttl_s if claim else 0, keys.frames(""), *fields]
        status, value = await self._scripts(scripts.ENQUEUE, keys_, args)
        if status == 2:
            return Enqueued(False, 0, value)
        if status == 3:
            return Enqueued(False, 0, attached=value.decode())
        if status == 4:
            raise RequestIdReused()
        return Enqueued(bool(status), int(value))

    def template(self, queue: Queue, func: str, args: Any, **options: Any) -> JobTemplate:
        """The hash of every job func(args) on `queue` with these options
        but its dates, built once (see submit)."""
        fields = self._fields(queue, func, args, "template", options)
        dates = {"created_at", "enqueued_at"}
        constant = [part for name, value in zip(fields[::2], fields[1::2]) if name not in dates
                    for part in (name, value)]
        return JobTemplate(queue, constant)

    async def submit(
        self, template: JobTemplate, bound: int, job_id: str, open_job: str | None,
        calls: list[bytes], cache_keys: list[str], max_calls: int, ttl_s: int,
    ) -> Submitted:
        """Puts coalesced calls (sudoku/scripts.py SUBMIT) into `open_job`
        while it is queued, else into a new job `job_id` as `template`
        makes it, queued unless `bound` jobs wait; the calls whose cache key
        holds a reply are answered from it instead."""
        queue = template.queue
        stamp = utcformat(now())
        fields = [*template.fields, "created_at", stamp, "enqueued_at", stamp]
        open_keys = [queue.job_class.key_for(open_job), keys.calls(open_job)] if open_job else ["", ""]
        keys_ = [*open_keys, queue.key, queue.job_class.key_for(job_id), queue.redis_queues_keys, keys.PENDING,
                 *keys.lingering_for(queue.name), *cache_keys]
        argv = [max_calls, len(calls), ttl_s, bound, job_id, repr(time.time()), *calls, *fields]
        status, waiting, hits = await self._scripts(scripts.SUBMIT, keys_, argv)
        cached = {int(hits[i]) - 1: hits[i + 1] for i in range(0, len(hits), 2)}
        job = open_job if status == 3 else job_id if status == 1 else None
        return Submitted(job, int(waiting), cached, refused=status == 0)

    def _fields(self, queue: Queue, func: str, args: Any, job_id: str, options: dict[str, Any]) -> list:
        """The job hash's field/value pairs, as Queue.create_job,
        Queue._prepare_for_queue and Job.to_dict make them."""
        template_key = (queue.name, func, _hashable(options))
        constant = self._templates.get(template_key)
        if constant is None:
            unsupported = options.keys() - OPTIONS
            if unsupported:
                raise TypeError(f"Enqueuer.enqueue does not support enqueue_call's {', '.join(sorted(unsupported))}; "
                                f"it supports {', '.join(sorted(OPTIONS))}")
            job = queue.create_job(func, args=(args,), job_id=job_id, status=JobStatus.QUEUED, **options)
            _prepare_for_queue(queue, job)
            constant = [part for name, value in job.to_dict().items() if name not in PER_JOB for part in (name, value)]
            if len(self._templates) >= MAX_TEMPLATES:
                self._templates.clear()
            self._templates[template_key] = constant
        call, stamp = (args,), utcformat(now())
        return [
            *constant,
            "created_at", stamp,
            "enqueued_at", stamp,
            "data", compress(queue.serializer.dumps((func, None, call, {}))),
            "description", get_call_string(func, call, {}, max_length=75),
        ]


def compress(data: bytes) -> bytes:
    """zlib data that zlib.decompress (RQ's Job.restore) reads, from a
    512-byte window and the smallest state (see the module docstring)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 9, 1)
    return packer.compress(data) + packer.flush()


def _prepare_for_queue(queue: Queue, job: Job) -> None:
    """Queue._prepare_for_queue, also while Redis is away (a cell down as the
    service starts): RQ asks the server's version first, which the job's
    hash does not hold, so without an answer a stand-in serves, and RQ asks
    again when it needs it."""
    try:
        queue._prepare_for_queue(job)
    except RedisError:
        queue.redis_server_version = (0, 0, 0)
        try:
            queue._prepare_for_queue(job)
        finally:
            queue.redis_server_version = None
