"""Which jobs' frames this service's clients are reading, marked in Redis.

A solve's frames stay in Redis for SUDOKU_STREAM_TTL_S after it ends when
someone is reading them, and only SUDOKU_UNWATCHED_TTL_S when nobody is
(worker/stream.py decides as the job ends, from these marks), so the frames
of solves nobody watches do not hold Redis memory for long.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import uuid

from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import RedisError

from service.jobs.futures import finish
from sudoku import connections, keys, scripts

log = logging.getLogger("sudoku.service")

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
        self._extend = redis.register_script(scripts.EXTEND_FINISHED.source)

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
                await finish(self._unmark(job_id))

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
            connections.raise_lost_cancel()  # App.stop cancels it, and awaits it
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
