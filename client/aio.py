"""The asyncio client: `AsyncClient`, the same calls as `Client`, awaited.

    async with AsyncClient() as client:
        result = await client.solve(board)
        async for frame in client.watch(board, duration=5):
            ...
        async for item in client.count_batch(lines):
            ...

Every failure raises SudokuError; UNAVAILABLE is retried with backoff. What
it shares with Client is in client.core; this is the asyncio driver.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Sequence
from typing import Any, TypeVar

import grpc
import grpc.aio

from client import batches
from client.batches import BatchCall, Chunk, Ledger, achunks
from client.connection import Deadline, should_retry
from client.core import DEFAULT, ClientCore
from client.errors import SudokuError
from client.requests import MANY_CHUNK, count_request, explain_request, generate_request, hint_request
from client.resume import ResumePoint, StreamState, ended_early
from client.results import BatchItem, CountChunk, SolveResult
from client.stepping import AsyncStepSearch, start_request
from sudoku.v1 import sudoku_pb2 as pb

log = logging.getLogger("sudoku.client")

Reply = TypeVar("Reply")


class AsyncClient(ClientCore["AsyncFrameStream", Coroutine[Any, Any, SolveResult]]):
    """A connection to the Sudoku service for asyncio; `await close()` when done.

    Create it inside the event loop that uses it. `timeout` is the default
    deadline of unary calls and solve(); streams have none unless given.
    """

    _grpc = grpc.aio

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _frames(self, point: ResumePoint, timeout: float | None) -> AsyncFrameStream:
        return AsyncFrameStream(self, point, timeout)

    async def _to_end(self, stream: AsyncFrameStream) -> SolveResult:
        async for _ in stream:
            pass
        return stream.result()

    async def _unary(self, method: Callable[..., Awaitable[Reply]], request: Any, timeout: float | None) -> Reply:
        deadline = Deadline(self._timeout(timeout))
        for attempt in itertools.count():
            try:
                return await method(request, timeout=deadline.remaining(), metadata=self.metadata)
            except grpc.RpcError as err:
                delay = should_retry(err.code(), attempt, self.retry, deadline)
                if delay is None:
                    raise SudokuError.from_rpc(err, self.address) from None
                log.info("%s: %s; retrying in %.2f s", err.code().name, err.details(), delay)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    async def cancel(self, job_id: str, *, timeout: float | None = DEFAULT) -> bool:
        """Stops a solve; False when it had already finished."""
        reply = await self._unary(self._stub.Cancel, pb.CancelRequest(job_id=job_id), timeout)
        return reply.cancelled

    async def hint(self, givens: str, entries: str = "", *, include_candidates: bool = False,
                   pencil_marks: Sequence[int] | None = None,
                   timeout: float | None = DEFAULT) -> pb.HintReply:
        """The next step and why, or which entry is wrong; see Client.hint."""
        request = hint_request(givens, entries, include_candidates, pencil_marks)
        return await self._unary(self._stub.Hint, request, timeout)

    async def explain(self, board: str, *, pencil_marks: Sequence[int] | None = None,
                      timeout: float | None = DEFAULT) -> pb.ExplainReply:
        """The board's whole logical solution, step by step."""
        return await self._unary(self._stub.Explain, explain_request(board, pencil_marks), timeout)

    def search(self, board: str, *, entries: str = "", strategy: str | None = None,
               tie_break: str | None = None, seed: int = 0, timeout: float | None = DEFAULT) -> AsyncStepSearch:
        """A search to step through; see Client.search (its methods are awaited)."""
        start = start_request(board, entries, strategy, tie_break, seed)
        return AsyncStepSearch(self, start, self._timeout(timeout))

    async def step(self, request: pb.StepRequest, *, timeout: float | None = DEFAULT) -> pb.StepReply:
        """One Step call as it is; see Client.step."""
        return await self._unary(self._stub.Step, request, timeout)

    async def count(self, board: str, *, limit: int = 2, max_steps: int = 0, time_limit_ms: int = 0,
                    include_solution: bool = False, timeout: float | None = DEFAULT) -> pb.CountReply:
        """Counts solutions up to `limit` (2: is it unique?)."""
        request = count_request(board, limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms,
                                include_solution=include_solution)
        return await self._unary(self._stub.CountSolutions, request, timeout)

    def count_batch(self, boards: Iterable[str] | AsyncIterable[str], *, limit: int = 2, max_steps: int = 0,
                    time_limit_ms: int = 0, include_solution: bool = False, window: int = 4096,
                    timeout: float | None = None) -> AsyncIterator[BatchItem]:
        """Counts every board (any iterable or async iterable); see Client.count_batch."""
        call = batches.count_batch(limit, max_steps, time_limit_ms, include_solution)
        return _batch(self, call, achunks(boards, 1), window, timeout)

    def count_many(self, boards: Iterable[str] | AsyncIterable[str], *, limit: int = 2, max_steps: int = 0,
                   time_limit_ms: int = 0, include_solution: bool = False, chunk: int = MANY_CHUNK,
                   window: int = 4, timeout: float | None = None) -> AsyncIterator[CountChunk]:
        """Counts every board, `chunk` a message; see Client.count_many."""
        call = batches.count_many(limit, max_steps, time_limit_ms, include_solution)
        return _batch(self, call, achunks(boards, chunk), window, timeout)

    async def grade(self, board: str, *, timeout: float | None = DEFAULT) -> pb.GradeReply:
        """How hard the puzzle is for a person; see Client.grade."""
        return await self._unary(self._stub.Grade, pb.GradeRequest(board=board), timeout)

    async def grade_many(self, boards: Iterable[str] | AsyncIterable[str], *, chunk: int = 1000,
                         window: int = 4, timeout: float | None = None) -> AsyncIterator[pb.GradeReply]:
        """Grades every board, `chunk` a message; see Client.grade_many."""
        async for grades in _batch(self, batches.grade_many(), achunks(boards, chunk), window, timeout):
            for grade in grades:
                yield grade

    async def generate(self, level: str | int, count: int = 1, *, seed: int | None = None,
                       symmetry: str = "none", givens: str = "",
                       timeout: float | None = None) -> AsyncIterator[pb.GeneratedPuzzle]:
        """New puzzles of a level; see Client.generate."""
        request = generate_request(level, count, seed=seed, symmetry=symmetry, givens=givens)
        call = self._stub.Generate(request, timeout=timeout, metadata=self.metadata)
        try:
            async for puzzle in call:
                yield puzzle
        except grpc.RpcError as err:
            raise SudokuError.from_rpc(err, self.address) from None


class AsyncFrameStream(StreamState, AsyncIterator[pb.Frame]):
    """A solve's frames, resumed with Watch after UNAVAILABLE or a dropped stream.

    Like FrameStream: pause(), resume(), close(), await cancel().
    """

    def __init__(self, client: AsyncClient, point: ResumePoint, timeout: float | None):
        super().__init__(client, point, timeout)
        self._running = asyncio.Event()
        self._running.set()

    def _stopped_by_us(self) -> bool:
        return self._closed or not self._running.is_set()

    async def __anext__(self) -> pb.Frame:
        while not self._closed:
            buffered = self._next_buffered()
            if buffered is not None:
                frame, delay = buffered
                if delay:
                    await asyncio.sleep(delay)
                return frame
            if self._point.finished:
                break
            await self._running.wait()
            if self._call is None:
                self._call = self._open()
            call = self._call
            try:
                frame = await call.read()
            except asyncio.CancelledError:
                # grpc.aio raises CancelledError for a call cancelled locally:
                # ours (pause, close) is swallowed; a cancelled task is not.
                task = asyncio.current_task()
                if self._stopped_by_us() and (task is None or task.cancelling() == 0):
                    self._drop_call()
                    continue
                raise
            except grpc.RpcError as err:
                if err.code() == grpc.StatusCode.CANCELLED and self._stopped_by_us():
                    self._drop_call()
                    continue
                await self._retry_or_raise(SudokuError.from_rpc(err, self._client.address))
                continue
            if frame is grpc.aio.EOF:
                await self._retry_or_raise(ended_early(self._client.address))
                continue
            self._received(frame)
        raise StopAsyncIteration

    async def _retry_or_raise(self, error: SudokuError) -> None:
        self._drop_call()
        delay = self._next_attempt(error)
        if delay is None:
            raise error
        await asyncio.sleep(delay)

    def _drop_call(self) -> None:
        if self._call is not None:
            self._call.cancel()
        self._call = None

    async def cancel(self) -> bool:
        """Cancels the job (once its id is known) and stops reading."""
        cancelled = bool(self.job_id) and await self._client.cancel(self.job_id)
        self.close()
        return cancelled


_END = object()
# What grpc.aio reports, in place of the status a call ended with, when a
# request was being written as it ended (grpc/grpc#36066): the connection
# broke, or the service ended the call, and which cannot be told.
WRITE_FAILED = "Internal error from Core"


async def _batch(client: AsyncClient, call: BatchCall, source: AsyncIterator[Chunk], window: int,
                 timeout: float | None) -> AsyncIterator[Any]:
    """One batch call (client.batches), driven with tasks: a reader takes
    chunks from the input into `feed`, a sender per call sends them while
    fewer than `window` are unanswered, and the replies are read here,
    opening the call again after a break. The input is read by the one
    reader across calls, so a call that breaks off loses nothing it took."""
    ledger = Ledger(call, client.address, client.retry, timeout)
    slots = asyncio.Semaphore(max(1, window))
    feed: asyncio.Queue = asyncio.Queue(maxsize=1)
    reader = asyncio.create_task(_read(source, feed))
    rpc: Any = None
    sender: asyncio.Task | None = None
    try:
        while True:
            rpc = getattr(client._stub, call.method)(timeout=ledger.deadline.remaining(), metadata=client.metadata)
            sender = asyncio.create_task(_send(rpc, call, ledger, ledger.opened(), feed, slots))
            try:
                while (reply := await _next_reply(rpc, sender, reader)) is not grpc.aio.EOF:
                    answer = ledger.answer(reply)
                    slots.release()
                    yield answer
                error = ledger.unfinished()
                if error is None:
                    await sender
                    return
            except grpc.RpcError as err:
                error = _status_of_break(SudokuError.from_rpc(err, client.address), call)
            await _stop(sender, rpc)
            delay = ledger.retry_delay(error)
            if delay is None:
                raise error
            await asyncio.sleep(delay)
    finally:
        reader.cancel()
        if sender is not None:
            sender.cancel()
        if rpc is not None:
            rpc.cancel()


async def _read(source: AsyncIterator[Chunk], feed: asyncio.Queue) -> None:
    async for chunk in source:
        await feed.put(chunk)
    await feed.put(_END)


async def _send(rpc: Any, call: BatchCall, ledger: Ledger, again: list[Chunk], feed: asyncio.Queue,
                slots: asyncio.Semaphore) -> None:
    """Sends the chunks to send again, then the input's, while a slot is free."""
    for chunk in again:
        await rpc.write(call.make(chunk))
    while not ledger.source_done:
        await slots.acquire()
        try:
            chunk = await feed.get()
        except BaseException:
            slots.release()
            raise
        if chunk is _END:
            slots.release()
            ledger.source_done = True
            break
        request = call.make(chunk)
        ledger.sent(chunk)  # from here a cancelled sender leaves it to the next call
        await rpc.write(request)
    await rpc.done_writing()


def _status_of_break(error: SudokuError, call: BatchCall) -> SudokuError:
    """The status a batch call broke off with. A failed write's INTERNAL is
    taken for the dropped connection it almost always is, and resumed like
    one; in the rare race where the service itself had ended the call at a
    per-call bound (RESOURCE_EXHAUSTED), the new call goes on with the work,
    as that status advises a caller to do."""
    if error.code == grpc.StatusCode.INTERNAL and error.message == WRITE_FAILED:
        return SudokuError(grpc.StatusCode.UNAVAILABLE,
                           f"{call.method} broke off while a request was being sent ({WRITE_FAILED})", error.address)
    return error


async def _stop(sender: asyncio.Task, rpc: Any) -> None:
    sender.cancel()
    rpc.cancel()
    await asyncio.gather(sender, return_exceptions=True)


async def _next_reply(rpc: Any, sender: asyncio.Task[None], reader: asyncio.Task[None]) -> Any:
    """The next reply; an error reading the input (the reader's, or the
    sender's making a request) is raised here."""
    read = asyncio.ensure_future(rpc.read())
    waiting = {read, sender, reader}
    while True:
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if read in done:
            return read.result()
        for task in done:
            failed = not task.cancelled() and task.exception()
            # A write refused because the call ended is reported by the
            # read, with the call's status; anything else is raised now.
            if failed and not isinstance(failed, (grpc.RpcError, asyncio.InvalidStateError)):
                read.cancel()
                raise failed
            waiting.discard(task)
