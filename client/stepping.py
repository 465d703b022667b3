"""A search stepped through from the client: one step, a run of N, play, goto.

`Client.search(board, strategy=...)` returns a StepSearch, and
`AsyncClient.search(...)` an AsyncStepSearch with the same methods awaited.
It holds the search's position (the proto's StepRequest) and a Drawing of
where the search is, so a caller can step it, run it, play it on its own
clock and leave it as long as it likes between any of them:

    search = client.search(board, strategy="naive")
    search.step()               # one step (a pb.StepReply); search.drawing is the board after it
    search.run(10_000)          # 10,000 steps, in as many calls as the server's max_step_count takes
    for reply in search.play(100): ...  # 100 steps a call, to the end of the search
    search.goto(600_000)        # the same search at step 600,000

A position whose key the service no longer has (NOT_FOUND) is reached again
by starting the same search over and skipping to its step, which gives the
same position since replays are exact; a warning says so and `replays`
counts it. What each method does is a plan of requests (the generators
below) that both drivers, blocking and asyncio, send the same way.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Generator, Iterator
from typing import TYPE_CHECKING, Any

import grpc

from client.errors import SudokuError
from client.frames import Drawing
from client.requests import strategy, tie_break
from sudoku.v1 import sudoku_pb2 as pb

if TYPE_CHECKING:
    from client.aio import AsyncClient
    from client.sync import Client

log = logging.getLogger("sudoku.client")

# Times one call starts its search over, after a lost position, before the loss is an error.
MAX_REPLAYS = 3

Plan = Generator[pb.StepRequest, pb.StepReply, Any]


def cells(board: str) -> str:
    """A board as 81 characters, '.' blank (a board the server will check;
    this only reads what the drawing starts from)."""
    text = "".join(board.split()).replace("0", ".")
    return text if len(text) == 81 else "." * 81


def start_request(board: str, entries: str = "", strategy_name: str | None = None,
                  tie_break_name: str | None = None, seed: int = 0) -> pb.StepRequest:
    return pb.StepRequest(board=board, entries=entries, strategy=strategy(strategy_name),
                          tie_break=tie_break(tie_break_name), seed=seed)


def lost(error: SudokuError) -> bool:
    """The position's key is gone (see the proto): start over and skip to it."""
    return error.code == grpc.StatusCode.NOT_FOUND and error.message.startswith("position:")


class SearchState:
    """What both drivers share: the start, the position, the drawing, the plans."""

    def __init__(self, start: pb.StepRequest):
        self.start = start
        self.position = b""
        self.at = 0  # the step the drawing shows
        self.replays = 0
        self.last: pb.StepReply | None = None
        self.drawing = self._new_drawing()

    def _new_drawing(self) -> Drawing:
        drawing = Drawing(cells(self.start.board))
        drawing.givens = cells(self.start.board)
        drawing.entries = cells(self.start.entries) if self.start.entries else "." * 81
        return drawing

    @property
    def done(self) -> bool:
        return self.drawing.done

    def _request(self, steps: int, skip: int) -> pb.StepRequest:
        if self.position:
            return pb.StepRequest(position=self.position, steps=steps, skip=skip)
        request = pb.StepRequest()
        request.CopyFrom(self.start)
        request.steps, request.skip = steps, self.at + skip
        return request

    def _absorb(self, reply: pb.StepReply, each=None) -> None:
        self.drawing.steps(reply, each)
        self.position = reply.position
        self.at = reply.last_step
        self.last = reply

    def _call(self, steps: int, skip: int = 0, each=None) -> Plan:
        """One call from where the search is; on a lost position the search
        is started over and brought back to its step first."""
        for attempt in range(MAX_REPLAYS + 1):
            try:
                yield from self._reach()
                reply = yield self._request(steps, skip)
            except SudokuError as error:
                if not lost(error) or attempt == MAX_REPLAYS:
                    raise
                self.replays += 1
                log.warning("the service lost this search's position (%s); starting it over at step %d",
                            error.message, self.at)
                self.position = b""
                continue
            self._absorb(reply, each)
            return reply
        raise AssertionError("unreachable")

    def _reach(self) -> Plan:
        """Without a position, past step 0: the search started over and
        skipped to `at`, one step short, then that step (the server's
        max_step_skip a call)."""
        target = self.at
        if self.position or target == 0:
            return
        request = self._request(1, -1)  # skip = at - 1
        while True:
            self._absorb((yield request))
            if self.at >= target or self.done:
                return
            request = pb.StepRequest(position=self.position, skip=target - self.at - 1, steps=1)

    def _run(self, steps: int, each=None) -> Plan:
        """`steps` steps (fewer at the end), each call as many as the server gives."""
        replies, goal = [], self.at + steps
        while self.at < goal and not self.done:
            replies.append((yield from self._call(goal - self.at, 0, each)))
        return replies

    def _goto(self, step: int) -> Plan:
        """The search at `step` (from its start again when that is behind)."""
        if step < self.at:
            self.position, self.at, self.last, self.drawing = b"", 0, None, self._new_drawing()
        while self.at < step and not self.done:
            yield from self._call(1, step - self.at - 1)
        return self.last


class StepSearch(SearchState):
    """A search stepped through with a Client; see the module docstring."""

    def __init__(self, client: Client, start: pb.StepRequest, timeout: float | None):
        super().__init__(start)
        self._client = client
        self._timeout = timeout

    def _drive(self, plan: Plan) -> Any:
        try:
            request = next(plan)
            while True:
                try:
                    reply = self._client._unary(self._client._stub.Step, request, self._timeout)
                except SudokuError as error:
                    request = plan.throw(error)
                else:
                    request = plan.send(reply)
        except StopIteration as stop:
            return stop.value

    def step(self, steps: int = 1, *, skip: int = 0, each=None) -> pb.StepReply:
        """One Step call: `skip` steps unseen, then `steps` steps (the
        server's max_step_count at most). `each(drawing)` is called after
        every step, for a caller that shows them one by one."""
        return self._drive(self._call(steps, skip, each))

    def run(self, steps: int, *, each=None) -> list[pb.StepReply]:
        """`steps` steps, fewer if the search ends first: the replies of the calls it took."""
        return self._drive(self._run(steps, each))

    def play(self, steps_per_call: int = 1000) -> Iterator[pb.StepReply]:
        """The search to its end, `steps_per_call` steps a call; pacing is the caller's."""
        while not self.done:
            yield self.step(steps_per_call)

    def goto(self, step: int) -> pb.StepReply | None:
        """The search at `step` (or at its end, if that comes first)."""
        return self._drive(self._goto(step))


class AsyncStepSearch(SearchState):
    """A search stepped through with an AsyncClient; StepSearch's methods, awaited."""

    def __init__(self, client: AsyncClient, start: pb.StepRequest, timeout: float | None):
        super().__init__(start)
        self._client = client
        self._timeout = timeout

    async def _drive(self, plan: Plan) -> Any:
        try:
            request = next(plan)
            while True:
                try:
                    reply = await self._client._unary(self._client._stub.Step, request, self._timeout)
                except SudokuError as error:
                    request = plan.throw(error)
                else:
                    request = plan.send(reply)
        except StopIteration as stop:
            return stop.value

    async def step(self, steps: int = 1, *, skip: int = 0, each=None) -> pb.StepReply:
        """One Step call; see StepSearch.step."""
        return await self._drive(self._call(steps, skip, each))

    async def run(self, steps: int, *, each=None) -> list[pb.StepReply]:
        """`steps` steps; see StepSearch.run."""
        return await self._drive(self._run(steps, each))

    async def play(self, steps_per_call: int = 1000) -> AsyncIterator[pb.StepReply]:
        """The search to its end; see StepSearch.play."""
        while not self.done:
            yield await self.step(steps_per_call)

    async def goto(self, step: int) -> pb.StepReply | None:
        """The search at `step`; see StepSearch.goto."""
        return await self._drive(self._goto(step))
