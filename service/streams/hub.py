"""Waiting on many Redis streams at once, for every reader in the process.

One blocking connection per watched job does not scale (a thousand watched
jobs would hold a thousand connections, and their p99 latency grows past a
second), while readers sharing a few connections stay fast. So a reader that is behind catches up
with plain XRANGE on the shared pool, and only a reader that has caught up
waits here. Each shard holds one connection blocked in XREAD on all the
streams its waiters are interested in; entries it reads go straight to the
waiters, so nothing is fetched twice. A waiter on a stream the blocked
XREAD does not cover yet wakes the shard with an entry on its private wake
stream.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import zlib
from dataclasses import dataclass, field

from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.jobs import futures
from sudoku import connections, keys
from sudoku.errors import Unavailable

log = logging.getLogger("sudoku.hub")

BLOCK_MS = 2_000  # an idle shard re-issues its XREAD this often
BATCH = 128  # entries per stream per XREAD

Entry = tuple[str, dict[bytes, bytes]]  # (stream entry id, fields)


def id_key(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


@dataclass(eq=False)
class _Waiter:
    after: str
    future: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class _Shard:
    def __init__(self, url: str, index: int):
        self.redis = connections.service_blocking(url, BLOCK_MS / 1000)
        self.wake_key = keys.hub_wake(f"{uuid.uuid4().hex}:{index}")
        self.wake_id = "0-0"
        self.waiters: dict[str, list[_Waiter]] = {}
        self.blocked_on: set[str] | None = None
        self.waking = False  # a wake-up is on its way to the blocked XREAD
        self.wake_expiry_set = float("-inf")
        self.idle = asyncio.Event()
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"hub-{self.wake_key}")

    async def close(self) -> None:
        if self.task:
            await futures.stop([self.task])
        await self.redis.aclose()

    async def wait(self, key: str, after: str, waker: Redis, timeout: float | None = None) -> list[Entry]:
        waiter = _Waiter(after)
        self.waiters.setdefault(key, []).append(waiter)
        try:
            if self.blocked_on is None:
                self.idle.set()
            elif key not in self.blocked_on and not self.waking:
                # Shielded: a waiter cancelled mid-wake (its client left) must
                # not leave the wake half-sent and `waking` stuck, stalling
                # every later waiter until the XREAD's block times out.
                await asyncio.shield(self._wake(waker))
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for returns
            # the result of a future that completes as the task is cancelled,
            # and the cancel (a client gone) is lost: the stream plays on.
            try:
                async with asyncio.timeout(timeout):
                    return await waiter.future
            except TimeoutError:
                return []
        finally:
            self._forget(key, waiter)

    def interrupt(self, exc: Exception) -> None:
        """Fails every waiter with `exc` and abandons the XREAD under way
        (Redis stopped answering: it may never return)."""
        self._fail_all(exc)
        if self.task is not None and not self.task.done():
            self.task.cancel()
            self.start()

    async def _wake(self, waker: Redis) -> None:
        # One wake-up per blocked XREAD is enough: it re-reads every stream
        # waited on when it returns, so under load many new waiters share it.
        self.waking = True
        try:
            async with waker.pipeline(transaction=False) as pipe:
                pipe.xadd(self.wake_key, {"w": b"1"}, maxlen=1)
                now = time.monotonic()
                if now - self.wake_expiry_set > 600:  # the process may die; its key should not stay
                    pipe.expire(self.wake_key, 3600)
                    self.wake_expiry_set = now
                await pipe.execute()
        except BaseException:
            self.waking = False  # not sent: the next waiter must try again
            raise

    def _forget(self, key: str, waiter: _Waiter) -> None:
        waiting = self.waiters.get(key)
        if waiting and waiter in waiting:
            waiting.remove(waiter)
            if not waiting:
                del self.waiters[key]

    async def _run(self) -> None:
        failures, retried = 0, False
        while True:
            # A close() whose cancel the XREAD swallowed would otherwise
            # leave this loop waiting for waiters, and close() for it.
            connections.raise_lost_cancel()
            if not self.waiters:
                self.idle.clear()
                await self.idle.wait()
                continue
            streams = {self.wake_key: self.wake_id}
            for key, waiting in self.waiters.items():
                streams[key] = min((w.after for w in waiting), key=id_key)
            self.blocked_on = set(streams)
            self.waking = False
            try:
                reply = await self.redis.xread(streams, count=BATCH, block=BLOCK_MS)
                failures, retried = 0, False
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                if not retried and isinstance(exc, RedisConnectionError):
                    # A connection the server closed (a Sentinel failover,
                    # Redis's idle timeout, CLIENT KILL) is read again at
                    # once on a fresh one: the waiters need not hear of it.
                    retried = True
                    continue
                self._fail_all(exc)
                await asyncio.sleep(connections.reconnect_delay(failures))
                failures += 1
                continue
            except RedisError as exc:
                self._fail_all(exc)
                raise
            finally:
                self.blocked_on = None
            for raw_key, entries in reply or ():
                self._deliver(raw_key.decode(), [(i.decode(), f) for i, f in entries])

    def _deliver(self, key: str, entries: list[Entry]) -> None:
        if key == self.wake_key:
            self.wake_id = entries[-1][0]
            return
        newest = id_key(entries[-1][0])
        for waiter in list(self.waiters.get(key, ())):
            after = id_key(waiter.after)
            if after < newest:
                # Forget it now, not when its task next runs: until then the
                # next XREAD would include this stream at the old position
                # and return at once with the same entries, again and again.
                self._forget(key, waiter)
                if not waiter.future.done():
                    waiter.future.set_result([e for e in entries if id_key(e[0]) > after])

    def _fail_all(self, exc: Exception) -> None:
        self.fail_matching("", exc)

    def fail_matching(self, prefix: str, exc: Exception) -> None:
        for key, waiting in self.waiters.items():
            if key.startswith(prefix):
                for waiter in waiting:
                    if not waiter.future.done():
                        waiter.future.set_exception(exc)


class ShuttingDown(Unavailable):
    """The service is stopping; the reader should end its stream."""

    def details(self) -> str:
        return "the service is shutting down; resume with Watch(job_id, after_seq) on another instance"


class StreamHub:
    """`await hub.wait(key, after_id)` returns the entries after `after_id`
    as soon as there are any. Raises the Redis error if Redis goes away.
    `redis` is the cell's shared client: the hub reads with it (XRANGE) and
    wakes a shard's blocked read through it; the shards block on
    connections of their own."""

    def __init__(self, url: str, redis: Redis, shards: int = 4):
        self.url = url
        self.redis = redis
        self.shards = [_Shard(url, i) for i in range(shards)]
        self.closing = False

    def end_streams(self, prefix: str) -> None:
        """Ends every wait on a stream whose key starts with `prefix`, now and
        from now on, with ShuttingDown (graceful shutdown of frame relays)."""
        self.closing = True
        self.closing_prefix = prefix
        for shard in self.shards:
            shard.fail_matching(prefix, ShuttingDown())

    def start(self) -> None:
        for shard in self.shards:
            shard.start()

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.shards))

    def interrupt(self, exc: Exception) -> None:
        """Ends every wait with `exc` now: the health monitor calls this when
        Redis stops answering, so that no reader waits out a blocked XREAD."""
        for shard in self.shards:
            shard.interrupt(exc)

    async def wait(self, key: str, after: str, timeout: float | None = None) -> list[Entry]:
        """The entries after `after`, as soon as there are any; [] after
        `timeout` seconds without any."""
        # A reader's redis-py command just before may have swallowed its
        # cancel (sudoku/connections.py raise_lost_cancel): a wait of seconds
        # must not start with one pending (a relay whose client left would
        # wait out the whole search).
        connections.raise_lost_cancel()
        if self.closing and key.startswith(self.closing_prefix):
            raise ShuttingDown()
        shard = self.shards[zlib.crc32(key.encode()) % len(self.shards)]
        return await shard.wait(key, after, self.redis, timeout)

    async def read(self, key: str, after: str, count: int = BATCH) -> list[Entry]:
        """Entries after `after` that exist now (XRANGE, never blocks)."""
        entries = await self.redis.xrange(key, min="(" + after, max="+", count=count)
        return [(i.decode(), f) for i, f in entries]
