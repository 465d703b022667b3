"""What CountMany and GradeMany share: a stream of requests of many boards
each, every request checked and cut into jobs (a Unit of the call's
fan-out, fanout.py), a bad request answered by an error in its place while
the call goes on, and the call's boards bounded by `max_batch`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

from service.batches.callbudget import TooMany
from service.batches.fanout import FanOut, Unit
from service.jobs.shares import Shares
from service.rpc.validate import Invalid
from sudoku.config import Settings
from sudoku.v1 import sudoku_pb2 as pb


class BoardStream:
    """A streamed call of many boards a message. A subclass names the call
    (`rpc`) and its reply message (`reply`), and says in `checked` how a
    request becomes jobs."""

    rpc: str
    reply: type

    def __init__(self, settings: Settings, cells, shares: Shares):
        self.settings = settings
        self.cells = cells
        self.shares = shares

    def checked(self, request) -> tuple[int, Callable[[], Unit]]:
        """The request's boards' count, and what makes its Unit (once that
        count is within the call's bound); Invalid for a bad request."""
        raise NotImplementedError

    async def replies(self, requests: AsyncIterator, peer: str | None) -> AsyncIterator:
        fan = FanOut(self.settings, self.cells, self.shares, peer)
        async with contextlib.aclosing(fan.replies(self._units(requests))) as stream:
            async for reply in stream:
                yield reply

    async def _units(self, requests) -> AsyncIterator[Unit]:
        seen = 0
        async for request in requests:
            try:
                n, unit = self.checked(request)
            except Invalid as exc:
                reply = self.reply(error=pb.ItemError(code=exc.code.value[0], message=str(exc)))
                yield Unit([], lambda _, reply=reply: [reply])
                continue
            seen += n
            if seen > self.settings.max_batch:
                raise TooMany(f"at most {self.settings.max_batch} boards per {self.rpc} call")
            yield unit()
