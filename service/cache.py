"""A short-lived cache of count, hint and grade replies, in Redis.

Generators resubmit the same candidate puzzles and games ask for the same
hint twice; answering those from Redis saves a queue round trip and a
worker's time. Keys are digests of the normalised request (the board after
validation, so '0' and '.' blanks or whitespace do not matter, and the
options that change the answer); a count's board is also relabelled, so a
puzzle whose digits were renamed (which has the same count) finds the same
entry. Values are the reply messages' bytes, written by the worker that
made them (worker/calls.py) and read in the round trip that would queue the
call (sudoku/scripts.py SUBMIT). Only complete counts are cached: an
incomplete one depends on the time limit and the machine's speed.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging

from redis.asyncio import Redis

from service.futures import Outliving
from sudoku import keys
from sudoku.specs import CountSpec, GradeSpec, HintSpec

log = logging.getLogger("sudoku.cache")


_NAMES = "123456789"


def relabelled(board: str) -> str:
    """The board with its digits renamed 1, 2, ... in order of first appearance."""
    names: dict[str, str] = {}
    for cell in board:
        if cell != "." and cell not in names:
            names[cell] = _NAMES[len(names)]
    return board.translate(str.maketrans(names))


def count_key(spec: CountSpec) -> str:
    # A solution is in the digits asked for: only a count without one is relabelled.
    board = spec.board if spec.include_solution else relabelled(spec.board)
    text = f"count|{board}|{spec.limit}|{spec.max_steps}|{int(spec.include_solution)}"
    return keys.cache(hashlib.sha256(text.encode()).hexdigest())


def hint_key(spec: HintSpec) -> str:
    marks = "" if spec.pencil_marks is None else ",".join(map(str, spec.pencil_marks))
    text = f"hint|{spec.givens}|{spec.entries}|{int(spec.include_candidates)}|{marks}"
    return keys.cache(hashlib.sha256(text.encode()).hexdigest())


def grade_key(spec: GradeSpec) -> str:
    return keys.cache(hashlib.sha256(f"grade|{spec.boards}".encode()).hexdigest())


class ResultCache:
    def __init__(self, redis: Redis, ttl_seconds: int):
        self.redis = redis
        self.ttl = ttl_seconds
        self._stores = Outliving()

    @property
    def enabled(self) -> bool:
        return self.ttl > 0

    async def get_many(self, cache_keys: list[str]) -> list[bytes | None]:
        if not self.enabled or not cache_keys:
            return [None] * len(cache_keys)
        return await self.redis.mget(cache_keys)

    async def put_many(self, items: list[tuple[str, bytes]]) -> None:
        """Stores replies (that may be cached: a count only when complete)."""
        if not self.enabled or not items:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for key, reply in items:
                pipe.set(key, reply, ex=self.ttl)
            await pipe.execute()

    async def close(self, grace: float = 1.0) -> None:
        """Lets the background stores finish (the service is stopping)."""
        await self._stores.close(grace)

    def _stored(self, task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.warning("could not cache a reply: %s", task.exception())
