"""Waiting on a job: its result, its failure, or the signs that it will never end.

A unary job's result is awaited by blocking on RQ's own result stream
through the hub (service/streams/hub.py), never by polling; a solve's frames are
awaited the same way by its relay (service/streams/relay.py). While nothing comes, a
waiter asks every IDLE_CHECK_S whether the job can still end (alive): a job
whose state vanished with its Redis (JobLost; ResultLost for a job whose
result a call awaits) or that has run past its own
timeout with no worker taking it over (JobStuck) never will. A job that
failed on every attempt ends its waiters with JobFailed.
"""

from __future__ import annotations

import json
import time
import zlib
from base64 import b64decode
from datetime import datetime
from typing import Any

import grpc
from redis.asyncio import Redis as AsyncRedis
from rq.job import Job
from rq.results import Result

from service.streams.hub import StreamHub
from sudoku import keys
from sudoku.errors import CallError, Unavailable

# A stream with no new frame (or result) for this long asks whether its job
# can still write one (a worker may be computing; the job may also have been lost).
IDLE_CHECK_S = 2.0

# How long past its timeout a started job may go before a waiter gives up
# on it: the heartbeat TTL and the cleanup pass that would have requeued it.
STUCK_SLACK_S = 10

TERMINAL_FAILURES = {Result.Type.FAILED, Result.Type.STOPPED, Result.Type.MAX_RETRIES_EXCEEDED}


class JobFailed(CallError):
    """The job failed on every attempt: its result stream holds a failure,
    or its frame stream ends with an error entry instead of a last frame."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        # the worker names the status; one it cannot have is ABORTED
        self.code = getattr(grpc.StatusCode, code, grpc.StatusCode.ABORTED)
        self.message = message


class JobLost(CallError):
    """The job's state is gone from Redis before it ended: the Redis it was
    queued on restarted empty (or evicted it). Nothing will ever finish it."""

    code = grpc.StatusCode.NOT_FOUND

    def __init__(self, job_id: str):
        super().__init__(job_id)
        self.job_id = job_id

    def details(self) -> str:
        return (f"job_id: the frames of job {self.job_id} are gone (they expired, or were lost with a Redis "
                "restart); submit the request again")


class ResultLost(JobLost):
    """A job lost while a call waited for its result (a unary call, or a
    part of a batch call). Unlike a watched job's frames, which the caller
    of Watch may not hold the request of, this call's caller holds every
    request not yet answered and can send it again: the call ends
    UNAVAILABLE, which the client library retries (client/batches.py
    resends a batch call's unanswered requests)."""

    code = grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return (f"the job store lost this call's job {self.job_id} (it restarted, was emptied, or refused the job's "
                "writes for memory); send the requests not yet answered again")


class JobStuck(Unavailable):
    """The job has been running for longer than its own timeout: no worker
    is making progress on it (they are all stopped, or gone)."""


def read_result(payload: dict[bytes, bytes]) -> tuple[Result.Type, Any, str | None]:
    """A result entry's type, return value and error, read as Result.restore
    reads them (JSONSerializer), without the dates and worker details the
    service has no use for, whose parsing is most of Result.restore's time.
    tests/test_enqueue.py checks it against Result.restore."""
    value = payload.get(b"return_value")
    exc_string = payload.get(b"exc_string")
    return (
        Result.Type(int(payload[b"type"])),
        json.loads(b64decode(value)) if value is not None else None,
        zlib.decompress(b64decode(exc_string)).decode() if exc_string else None,
    )


# The statuses of a job that has ended without a result, for good.
ENDED_BADLY = {b"failed", b"stopped", b"canceled"}


async def alive(redis: AsyncRedis, job_id: str, stream: str | None = None, answers_first: bool = False) -> None:
    """Returns if the job can still end by itself (queued, or started
    within its timeout), and its `stream`, if given, still exists;
    raises JobLost, JobStuck or JobFailed if not. With `answers_first`, the
    job answers before it finishes (on an inbox): one that finished with
    no answer lost it."""
    async with redis.pipeline(transaction=False) as pipe:
        pipe.hmget(Job.key_for(job_id), "status", "started_at", "timeout")
        pipe.exists(stream or Job.key_for(job_id))
        (status, started_at, timeout), exists = await pipe.execute()
    if status is None or not exists or (answers_first and status == b"finished"):
        raise JobLost(job_id)
    if status in ENDED_BADLY:
        raise JobFailed("ABORTED", f"job {job_id} {status.decode()} on every worker that tried it")
    if status == b"started" and started_at and timeout:
        running = time.time() - datetime.fromisoformat(started_at.decode()).timestamp()
        if running > int(timeout) + STUCK_SLACK_S:
            raise JobStuck(f"job {job_id} has run {running:.0f} s, past its {int(timeout)} s timeout, "
                           "and no worker took it over; retry")


async def result(hub: StreamHub, job_id: str) -> Any:
    """The job's return value, once it has one; JobFailed when it failed."""
    # Waits on the result stream from its start, so a result already
    # there is returned at once. A loop of waits, not an async generator:
    # one left mid-iteration is closed by asyncio's finalizer through
    # call_soon_threadsafe, a wake-up of the loop per call.
    key, after = keys.result(job_id), "0-0"
    while True:
        batch = await hub.wait(key, after, IDLE_CHECK_S)
        if not batch:
            try:
                await alive(hub.redis, job_id)
            except JobLost:
                raise ResultLost(job_id) from None
            batch = await hub.read(key, after)  # it may have ended meanwhile
        for result_id, payload in batch:
            kind, value, exc_string = read_result(payload)
            if kind == Result.Type.SUCCESSFUL:
                return value
            if kind in TERMINAL_FAILURES:
                last_line = (exc_string or "failed").strip().splitlines()[-1]
                raise JobFailed("ABORTED", f"the job failed on every worker that tried it: {last_line}")
            after = result_id
