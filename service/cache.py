"""A short-lived cache of count and hint replies, in Redis.

Generators resubmit the same candidate puzzles and games ask for the same
hint twice; answering those from Redis saves a queue round trip and a
worker's time. Keys are digests of the normalised request (the board after
validation, so '0' and '.' blanks or whitespace do not matter, and the
options that change the answer). Only complete counts are cached: an
incomplete one depends on the time limit and the machine's speed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from typing import Any

from redis.asyncio import Redis

from service.futures import Outliving
from sudoku import keys
from sudoku.specs import CountSpec, GradeSpec, HintSpec

log = logging.getLogger("sudoku.cache")


def count_key(spec: CountSpec) -> str:
    text = f"count|{spec.board}|{spec.limit}|{spec.max_steps}|{int(spec.include_solution)}"
    return keys.cache(hashlib.sha256(text.encode()).hexdigest())


def hint_key(spec: HintSpec) -> str:
    marks = "" if spec.pencil_marks is None else ",".join(map(str, spec.pencil_marks))
    text = f"hint|{spec.givens}|{spec.entries}|{int(spec.include_candidates)}|{marks}"
    return keys.cache(hashlib.sha256(text.encode()).hexdigest())


def grade_key(spec: GradeSpec) -> str:
    return keys.cache(hashlib.sha256(f"grade|{spec.boards}".encode()).hexdigest())


def cacheable(result: dict[str, Any]) -> bool:
    return result.get("complete", True)


class ResultCache:
    def __init__(self, redis: Redis, ttl_seconds: int):
        self.redis = redis
        self.ttl = ttl_seconds
        self._stores = Outliving()

    @property
    def enabled(self) -> bool:
        return self.ttl > 0

    async def get_many(self, cache_keys: list[str]) -> list[dict[str, Any] | None]:
        if not self.enabled or not cache_keys:
            return [None] * len(cache_keys)
        return [json.loads(v) if v is not None else None for v in await self.redis.mget(cache_keys)]

    async def put_many(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        items = [(k, r) for k, r in items if cacheable(r)]
        if not self.enabled or not items:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for key, result in items:
                pipe.set(key, json.dumps(result), ex=self.ttl)
            await pipe.execute()

    async def put(self, key: str, result: dict[str, Any]) -> None:
        await self.put_many([(key, result)])

    def put_later(self, key: str, result: dict[str, Any]) -> None:
        """Stores in the background: the reply need not wait for the cache."""
        self._stores.spawn(self.put(key, result)).add_done_callback(self._stored)

    async def close(self, grace: float = 1.0) -> None:
        """Lets the background stores finish (the service is stopping)."""
        await self._stores.close(grace)

    def _stored(self, task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.warning("could not cache a reply: %s", task.exception())
