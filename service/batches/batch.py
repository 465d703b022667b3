"""CountBatch: a stream of puzzles in, a stream of counts out, in order.

Puzzles are grouped into jobs of `batch_size` (one job per puzzle would
cost a queue round trip each; see bench/count.py) that spread over every
worker on the batch lane, through the call's fan-out (service/batches/fanout.py:
the jobs in flight, the call's worker time, its caller's share, the stop
when it ends early). A group is sent when full, or as soon as the client
pauses, so a generator sending one puzzle at a time still gets prompt
answers. The worker answers each request of the group in its place, a bad
one with its own error, the result cache's where it has them
(worker/batches.py), as CountReply bytes that go to the client as they are.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from service.batches.callbudget import TooMany
from service.batches.fanout import FanOut, Part, Unit
from service.jobs.cache import ResultCache, count_key
from service.jobs.shares import Shares
from service.rpc import validate
from service.rpc.validate import Invalid
from sudoku import replies
from sudoku.config import Settings
from sudoku.v1 import sudoku_pb2 as pb

# A partial group waits this long for more requests before it is sent.
LINGER_SECONDS = 0.002

_END = object()


class BatchCounter:
    def __init__(self, settings: Settings, cells, cache: ResultCache, shares: Shares):
        self.settings = settings
        self.cells = cells
        self.cache = cache
        self.shares = shares

    async def replies(self, requests: AsyncIterator[pb.CountRequest], peer: str | None) -> AsyncIterator:
        inbox: asyncio.Queue = asyncio.Queue(maxsize=self.settings.batch_size)
        reader = asyncio.create_task(self._read(requests, inbox))
        try:
            fan = FanOut(self.settings, self.cells, self.shares, peer)
            async with contextlib.aclosing(fan.replies(self._groups(inbox))) as stream:
                async for reply in stream:
                    yield reply
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    async def _read(self, requests, inbox: asyncio.Queue) -> None:
        try:
            async for request in requests:
                await inbox.put(request)
        except asyncio.CancelledError:
            raise  # the call is over: nobody reads the inbox any more, so put nothing in it
        except Exception:  # noqa: BLE001 - the requests broke off: what came is answered
            pass
        await inbox.put(_END)

    async def _groups(self, inbox: asyncio.Queue) -> AsyncIterator[Unit]:
        """The requests in groups, each a unit of one job: sent when full or when the client pauses."""
        items: list = []
        index = 0
        while True:
            try:
                request = await self._next(inbox, bool(items))
            except TimeoutError:  # the client paused: send what we have
                yield self._unit(items)
                items = []
                continue
            if request is _END:
                break
            if index >= self.settings.max_batch:
                # The allowed requests are answered first: then the call ends.
                if items:
                    yield self._unit(items)
                raise TooMany(f"at most {self.settings.max_batch} requests per CountBatch call")
            items.append(self._item(request, index))
            index += 1
            if len(items) >= self.settings.batch_size:
                yield self._unit(items)
                items = []
        if items:
            yield self._unit(items)

    @staticmethod
    async def _next(inbox: asyncio.Queue, lingering: bool):
        """The next request; with `lingering`, TimeoutError after a short pause."""
        if not inbox.empty():  # the common case under load: no timer, no task
            return inbox.get_nowait()
        if lingering:
            async with asyncio.timeout(LINGER_SECONDS):  # not wait_for: see StreamHub.wait
                return await inbox.get()
        return await inbox.get()

    def _item(self, request, index: int) -> list:
        """[index, count spec, error code, message, cache key] (worker/batches.py _count_batch)."""
        try:
            spec = validate.count_spec(request, self.settings)
        except Invalid as exc:
            return [index, None, exc.code.name, str(exc), ""]
        return [index, spec.to_dict(), "", "", count_key(spec) if self.cache.enabled else ""]

    def _unit(self, items: list) -> Unit:
        counted = [item for item in items if item[1] is not None]
        if not counted:
            return Unit([], lambda _: [_error(item[0], item[2], item[3]) for item in items])
        want = sum(item[1]["time_limit_ms"] for item in counted)
        part = Part("count_batch", {"items": items, "cache_ttl_s": self.cache.ttl}, want)

        def made(answers) -> list:
            (answer,) = answers
            if answer.code is None:
                return replies.undelimited(answer.data)
            return [_error(item[0], item[2], item[3]) if item[1] is None else _error(item[0], answer.code,
                                                                                        answer.message)
                    for item in items]

        return Unit([part], made)


def _error(index: int, code: str, message: str) -> pb.CountReply:
    return pb.CountReply(index=index, error=replies.error(code, message))



