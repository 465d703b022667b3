"""The replies to this service instance's coalesced calls, read from its inbox.

Workers write each call's reply on the inbox stream of the instance that
made the call (keys.inbox) as soon as it is ready (worker/calls.py). One task
here reads it, blocked in XREAD on a connection of its own (as the hub's
shards are, service/streams/hub.py), hands each reply to the call waiting for it,
and trims what it has read every TRIM_EVERY_S (or TRIM_AFTER replies): a
reply lives in Redis a fraction of a second after it is read. A reply whose call has
ended (its client left, or a retried job answered it twice) is dropped.

A call that hears nothing for IDLE_CHECK_S is asked after: one watchdog
task looks at the calls waiting that long, every half of it, and asks
whether their jobs can still answer (waiting.alive, once a job): a job lost
with its Redis, or finished with the answer lost, ends its calls
ResultLost (UNAVAILABLE: the caller has the request to send again), one
that failed or is stuck with that error. (A timer for each call cost more
than the rest of its wait.)

When Redis stops answering, every waiting call fails at once (interrupt,
from the health monitor), as every stream reader does: the call ends
UNAVAILABLE rather than waiting out its deadline.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import NamedTuple

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.jobs import futures, waiting
from service.jobs.waiting import JobLost, ResultLost
from sudoku import connections, keys

log = logging.getLogger("sudoku.inbox")

BLOCK_MS = 2_000
BATCH = 1_000  # entries per XREAD
# Replies read are trimmed after this many, or this long (a round trip per
# reply would be a third of a call's Redis commands at low load).
TRIM_AFTER = 256
TRIM_EVERY_S = 0.5


class Reply(NamedTuple):
    """A call's answer: its reply message's bytes, or an error (a gRPC status
    code's name and a message), or `harder` (for the heavy lane)."""

    data: bytes | None = None
    code: str | None = None
    message: str = ""
    harder: bool = False
    cached: bool = False  # from the result cache, no job
    work_ms: int = 0  # a batch job's worker time (worker/batches.py)
    cut: bool = False  # a batch job stopped short by its call's worker time
    work_us: int = 0  # a coalesced call's worker time (worker/calls.py)
    job_failed: bool = False  # the error is its job's: it failed on every worker (worker/calls.py on_failure)


def _reply(fields: dict[bytes, bytes]) -> Reply:
    if b"r" in fields:
        return Reply(data=fields[b"r"], work_ms=int(fields.get(b"w", 0)), cut=b"u" in fields,
                     work_us=int(fields.get(b"us", 0)))
    if b"x" in fields:
        return Reply(harder=True, work_us=int(fields.get(b"us", 0)))
    return Reply(code=fields[b"e"].decode(), message=fields.get(b"m", b"").decode(), job_failed=b"f" in fields)


class Inbox:
    """`checks`: the client the watchdog asks Redis about jobs with."""

    def __init__(self, url: str, instance: str, checks):
        self.key = keys.inbox(instance)
        self.redis = connections.service_blocking(url, BLOCK_MS / 1000)
        self.held = connections.Held(self.redis)  # the reads and trims, on a connection of their own
        self.checks = checks
        self.waiting: dict[str, asyncio.Future[Reply]] = {}
        # Calls whose job is known: call id -> [job id, when last heard of]
        self.jobs: dict[str, list] = {}
        self.last = "0-0"
        self.untrimmed = 0
        self.trimmed_at = 0.0
        self.tasks: list[asyncio.Task] = []

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._run(), name="inbox"),
                      asyncio.create_task(self._watch(), name="inbox-watchdog")]

    async def close(self) -> None:
        await futures.stop(self.tasks)
        await self.held.close()
        await self.redis.aclose()

    def expect(self, call_id: str) -> asyncio.Future[Reply]:
        """The future of call `call_id`'s reply; forget() it when the call ends."""
        future = self.waiting[call_id] = asyncio.get_running_loop().create_future()
        return future

    async def reply(self, call_id: str, job_id: str) -> Reply:
        """The reply of call `call_id` (expected), which job `job_id` answers;
        while none comes, the watchdog asks after the job."""
        future = self.waiting[call_id]
        self.jobs[call_id] = [job_id, time.monotonic()]
        return await future

    def forget(self, call_id: str) -> None:
        self.waiting.pop(call_id, None)
        self.jobs.pop(call_id, None)

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(waiting.IDLE_CHECK_S / 2)
            quiet = time.monotonic() - waiting.IDLE_CHECK_S
            by_job: dict[str, list[str]] = {}
            for call_id, heard in self.jobs.items():
                if heard[1] <= quiet:
                    by_job.setdefault(heard[0], []).append(call_id)
            for job_id, calls in by_job.items():
                await self._ask_after(job_id, calls)

    async def _ask_after(self, job_id: str, calls: list[str]) -> None:
        """Whether job `job_id` can still answer `calls`; those it cannot end with why."""
        try:
            await waiting.alive(self.checks, job_id, answers_first=True)
        except JobLost:
            failure: Exception = ResultLost(job_id)
        except (waiting.JobFailed, waiting.JobStuck, RedisError) as exc:
            failure = exc
        else:
            now = time.monotonic()
            for call_id in calls:
                if call_id in self.jobs:
                    self.jobs[call_id][1] = now
            return
        for call_id in calls:  # a reply that came meanwhile is its call's
            future = self.waiting.get(call_id)
            if future is not None and not future.done():
                future.set_exception(failure)
                future.add_done_callback(futures.seen)

    def interrupt(self, exc: Exception) -> None:
        """Fails every waiting call with `exc` (Redis stopped answering)."""
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(exc)
                future.add_done_callback(futures.seen)

    async def _run(self) -> None:
        failures = 0
        while True:
            connections.raise_lost_cancel()
            try:
                reply = connections.stream_entries(await self.held.call(
                    [hiredis.pack_command(("XREAD", "COUNT", BATCH, "BLOCK", BLOCK_MS, "STREAMS", self.key, self.last))]))
                for _, entries in reply:
                    for entry_id, fields in entries:
                        self._deliver(fields)
                    self.last = entries[-1][0].decode()
                    self.untrimmed += len(entries)
                if self.untrimmed and (self.untrimmed >= TRIM_AFTER or not reply
                                       or time.monotonic() - self.trimmed_at >= TRIM_EVERY_S):
                    # Everything up to the last entry read goes; that one goes with the next trim.
                    await self.held.call([hiredis.pack_command(("XTRIM", self.key, "MINID", self.last))])
                    self.untrimmed, self.trimmed_at = 0, time.monotonic()
                failures = 0
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                self.interrupt(exc)
                await asyncio.sleep(connections.reconnect_delay(failures))
                failures += 1
            except RedisError as exc:
                log.error("reading the inbox failed: %s", exc)
                self.interrupt(exc)
                await asyncio.sleep(connections.RECONNECT_DELAYS[-1])

    def _deliver(self, fields: dict[bytes, bytes]) -> None:
        future = self.waiting.get(fields[b"c"].decode())
        if future is not None and not future.done():
            future.set_result(_reply(fields))
