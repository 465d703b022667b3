"""The replies to this service instance's coalesced calls, read from its inbox.

Workers write each call's reply on the inbox stream of the instance that
made the call (keys.inbox) as soon as it is ready (worker/calls.py). One task
here reads it, blocked in XREAD on a connection of its own (as the hub's
shards are, service/streams/hub.py), hands each reply to the call waiting for it,
and trims what it has read every TRIM_EVERY_S (or TRIM_AFTER replies): a
reply lives in Redis a fraction of a second after it is read. A reply whose call has
ended (its client left, or a retried job answered it twice) is dropped.

When Redis stops answering, every waiting call fails at once (interrupt,
from the health monitor), as every stream reader does: the call ends
UNAVAILABLE rather than waiting out its deadline.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import NamedTuple

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


def _reply(fields: dict[bytes, bytes]) -> Reply:
    if b"r" in fields:
        return Reply(data=fields[b"r"], work_ms=int(fields.get(b"w", 0)), cut=b"u" in fields,
                     work_us=int(fields.get(b"us", 0)))
    if b"x" in fields:
        return Reply(harder=True, work_us=int(fields.get(b"us", 0)))
    return Reply(code=fields[b"e"].decode(), message=fields.get(b"m", b"").decode())


class Inbox:
    def __init__(self, url: str, instance: str):
        self.key = keys.inbox(instance)
        self.redis = connections.service_blocking(url, BLOCK_MS / 1000)
        self.waiting: dict[str, asyncio.Future[Reply]] = {}
        self.last = "0-0"
        self.untrimmed = 0
        self.trimmed_at = 0.0
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="inbox")

    async def close(self) -> None:
        if self.task is not None:
            await futures.stop([self.task])
        await self.redis.aclose()

    def expect(self, call_id: str) -> asyncio.Future[Reply]:
        """The future of call `call_id`'s reply; forget() it when the call ends."""
        future = self.waiting[call_id] = asyncio.get_running_loop().create_future()
        return future

    def forget(self, call_id: str) -> None:
        self.waiting.pop(call_id, None)

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
                reply = await self.redis.xread({self.key: self.last}, count=BATCH, block=BLOCK_MS)
                for _, entries in reply or ():
                    for entry_id, fields in entries:
                        self._deliver(fields)
                    self.last = entries[-1][0].decode()
                    self.untrimmed += len(entries)
                if self.untrimmed and (self.untrimmed >= TRIM_AFTER or not reply
                                       or time.monotonic() - self.trimmed_at >= TRIM_EVERY_S):
                    # Everything up to the last entry read goes; that one goes with the next trim.
                    await self.redis.xtrim(self.key, minid=self.last, approximate=False)
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


async def wait_reply(redis, future: asyncio.Future, job_id: str) -> Reply:
    """A job's answer to one call, from its future; while none comes, every
    IDLE_CHECK_S, whether the job can still give one (waiting.alive): a job
    lost with its Redis, or finished with the answer lost, ends the wait
    ResultLost (UNAVAILABLE: the caller has the request to send again)."""
    while True:
        try:
            async with asyncio.timeout(waiting.IDLE_CHECK_S):
                return await asyncio.shield(future)
        except TimeoutError:
            pass
        try:
            await waiting.alive(redis, job_id, answers_first=True)
        except JobLost:
            if future.done():  # it came meanwhile
                return future.result()
            raise ResultLost(job_id) from None
