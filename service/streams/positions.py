"""The service's side of Step positions: opening a request's position before it is queued.

The envelope and the ring of keys are sudoku/positions.py's; this reads
the shared key from Redis for the service (asyncio): on the first Step call
that brings a position, then at most once every REFRESH_S, and at once when
a position names a key the ring does not have (a worker may have taken a
newer one first). Redis away: the key in hand goes on serving.
"""

from __future__ import annotations

import asyncio
import logging
import time

from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import RedisError

from service.rpc.validate import Invalid
from sudoku import keys, positions
from sudoku.positions import BadPosition, KeyRing, PositionGone

log = logging.getLogger("sudoku.service")

__all__ = ["PositionGone", "Positions"]

# A position naming a key this instance does not know makes it look at Redis
# again, but not more often than this: forged key ids cost no more than that.
UNKNOWN_LOOK_S = 0.05


class Positions:
    """Opens positions with this deployment's key (see sudoku/positions.py)."""

    def __init__(self, redis: AsyncRedis, setting: str = ""):
        self._redis = redis
        self.ring = KeyRing(setting)
        self._looked = -float("inf")
        self._lock = asyncio.Lock()

    async def unseal(self, position: bytes) -> bytes:
        """The snapshot of a request's position: Invalid when it is not one
        (or was altered), PositionGone when no known key signed it."""
        if self.ring.fixed is None:
            if self.ring.current is None or time.monotonic() - self._looked >= positions.REFRESH_S:
                await self._look()
            elif positions.signer(position) not in self.ring.known and \
                    time.monotonic() - self._looked >= UNKNOWN_LOOK_S:
                await self._look()  # a key taken since: look before saying it is gone
        try:
            return positions.unseal(self.ring.known, position)
        except BadPosition as exc:
            raise Invalid(str(exc)) from None

    async def key(self) -> bytes:
        """The key this instance signs with (tests seal with it)."""
        if self.ring.fixed is None and self.ring.current is None:
            await self._look()
        assert self.ring.current is not None
        return self.ring.current

    async def _look(self) -> None:
        async with self._lock:
            mine = self.ring.candidate()
            try:
                async with self._redis.pipeline(transaction=False) as pipe:
                    pipe.set(keys.POSITION_KEY, mine, nx=True)
                    pipe.get(keys.POSITION_KEY)
                    _, shared = await pipe.execute()
            except (RedisError, OSError):
                if self.ring.current is None:
                    raise
                log.debug("the position key could not be read again; keeping the one in hand", exc_info=True)
            else:
                self.ring.adopt(shared or mine)  # deleted between the two commands: ours was written
            self._looked = time.monotonic()
