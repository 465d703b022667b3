"""Unary calls, many to a job: Hint, CountSolutions, Grade, Explain, Step and unwatched Solve.

A call of one of these kinds is first a cheap one (sudoku/lanes.py): calls
of its kind that arrive while a job of theirs waits in the queue, or while
one is being submitted, ride in that job (dynamic batching: no call waits
for a batch to fill; at low load each job holds one call, under load many,
up to MAX_CALLS). A job of the cheap lane also takes calls while it runs
(worker/calls.py): once it has answered the calls it has, the calls that
came meanwhile go into it, and it goes on answering while they come, so at
a steady flow of calls one job answers many and its own round trips (the
dequeue, its start and its end) are paid once for all of them. While this
instance's jobs of their kind are busy, calls wait here for one of them to
answer its calls, and go in together, as long as those jobs are as many as
the calls' work needs: one, while they keep a worker less than BUSY of the
time (the workers' own measure of each call), one more for each BUSY
beyond, up to the lane's workers. A job costs more than the cheap calls in
it (measured: 16 Hints in flight took 1.0 ms of CPU a call with one job in
flight, 1.9 with one for each of three workers, and went 1.7x faster;
bench/pipeline.py), and a call waits at most about one batch of calls'
time. A job a worker has taken that has answered nothing for STALLED_S
(its worker stopped, or starved of CPU) counts among none of them, so a
stalled worker holds up only the calls already in its job. One Lua script
(sudoku/scripts.py SUBMIT) answers the calls the result cache holds, adds
the rest to the open job, or queues a new job with them, in one round trip
shared by every call that came during the last one.
The worker answers each call on its own: its reply message's bytes come
back on this instance's inbox (service/jobs/inbox.py) and go to the client
as they are. A call whose answer the cheap bounds do not reach goes on in
the heavy lane, within its caller's share of that lane
(service/jobs/shares.py), in jobs of a few calls (HEAVY_MAX_CALLS) that
take them in the same way. An unwatched Solve is a call of the cheap lane
only: one that needs more goes on as a job of its own
(service/rpc/server.py).

Each call keeps its own deadline (the job skips a call whose caller has
given up) and cancel (a caller that leaves is struck off the job's list).
A call that hears nothing for IDLE_CHECK_S is asked after by the inbox's
watchdog (service/jobs/inbox.py): a job lost with its Redis ends the call
UNAVAILABLE, one past its timeout with no worker on it too, one that
failed on every worker ABORTED (the failure callback says so on the inbox).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from dataclasses import dataclass, field

from redis.exceptions import RedisError
from rq.job import Job

from service.jobs import futures
from service.jobs.enqueue import Enqueuer
from service.jobs.inbox import Inbox, Reply
from service.jobs.queueing import ANSWERED_TTL_S, Jobs, QueueFull, StoreFull
from service.jobs.shares import Shares
from service.jobs.waiting import JobFailed
from service.rpc import metrics
from sudoku import keys, lanes, tracing
from sudoku.specs import Spec

log = logging.getLogger("sudoku.service")

# Calls one job carries at most: a cheap call takes at most a few
# milliseconds of a worker, so the last of a full job waits well under a
# second behind the others.
MAX_CALLS = 64
# A heavy call takes up to its kind's time limit, so a heavy job carries
# few: enough that the next heavy calls, each coming as one ends, ride in
# the job that answered the last (its worker waits a moment for them,
# worker/calls.py) instead of paying a job each (~350 µs of Redis).
HEAVY_MAX_CALLS = 4
FUNC = "worker.jobs.calls"
# The share of a worker's time one job in flight may take before the next
# may start; the load is measured over LOAD_EVERY_S windows, smoothed.
BUSY = 0.5
LOAD_EVERY_S = 0.25
# A job of the cheap lane that a worker has taken (started, or off its
# queue) and that has answered no call for this long is stalled (its
# worker stopped, or starved of CPU; a cheap call takes
# milliseconds): it takes no room from the calls that wait, which go into
# a job another worker takes instead of waiting for the stalled worker's
# heartbeat to run out (seconds). Its own calls stay with it (each is
# answered once), and a job still in its queue is not stalled: another
# would wait as long.
STALLED_S = 0.5


class _Load:
    """Worker-seconds a second that one coalescer's calls take."""

    def __init__(self) -> None:
        self.value = 0.0
        self.work = 0.0
        self.since = time.monotonic()

    def add(self, work_s: float) -> None:
        self.work += work_s
        now = time.monotonic()
        if now - self.since >= LOAD_EVERY_S:
            self.value = (self.value + self.work / (now - self.since)) / 2
            self.work, self.since = 0.0, now


def call_entry(call_id: str, spec: Spec, deadline: float | None, cache_key: str | None, trace: str = "") -> bytes:
    """A call as its job carries it (worker/calls.py reads it): its id, its
    deadline (epoch ms, 0 for none), its spec and its cache key; when traced,
    its caller's traceparent and when it was queued (sudoku/tracing.py)."""
    entry = {"i": call_id, "t": int(deadline * 1000) if deadline else 0, "s": spec.to_dict(), "k": cache_key or ""}
    if trace:
        entry["p"], entry["q"] = trace, time.time_ns()
    return json.dumps(entry).encode()


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
        args = {"kind": kind, "cheap": lane == lanes.CHEAP, "inbox": inbox.key, "cache_ttl_s": cache_ttl_s,
                "max_calls": max_calls}
        self.template = enqueuer.template(
            self.queue, FUNC, args, timeout=timeout_s, result_ttl=ANSWERED_TTL_S,
            failure_ttl=jobs.settings.result_ttl_s, retry=jobs.retry, on_failure=jobs.calls_failure)
        self.max_calls = max_calls
        self.timeout_s = timeout_s
        self.open: str | None = None  # the job still taking calls, as far as this instance knows
        self.pending: list[_Call] = []
        self.sending: asyncio.Task | None = None
        # Jobs in flight, each with its calls not ended yet. Cheap calls wait
        # for room (a job costs more than a few of them); a heavy call, which
        # may run for seconds, never waits for another's: it goes into a job
        # that has answered its calls, else a new one, placed on its own.
        self.in_flight: dict[str, int] = {}
        self.unsure: set[str] = set()  # jobs in flight with a call that ended unanswered
        # When each job in flight last gave a sign (calls put into it while it
        # had none, an answer, or found still queued), and those found stalled.
        self.heard: dict[str, float] = {}
        self.stalled: set[str] = set()
        self.stall_checks = 0  # looks at jobs that gave no sign for STALLED_S
        self._stall_timer: asyncio.TimerHandle | None = None
        self._stall_check: asyncio.Task | None = None
        self.closed = False  # the service is stopping: no more looks at stalls
        self.takes_more = max_calls > 1
        self.bounded = self.takes_more and lane == lanes.CHEAP
        self.per_submit = max_calls if lane == lanes.CHEAP else 1
        self.load = _Load()

    def _room(self) -> bool:
        if not self.bounded:
            return True
        needed = 1 + int(self.load.value / BUSY)
        busy = len(self.in_flight) - len(self.stalled)
        return busy < max(1, min(needed, self.jobs.workers.get(self.queue.name, 1)))

    def _target(self) -> str | None | bool:
        """Where the pending calls go now: the open job's id once it has
        answered its calls (it takes more while it runs, worker/calls.py),
        None for a new job, or False to wait for a job in flight to end."""
        if self.open is not None and self.takes_more and not self.in_flight.get(self.open):
            return self.open
        return None if self._room() else False

    async def place(self, entry: bytes, cache_key: str) -> str | bytes:
        """Puts one call into a job: the job's id, or the cached reply. A
        caller given a job id calls ended(job) once its call is over."""
        call = _Call(entry, cache_key)
        self.pending.append(call)
        self._kick()
        try:
            # The future is this call's alone: a caller that leaves cancels
            # it, and _submit then counts the call in no job's calls.
            return await call.placed
        except asyncio.CancelledError:
            if call in self.pending:
                self.pending.remove(call)
            elif not call.placed.cancelled() and call.placed.done() and call.placed.exception() is None:
                # The caller left as the call was placed: the future had its
                # job before the cancel reached this task, so the job counts
                # the call, and no caller will say it ended.
                placed = call.placed.result()
                if isinstance(placed, str):
                    self.ended(placed)
            raise

    def ended(self, job: str, work_us: int = 0, answered: bool = False) -> None:
        """One call of `job` is over: `answered` after `work_us` of a
        worker's time, or not (its caller left, or the job failed)."""
        if work_us:
            self.load.add(work_us / 1e6)
        if answered:
            self.heard[job] = time.monotonic()
            self.stalled.discard(job)
        else:
            # Its worker may still be on it (a heavy call, for seconds): the
            # job is busy for all this instance knows, so no call goes in.
            self.unsure.add(job)
        left = self.in_flight.get(job, 0) - 1
        if left > 0:
            self.in_flight[job] = left
            return
        self.in_flight.pop(job, None)
        self.heard.pop(job, None)
        self.stalled.discard(job)
        if job in self.unsure:
            self.unsure.discard(job)
            if self.open == job:
                self.open = None
        else:
            # Its worker now waits a moment for more calls (worker/calls.py):
            # the next ones go there, even when a later job is still busy.
            self.open = job
        self._kick()

    def _kick(self) -> None:
        if self.sending is not None or not self.pending:
            return
        if self._target() is not False:
            self.sending = asyncio.create_task(self._send(), name=f"submit-{self.kind}")
        elif self.bounded:
            self._watch_stalls()

    def _watch_stalls(self) -> None:
        """While calls wait for room: looks at the jobs in flight that have
        given no sign for STALLED_S, or comes back when the first will have."""
        if self._stall_timer is not None or self._stall_check is not None or self.closed or not self.pending:
            return
        now = time.monotonic()
        heard = {job: self.heard.get(job, 0.0) for job in self.in_flight if job not in self.stalled}
        quiet = [job for job, at in heard.items() if at <= now - STALLED_S]
        if quiet:
            self._stall_check = asyncio.create_task(self._check_stalls(quiet), name=f"stalls-{self.kind}")
        elif heard:
            self._stall_timer = asyncio.get_running_loop().call_later(
                min(heard.values()) + STALLED_S - now, self._watch_stalls_again)

    def _watch_stalls_again(self) -> None:
        self._stall_timer = None
        self._watch_stalls()

    async def _check_stalls(self, quiet: list[str]) -> None:
        """Jobs of `quiet` that a worker has taken are stalled: started, or
        off their queue though not started (a stopped worker's BLPOP still
        takes one; Redis answers it, nobody reads it, and worker/run/recovery.py
        queues it again seconds later). The others (in their queue, or ended
        meanwhile) are looked at again later."""
        try:
            async with self.jobs.hub.redis.pipeline(transaction=False) as pipe:
                for job in quiet:
                    pipe.hget(Job.key_for(job), "status")
                    pipe.lpos(self.queue.key, job)
                found = await pipe.execute()
        except RedisError:
            found = [None, 0] * len(quiet)  # Redis is away: the calls' own waits say so
        finally:
            self._stall_check = None
        self.stall_checks += 1
        now = time.monotonic()
        for job, status, position in zip(quiet, found[::2], found[1::2]):
            if job not in self.in_flight or self.heard.get(job, 0.0) > now - STALLED_S:
                continue  # it ended, or answered, meanwhile
            if status == b"started" or (status == b"queued" and position is None):
                log.warning("%s job %s, taken by a worker, has answered no call for %.1f s (%d waiting): the "
                            "next calls go to another job", self.kind, job, STALLED_S, self.in_flight[job])
                self.stalled.add(job)
            else:
                self.heard[job] = now
        self._kick()

    async def close(self) -> None:
        """Stops looking for stalled jobs (the service is stopping)."""
        self.closed = True
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        if self._stall_check is not None:
            await futures.stop([self._stall_check])

    async def _send(self) -> None:
        try:
            while self.pending and (target := self._target()) is not False:
                batch, self.pending = self.pending[: self.per_submit], self.pending[self.per_submit :]
                try:
                    await self._submit(batch, target)
                except asyncio.CancelledError:  # the service is stopping
                    for call in batch:
                        call.placed.cancel()
                    raise
                except Exception as exc:  # noqa: BLE001 - each call gets it
                    for call in batch:
                        if not call.placed.done():
                            call.placed.set_exception(exc)
        except asyncio.CancelledError:
            for call in self.pending:  # the service is stopping
                if not call.placed.done():
                    call.placed.cancel()
            raise
        finally:
            self.sending = None
        if self.pending and self.bounded:  # they wait for room
            self._watch_stalls()

    async def _submit(self, batch: list[_Call], open_job: str | None) -> None:
        if self.jobs.store_full:
            raise StoreFull(self.jobs.store_full)
        job_id = self.jobs.new_job_id()
        done = await self.enqueuer.submit(
            self.template, self.jobs.settings.queue_bound, job_id, open_job,
            [c.entry for c in batch], [c.cache_key for c in batch], self.max_calls, self.timeout_s + 3600)
        self.jobs.waiting = done.waiting
        if done.refused:
            raise QueueFull(f"{done.waiting} jobs are waiting, the bound is {self.jobs.settings.queue_bound}; "
                            "retry in a moment")
        self.open = done.job
        # A call whose caller left meanwhile (its future cancelled) is in the
        # job, which answers it to nobody; it counts in none of its calls.
        waiting = [(i, call) for i, call in enumerate(batch) if not call.placed.done()]
        if done.job is not None:
            added = sum(1 for i, _ in waiting if i not in done.cached)
            if added:
                if not self.in_flight.get(done.job):
                    self.heard[done.job] = time.monotonic()
                self.in_flight[done.job] = self.in_flight.get(done.job, 0) + added
        for i, call in waiting:
            call.placed.set_result(done.cached.get(i, done.job))


class UnaryCalls:
    """Coalesced calls of every kind, and the waits for their replies."""

    KINDS = ("hint", "count", "grade", "explain", "step", "solve")
    # Kinds whose calls the cheap lane answers or hands back: an unwatched
    # solve its bounds do not end is queued as a job of its own
    # (service/rpc/server.py), so it has no heavy lane here.
    CHEAP_ONLY = ("solve",)

    def __init__(self, jobs: Jobs, enqueuer: Enqueuer, inbox: Inbox, shares: Shares):
        self.jobs = jobs
        self.inbox = inbox
        self.shares = shares
        settings = jobs.settings
        # A cheap job's calls take milliseconds each; a heavy job's each up to
        # the time limit of its kind (the human solver's run to its end).
        call_s = settings.max_time_ms // 1000
        bounds = {lanes.CHEAP: (MAX_CALLS, call_s + 60), lanes.HEAVY: (HEAVY_MAX_CALLS, call_s * HEAVY_MAX_CALLS + 60)}
        self.lanes = {
            (kind, lane): Coalescer(jobs, enqueuer, kind, lane, inbox, *bounds[lane], settings.cache_ttl_s)
            for kind in self.KINDS for lane in bounds if lane == lanes.CHEAP or kind not in self.CHEAP_ONLY
        }

    async def close(self) -> None:
        for coalescer in self.lanes.values():
            await coalescer.close()

    async def run(self, kind: str, spec: Spec, cache_key: str | None, deadline: float | None,
                  peer: str | None) -> bytes | None:
        """The reply's bytes of one call (JobFailed, JobLost, ... as
        waiting.result); None for a call of a CHEAP_ONLY kind that the cheap
        lane's bounds do not reach."""
        queued_at = time.monotonic()
        async with self.shares.held(lanes.CHEAP, peer):
            reply = await self._once(kind, lanes.CHEAP, spec, cache_key, deadline)
        if reply.harder and kind in self.CHEAP_ONLY:
            return None
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
        trace = tracing.carrier()
        entry = call_entry(call_id, spec, deadline, cache_key, trace)
        self.inbox.expect(call_id)
        job_id = None
        try:
            coalescer = self.lanes[kind, lane]
            started = time.time_ns()
            placed = await coalescer.place(entry, cache_key or "")
            if trace:
                tracing.record("enqueue", trace, started, time.time_ns(), kind=kind, lane=lane,
                               cached=isinstance(placed, bytes))
            if isinstance(placed, bytes):
                return Reply(data=placed, cached=True)
            job_id = placed
            started = time.time_ns()
            reply = await self.inbox.reply(call_id, job_id)
            if trace:
                tracing.record("reply wait", trace, started, time.time_ns(), job=job_id)
            coalescer.ended(job_id, reply.work_us, answered=not reply.job_failed)
            job_id = None
            return reply
        except asyncio.CancelledError:
            if job_id is not None:
                await self._strike_off(job_id, call_id)
            raise
        finally:
            self.inbox.forget(call_id)
            if job_id is not None:
                coalescer.ended(job_id)

    async def _strike_off(self, job_id: str, call_id: str) -> None:
        """Tells the job to skip a call whose caller has left."""
        try:
            async with self.jobs.hub.redis.pipeline(transaction=False) as pipe:
                pipe.sadd(keys.cancelled_calls(job_id), call_id)
                pipe.expire(keys.cancelled_calls(job_id), 3600)
                await pipe.execute()
        except RedisError:
            pass  # Redis is away: the job answers the call, and the reply is dropped
