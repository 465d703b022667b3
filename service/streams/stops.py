"""Stopping every playback of a job, on every service process.

Cancel has to stop more than the search. A watched search is usually done
on the worker within milliseconds, and its frames wait in Redis while the
service plays them at the client's frame rate: a stream can have minutes
of playback left when its search is long over. So a Cancel is also
broadcast, on one Redis stream every service process follows, and each
process stops its own open streams of that job at once; each stream ends
with a frame drawn where it was (service/streams/relay.py) and records how far it
had got, so that a Watch after the cancel stops at the same point.

Each open stream is also entered, with a token, in a per-job sorted set,
so that a Cancel on any instance knows whether a playback is still going
somewhere (CancelReply.cancelled) even after the search has ended.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from redis.exceptions import RedisError

from service.jobs import futures
from service.streams.hub import StreamHub
from service.streams.relay import is_last
from sudoku import connections, keys, scripts

log = logging.getLogger("sudoku.stops")

FOLLOW_S = 5.0  # an idle follower looks at self.closing this often
CANCELS_KEPT = 10_000  # entries of keys.CANCELS kept (approximately)
# A stream's entry in the playbacks set counts for this long unless renewed,
# so one left by a process that died stops counting; streams renew theirs.
STALE_AFTER_S = 1_200
RENEW_EVERY_S = 600
# A Watch that starts this soon after a Cancel waits until the streams that
# were open have recorded where they stopped (they do so within milliseconds).
SETTLE_S = 0.3


class Playback:
    """One open frame stream of a job in this process."""

    def __init__(self, job_id: str, counted: bool):
        self.job_id = job_id
        self.counted = counted  # entered in the job's playbacks set
        self.cancel_record: dict[bytes, bytes] = {}  # keys.cancel(job_id) when the stream opened
        self.token = uuid.uuid4().hex
        # A future rather than an Event: asyncio.wait() on it costs no task.
        self.stopped: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.renew_at = time.monotonic() + RENEW_EVERY_S

    def stop(self) -> None:
        if not self.stopped.done():
            self.stopped.set_result(None)

    @property
    def is_stopped(self) -> bool:
        return self.stopped.done()


class Stops:
    def __init__(self, hub: StreamHub, ttl_s: int):
        self.redis = hub.redis  # the shared pool: short commands
        # The cancels are one more stream the hub waits on, beside the frames.
        self.hub = hub
        self.ttl_s = ttl_s
        self.open: dict[str, set[Playback]] = {}
        self.task: asyncio.Task | None = None
        self.leaving = futures.Outliving()  # playbacks being removed from Redis
        self.closing = False
        self._record_max = self.redis.register_script(scripts.RECORD_MAX.source)

    def start(self) -> None:
        self.task = asyncio.create_task(self._follow(), name="stops")

    async def close(self) -> None:
        self.closing = True
        if self.task is not None:
            await futures.stop([self.task])
        # Streams that just ended (a stopping server cancels them) finish leaving.
        await self.leaving.close(grace=1.0)

    async def _follow(self) -> None:
        last_id = None
        failures = 0
        while not self.closing:
            try:
                if last_id is None:  # from now on: older cancels found their streams then
                    newest = await self.redis.xrevrange(keys.CANCELS, count=1)
                    last_id = newest[0][0].decode() if newest else "0-0"
                entries = await self.hub.wait(keys.CANCELS, last_id, timeout=FOLLOW_S)
                failures = 0
            except (RedisError, OSError) as exc:
                # Streams opened meanwhile read the cancel record themselves;
                # on reconnecting, the cancels written meanwhile are read too.
                log.warning("following cancels: %s; reconnecting", exc)
                await asyncio.sleep(connections.reconnect_delay(failures))
                failures += 1
                continue
            for entry_id, fields in entries:
                last_id = entry_id
                self._stop_here(fields[b"job"].decode())

    def _stop_here(self, job_id: str) -> None:
        for playback in self.open.get(job_id, ()):
            playback.stop()

    @asynccontextmanager
    async def playing(self, job_id: str, counted: bool = True) -> AsyncIterator[Playback]:
        """A stream of `job_id` is open for the duration of the block. Only
        a `counted` one makes Cancel report a playback still going: a stream
        that shows the search's outcome alone ends with the search."""
        playback = Playback(job_id, counted)
        self.open.setdefault(job_id, set()).add(playback)
        try:
            await self._enter(playback)
            yield playback
        finally:
            here = self.open.get(job_id)
            if here is not None:
                here.discard(playback)
                if not here:
                    del self.open[job_id]
            if counted:
                await asyncio.shield(self.leaving.spawn(self._leave(playback)))

    async def _enter(self, playback: Playback) -> None:
        """Counts the playback and reads the job's cancel record, in one round trip."""
        key = keys.playbacks(playback.job_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            if playback.counted:
                pipe.zadd(key, {playback.token: time.time() + STALE_AFTER_S})
                pipe.expire(key, STALE_AFTER_S)
            pipe.hgetall(keys.cancel(playback.job_id))
            playback.cancel_record = (await pipe.execute())[-1]

    async def renew(self, playback: Playback) -> None:
        """Keeps a long playback counted (call it now and then)."""
        if playback.counted and time.monotonic() >= playback.renew_at:
            playback.renew_at = time.monotonic() + RENEW_EVERY_S
            await self._enter(playback)

    async def _leave(self, playback: Playback) -> None:
        try:
            await self.redis.zrem(keys.playbacks(playback.job_id), playback.token)
        except (RedisError, OSError) as exc:  # it goes stale by itself
            log.info("could not remove playback of %s: %s", playback.job_id, exc)

    async def cancel(self, job_id: str) -> bool:
        """Stops the job's search and its playbacks everywhere; False when
        there was nothing to stop. LookupError for an unknown job."""
        playbacks = keys.playbacks(job_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.xrevrange(keys.frames(job_id), count=1)
            pipe.exists(keys.cancel(job_id))
            pipe.zremrangebyscore(playbacks, "-inf", time.time())
            pipe.zcard(playbacks)
            last, cancelled_before, _, playing = await pipe.execute()
        if not last:
            raise LookupError(job_id)
        if (is_last(last[0][1]) or cancelled_before) and not playing:
            return False  # the search has ended or been told to, and nothing plays
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hsetnx(keys.cancel(job_id), "at", repr(time.time()))
            pipe.expire(keys.cancel(job_id), self.ttl_s + 3600)
            pipe.xadd(keys.CANCELS, {"job": job_id}, maxlen=CANCELS_KEPT, approximate=True)
            await pipe.execute()
        self._stop_here(job_id)  # no need to wait for the follower here
        return True

    async def stop_point(self, playback: Playback) -> int | None:
        """Where a stream opened now must stop: the furthest seq a stream
        open at the job's cancel had sent; None if the job was not cancelled
        (or no stream was open then: the search's own last frame ends it)."""
        record = playback.cancel_record
        if not record:
            return None
        if b"seq" not in record:
            wait = float(record[b"at"]) + SETTLE_S - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
                record = await self.redis.hgetall(keys.cancel(playback.job_id))
        return int(record[b"seq"]) if b"seq" in record else None

    async def record(self, job_id: str, seq: int) -> None:
        """A stream of the cancelled job stopped after frame `seq`."""
        await self._record_max(keys=[keys.cancel(job_id)], args=[seq])
