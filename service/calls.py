"""Unary calls, many to a job: Hint, CountSolutions, Grade and Explain.

A call of one of these kinds is first a cheap one (sudoku/lanes.py): calls
of its kind that arrive while a job of theirs waits in the queue, or while
one is being submitted, ride in that job (dynamic batching: no call waits
for a batch to fill; at low load each job holds one call, under load many,
up to MAX_CALLS). One Lua script (sudoku/scripts.py SUBMIT) answers the
calls the result cache holds, adds the rest to the open job, or queues a
new job with them, in one round trip shared by every call that came during
the last one. The worker answers each call on its own (worker/calls.py):
its reply message's bytes come back on this instance's inbox
(service/inbox.py) and go to the client as they are. A call whose answer
the cheap bounds do not reach goes on in the heavy lane, in a job of its
own, within its caller's share of that lane (service/shares.py).

Each call keeps its own deadline (the job skips a call whose caller has
given up) and cancel (a caller that leaves is struck off the job's list).
A call that hears nothing for IDLE_CHECK_S asks whether its job can still
answer (service/waiting.py alive): a job lost with its Redis ends the call
UNAVAILABLE, one past its timeout with no worker on it too, one that
failed on every worker ABORTED (the failure callback says so on the inbox).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field

from redis.exceptions import RedisError

from service import futures, metrics
from service.enqueue import Enqueuer
from service.inbox import Inbox, Reply, wait_reply
from service.queueing import Jobs, QueueFull, StoreFull, new_job_id
from service.shares import Shares
from service.waiting import JobFailed
from sudoku import keys, lanes
from sudoku.specs import Spec

# Calls one job carries at most: a cheap call takes at most a few
# milliseconds of a worker, so the last of a full job waits well under a
# second behind the others.
MAX_CALLS = 64
FUNC = "worker.jobs.calls"


@dataclass(eq=False)
class _Call:
    entry: bytes  # what the job carries (worker/calls.py reads it)
    cache_key: str
    placed: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    def __post_init__(self) -> None:
        self.placed.add_done_callback(futures.seen)  # its caller may have left


class Coalescer:
    """The jobs of one kind of call in one lane, and the one this instance
    may still add calls to."""

    def __init__(self, jobs: Jobs, enqueuer: Enqueuer, kind: str, lane: str, inbox: Inbox, max_calls: int,
                 timeout_s: int, cache_ttl_s: int):
        self.jobs = jobs
        self.enqueuer = enqueuer
        self.kind = kind
        self.queue = jobs.queues[lanes.QUEUES[lane]]
        self.args = {"kind": kind, "cheap": lane == lanes.CHEAP, "inbox": inbox.key, "cache_ttl_s": cache_ttl_s}
        self.max_calls = max_calls
        self.timeout_s = timeout_s
        self.open: str | None = None  # the job still taking calls, as far as this instance knows
        self.pending: list[_Call] = []
        self.sending: asyncio.Task | None = None

    async def place(self, entry: bytes, cache_key: str) -> str | bytes:
        """Puts one call into a job: the job's id, or the cached reply."""
        call = _Call(entry, cache_key)
        self.pending.append(call)
        if self.sending is None:
            self.sending = asyncio.create_task(self._send(), name=f"submit-{self.kind}")
        return await asyncio.shield(call.placed)

    async def _send(self) -> None:
        try:
            while self.pending:
                batch, self.pending = self.pending[: self.max_calls], self.pending[self.max_calls :]
                try:
                    await self._submit(batch)
                except asyncio.CancelledError:  # the service is stopping
                    for call in batch:
                        call.placed.cancel()
                    raise
                except Exception as exc:  # noqa: BLE001 - each call gets it
                    for call in batch:
                        if not call.placed.done():
                            call.placed.set_exception(exc)
        finally:
            self.sending = None
            for call in self.pending:  # the service is stopping
                if not call.placed.done():
                    call.placed.cancel()

    async def _submit(self, batch: list[_Call]) -> None:
        if self.jobs.store_full:
            raise StoreFull(self.jobs.store_full)
        job_id = new_job_id()
        done = await self.enqueuer.submit(
            self.queue, self.jobs.settings.queue_bound, FUNC, self.args, job_id, self.open,
            [c.entry for c in batch], [c.cache_key for c in batch], self.max_calls, self.timeout_s + 3600,
            timeout=self.timeout_s, result_ttl=0, failure_ttl=self.jobs.settings.result_ttl_s,
            retry=self.jobs.retry, on_failure=self.jobs.calls_failure)
        if done.refused:
            raise QueueFull(f"{done.waiting} jobs are waiting, the bound is {self.jobs.settings.queue_bound}; "
                            "retry in a moment")
        self.open = done.job
        for i, call in enumerate(batch):
            call.placed.set_result(done.cached.get(i, done.job))


class UnaryCalls:
    """Coalesced calls of every kind, and the waits for their replies."""

    KINDS = ("hint", "count", "grade", "explain")

    def __init__(self, jobs: Jobs, enqueuer: Enqueuer, inbox: Inbox, shares: Shares):
        self.jobs = jobs
        self.inbox = inbox
        self.shares = shares
        settings = jobs.settings
        # A cheap job's calls take milliseconds each; a heavy job has one call,
        # bounded by the time limit of its kind (the human solver's run to its end).
        timeout = settings.max_time_ms // 1000 + 60
        self.lanes = {
            (kind, lane): Coalescer(jobs, enqueuer, kind, lane, inbox, MAX_CALLS if lane == lanes.CHEAP else 1,
                                    timeout, settings.cache_ttl_s)
            for kind in self.KINDS for lane in (lanes.CHEAP, lanes.HEAVY)
        }

    async def run(self, kind: str, spec: Spec, cache_key: str | None, deadline: float | None,
                  peer: str | None) -> bytes:
        """The reply's bytes of one call (JobFailed, JobLost, ... as waiting.result)."""
        queued_at = time.monotonic()
        async with self.shares.held(lanes.CHEAP, peer):
            reply = await self._once(kind, lanes.CHEAP, spec, cache_key, deadline)
        if reply.harder:
            async with self.shares.held(lanes.HEAVY, peer):
                reply = await self._once(kind, lanes.HEAVY, spec, cache_key, deadline)
        if not reply.cached:
            metrics.job_done(kind, queued_at)
        if reply.code is not None:
            raise JobFailed(reply.code, reply.message)
        return reply.data

    async def _once(self, kind: str, lane: str, spec: Spec, cache_key: str | None, deadline: float | None) -> Reply:
        call_id = uuid.uuid4().hex
        entry = json.dumps({"i": call_id, "t": int(deadline * 1000) if deadline else 0, "s": spec.to_dict(),
                            "k": cache_key or ""}).encode()
        future = self.inbox.expect(call_id)
        job_id = None
        try:
            placed = await self.lanes[kind, lane].place(entry, cache_key or "")
            if isinstance(placed, bytes):
                return Reply(data=placed, cached=True)
            job_id = placed
            return await wait_reply(self.jobs.hub.waker, future, job_id, keys.calls(job_id))
        except asyncio.CancelledError:
            if job_id is not None:
                await self._strike_off(job_id, call_id)
            raise
        finally:
            self.inbox.forget(call_id)

    async def _strike_off(self, job_id: str, call_id: str) -> None:
        """Tells the job to skip a call whose caller has left."""
        try:
            async with self.jobs.hub.waker.pipeline(transaction=False) as pipe:
                pipe.sadd(keys.cancelled_calls(job_id), call_id)
                pipe.expire(keys.cancelled_calls(job_id), 3600)
                await pipe.execute()
        except RedisError:
            pass  # Redis is away: the job answers the call, and the reply is dropped
