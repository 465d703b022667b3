"""The asyncio client: `AsyncClient`, the same calls as `Client`, awaited.

    async with AsyncClient() as client:
        result = await client.solve(board)
        async for frame in client.watch(board, duration=5):
            ...
        async for item in client.count_batch(lines):
            ...

Every failure raises SudokuError; UNAVAILABLE is retried with backoff.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

import grpc
import grpc.aio

from client import requests as rq
from client.connection import channel_options as make_channel_options
from client.connection import (
    open_channel,
    Deadline,
    Retry,
    call_metadata,
    credentials,
    resolve_address,
    should_retry,
)
from client.errors import SudokuError
from client.resume import ResumePoint, StreamState, ended_early
from client.results import BatchItem, CountChunk, SolveResult, batch_item, chunks, count_chunk
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc

log = logging.getLogger("sudoku.client")

Reply = TypeVar("Reply")

_DEFAULT: Any = object()


class AsyncClient:
    """A connection to the Sudoku service for asyncio; `await close()` when done.

    Create it inside the event loop that uses it. `timeout` is the default
    deadline of unary calls and solve(); streams have none unless given.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        ca_file: str | None = None,
        token: str | None = None,
        timeout: float | None = 60.0,
        retry: Retry = Retry(),
        load_balancing: str | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
    ):
        self.address = resolve_address(address)
        self.timeout = timeout
        self.retry = retry
        self.metadata = call_metadata(token)
        options = make_channel_options(load_balancing, channel_options)
        self._channel = open_channel(grpc.aio, self.address, credentials(ca_file), options)
        self._stub = sudoku_pb2_grpc.SudokuStub(self._channel)

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _timeout(self, timeout: float | None) -> float | None:
        return self.timeout if timeout is _DEFAULT else timeout

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

    async def solve(
        self,
        board: str,
        *,
        entries: str = "",
        strategy: str | None = None,
        tie_break: str | None = None,
        seed: int = 0,
        max_steps: int = 0,
        time_limit_ms: int = 0,
        request_id: str | None = None,
        timeout: float | None = _DEFAULT,
    ) -> SolveResult:
        """Solves `board` and returns the outcome; see Client.solve."""
        request = rq.solve_request(
            board, entries=entries, strategy_name=strategy, tie_break_name=tie_break, seed=seed,
            max_steps=max_steps, time_limit_ms=time_limit_ms, request_id=request_id,
        )
        stream = AsyncFrameStream(self, ResumePoint(request), self._timeout(timeout))
        async for _ in stream:
            pass
        return stream.result()

    def watch(
        self,
        board: str,
        *,
        duration: float | None = None,
        fps: int = 0,
        steps_per_frame: int = 0,
        unpaced: bool = False,
        entries: str = "",
        strategy: str | None = None,
        tie_break: str | None = None,
        seed: int = 0,
        max_steps: int = 0,
        time_limit_ms: int = 0,
        cancel_on_disconnect: bool = False,
        request_id: str | None = None,
        runs: bool = False,
        timeout: float | None = None,
    ) -> AsyncFrameStream:
        """The search's frames, resumed after a dropped connection; see Client.watch."""
        request = rq.solve_request(
            board, entries=entries, strategy_name=strategy, tie_break_name=tie_break, seed=seed,
            max_steps=max_steps, time_limit_ms=time_limit_ms, request_id=request_id,
            pacing=rq.pacing(duration, fps, steps_per_frame, unpaced, runs), cancel_on_disconnect=cancel_on_disconnect,
        )
        return AsyncFrameStream(self, ResumePoint(request), timeout)

    def attach(self, job_id: str, after_seq: int = 0, *, unpaced: bool = False, runs: bool = False,
               timeout: float | None = None) -> AsyncFrameStream:
        """The frames of an existing job after `after_seq` (the Watch RPC); see Client.attach."""
        point = ResumePoint(job_id=job_id, after_seq=after_seq, unpaced=unpaced, runs=runs)
        return AsyncFrameStream(self, point, timeout)

    async def cancel(self, job_id: str, *, timeout: float | None = _DEFAULT) -> bool:
        """Stops a solve; False when it had already finished."""
        reply = await self._unary(self._stub.Cancel, pb.CancelRequest(job_id=job_id), timeout)
        return reply.cancelled

    async def hint(self, givens: str, entries: str = "", *, include_candidates: bool = False,
                   timeout: float | None = _DEFAULT) -> pb.HintReply:
        """The next move and why, or which entry is wrong."""
        request = pb.HintRequest(givens=givens, entries=entries, include_candidates=include_candidates)
        return await self._unary(self._stub.Hint, request, timeout)

    async def count(self, board: str, *, limit: int = 2, max_steps: int = 0, time_limit_ms: int = 0,
                    include_solution: bool = False, timeout: float | None = _DEFAULT) -> pb.CountReply:
        """Counts solutions up to `limit` (2: is it unique?)."""
        request = rq.count_request(board, limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms,
                                   include_solution=include_solution)
        return await self._unary(self._stub.CountSolutions, request, timeout)

    def count_batch(self, boards: Iterable[str] | AsyncIterable[str], *, limit: int = 2, max_steps: int = 0,
                    time_limit_ms: int = 0, include_solution: bool = False, window: int = 4096,
                    timeout: float | None = None) -> AsyncIterator[BatchItem]:
        """Counts every board (any iterable or async iterable); see Client.count_batch."""
        make = lambda board: rq.count_request(  # noqa: E731
            board, limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms, include_solution=include_solution
        )
        return _batch(self, "CountBatch", boards, make, batch_item, window, timeout)

    def count_many(self, boards: Iterable[str] | AsyncIterable[str], *, limit: int = 2, max_steps: int = 0,
                   time_limit_ms: int = 0, include_solution: bool = False, chunk: int = rq.MANY_CHUNK,
                   window: int = 4, timeout: float | None = None) -> AsyncIterator[CountChunk]:
        """Counts every board, `chunk` a message; see Client.count_many."""
        make = lambda item: rq.count_many_request(  # noqa: E731
            item[1], limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms, include_solution=include_solution
        )
        answer = lambda _, item, reply, address: count_chunk(item[0], item[1], reply, address)  # noqa: E731
        return _batch(self, "CountMany", _chunks(boards, max(1, chunk)), make, answer, window, timeout)


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


async def _batch(client: AsyncClient, method: str, items: Iterable[Any] | AsyncIterable[Any],
                 make: Callable[[Any], Any], answer: Callable[[int, Any, Any, str], Any], window: int,
                 timeout: float | None) -> AsyncIterator[Any]:
    """One count_batch or count_many: a sender task writing at most `window` unanswered items."""
    call = getattr(client._stub, method)(timeout=timeout, metadata=client.metadata)
    slots = asyncio.Semaphore(max(1, window))
    pending: collections.deque[Any] = collections.deque()

    async def send() -> None:
        async for item in _aiter(items):
            request = make(item)
            await slots.acquire()
            pending.append(item)
            await call.write(request)
        await call.done_writing()

    sender = asyncio.create_task(send())
    answered = 0
    try:
        while True:
            reply = await _read_or_sender_error(call, sender)
            if reply is grpc.aio.EOF:
                break
            if not pending:
                raise SudokuError(grpc.StatusCode.INTERNAL, f"{method} sent a reply to no request", client.address)
            item = pending.popleft()
            slots.release()
            yield answer(answered, item, reply, client.address)
            answered += 1
        await sender
        if pending:
            raise SudokuError(grpc.StatusCode.UNAVAILABLE,
                              f"{method} ended after {answered} replies, before the last request", client.address)
    except grpc.RpcError as err:
        raise SudokuError.from_rpc(err, client.address) from None
    finally:
        sender.cancel()
        call.cancel()


async def _chunks(boards: Iterable[str] | AsyncIterable[str], size: int) -> AsyncIterator[tuple[int, list[str]]]:
    """client.results.chunks for an iterable or async iterable."""
    if not isinstance(boards, AsyncIterable):
        for item in chunks(boards, size):
            yield item
        return
    start, chunk = 0, []
    async for board in boards:
        chunk.append(board)
        if len(chunk) >= size:
            yield start, chunk
            start, chunk = start + len(chunk), []
    if chunk:
        yield start, chunk


async def _read_or_sender_error(call: Any, sender: asyncio.Task[None]) -> Any:
    """The next reply; an error of the sender (reading the input) is raised here."""
    read = asyncio.ensure_future(call.read())
    await asyncio.wait({read, sender}, return_when=asyncio.FIRST_COMPLETED)
    failed = sender.done() and not sender.cancelled() and sender.exception()
    # A write refused because the call ended is reported by the read, with
    # the call's status; anything else (the input failed) is raised now.
    if failed and not isinstance(failed, (grpc.RpcError, asyncio.InvalidStateError)) and not read.done():
        read.cancel()
        raise failed
    return await read


async def _aiter(boards: Iterable[str] | AsyncIterable[str]) -> AsyncIterator[str]:
    if isinstance(boards, AsyncIterable):
        async for board in boards:
            yield board
    else:
        for board in boards:
            yield board
