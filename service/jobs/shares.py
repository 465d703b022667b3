"""Each caller's share of a lane: how much of it one caller may hold at once.

A caller is a client connection (the peer gRPC names it by, or the HTTP
port's client address and port), within its address: the connections of
one address together hold at most ADDRESS_FACTOR times one connection's
share, so opening more connections buys a client little. A lane's share
counts calls (the heavy lane: SUDOKU_CALLER_HEAVY_CALLS, the cheap lane:
SUDOKU_CALLER_CHEAP_CALLS) or jobs (the batch lane: SUDOKU_CALLER_BATCH_JOBS,
over all the caller's batch calls), queued or running. Past its share a
caller's next one waits, in order, for one of the caller's own to end:
another caller is never held up by it, and its own calls keep their
deadlines. Each service instance keeps its own shares.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

ADDRESS_FACTOR = 4


def address_of(peer: str | None) -> str:
    """The client address of a peer: 'ipv4:10.0.0.5:4711' -> '10.0.0.5',
    'ipv6:[::1]:4711' -> '::1', 'http:10.0.0.5:4711' -> '10.0.0.5'."""
    if not peer:
        return ""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "http"):
        return rest.rpartition(":")[0] or rest
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return kind  # unix sockets and the like: one address


@dataclass
class _Address:
    held: int = 0
    by_peer: collections.Counter = field(default_factory=collections.Counter)
    waiting: collections.deque = field(default_factory=collections.deque)  # (peer, future)


class Shares:
    """The shares of every lane, `per_caller` giving each lane's share of one connection."""

    def __init__(self, per_caller: dict[str, int]):
        self.per_caller = per_caller
        self.addresses: dict[tuple[str, str], _Address] = {}

    @contextlib.asynccontextmanager
    async def held(self, lane: str, peer: str | None, count: int = 1) -> AsyncIterator[None]:
        """Holds `count` of the caller's share of `lane` for the block, waiting for them first."""
        await self.take(lane, peer, count)
        try:
            yield
        finally:
            self.give_back(lane, peer, count)

    async def take(self, lane: str, peer: str | None, count: int = 1) -> None:
        key = (lane, address_of(peer))
        address = self.addresses.setdefault(key, _Address())
        if not address.waiting and self._fits(lane, address, peer, count):
            self._hold(address, peer, count)
            return
        future = asyncio.get_running_loop().create_future()
        address.waiting.append((peer, count, future))
        try:
            await future
        except BaseException:
            if future.done() and not future.cancelled():
                self.give_back(lane, peer, count)  # granted as the wait was cancelled
            else:
                address.waiting.remove((peer, count, future))
                self._wake(lane, key)
            raise

    def give_back(self, lane: str, peer: str | None, count: int = 1) -> None:
        key = (lane, address_of(peer))
        address = self.addresses[key]
        address.held -= count
        address.by_peer[peer] -= count
        if address.by_peer[peer] <= 0:
            del address.by_peer[peer]
        self._wake(lane, key)

    def _fits(self, lane: str, address: _Address, peer: str | None, count: int) -> bool:
        share = self.per_caller[lane]
        # A request bigger than a share is granted alone (a caller never waits for ever).
        mine = address.by_peer.get(peer, 0)
        return (mine == 0 or mine + count <= share) and (
            address.held == 0 or address.held + count <= share * ADDRESS_FACTOR)

    def _hold(self, address: _Address, peer: str | None, count: int) -> None:
        address.held += count
        address.by_peer[peer] += count

    def _wake(self, lane: str, key: tuple[str, str]) -> None:
        """Grants the waiters that now fit, in order (a connection's own calls keep theirs)."""
        address = self.addresses[key]
        blocked: set = set()
        for entry in list(address.waiting):
            peer, count, future = entry
            if peer in blocked:
                continue
            if future.done():
                address.waiting.remove(entry)
                continue
            if not self._fits(lane, address, peer, count):
                blocked.add(peer)
                continue
            address.waiting.remove(entry)
            self._hold(address, peer, count)
            future.set_result(None)
        if not address.held and not address.waiting:
            del self.addresses[key]
