"""The blocking client: `Client`.

    with Client() as client:                     # $SUDOKU_ADDR or localhost:50051
        result = client.solve(board)             # SolveResult
        for frame in client.watch(board, duration=5):
            ...                                  # pb.Frame, resumed across dropped connections
        client.count(board).verdict              # pb.CountReply.UNIQUE
        for item in client.count_batch(lines):   # BatchItem, in input order
            ...

Every failure raises SudokuError (gRPC code and the server's message).
UNAVAILABLE is retried with backoff; see client.connection.
"""

from __future__ import annotations

import collections
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import grpc

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

Reply = TypeVar("Reply")

log = logging.getLogger("sudoku.client")

_DEFAULT: Any = object()  # "the client's default timeout"


class Client:
    """A connection to the Sudoku service. Thread-safe; close() when done.

    `timeout` is the default deadline in seconds of unary calls and of
    solve(); streams (watch, count_batch) have none unless given.
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
        self._channel = open_channel(grpc, self.address, credentials(ca_file), options)
        self._stub = sudoku_pb2_grpc.SudokuStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _timeout(self, timeout: float | None) -> float | None:
        return self.timeout if timeout is _DEFAULT else timeout

    def _unary(self, method: Callable[..., Reply], request: Any, timeout: float | None) -> Reply:
        deadline = Deadline(self._timeout(timeout))
        for attempt in itertools.count():
            try:
                return method(request, timeout=deadline.remaining(), metadata=self.metadata)
            except grpc.RpcError as err:
                delay = should_retry(err.code(), attempt, self.retry, deadline)
                if delay is None:
                    raise SudokuError.from_rpc(err, self.address) from None
                time.sleep(delay)
        raise AssertionError("unreachable")

    def solve(
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
        """Solves `board` (81 cells, '.' or '0' blank) and returns the outcome."""
        request = rq.solve_request(
            board, entries=entries, strategy_name=strategy, tie_break_name=tie_break, seed=seed,
            max_steps=max_steps, time_limit_ms=time_limit_ms, request_id=request_id,
        )
        stream = FrameStream(self, ResumePoint(request), self._timeout(timeout))
        for _ in stream:
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
    ) -> FrameStream:
        """Solves `board` showing the search: an iterator of pb.Frame.

        Paced by `duration` seconds (default: the server's, 10 s) at `fps`,
        or `steps_per_frame`; see pb.Pacing. With `runs` the service sends
        the frames a run at a time and the stream hands them out at `fps`
        itself (far fewer messages). The stream resumes by itself after a
        dropped connection.
        """
        request = rq.solve_request(
            board, entries=entries, strategy_name=strategy, tie_break_name=tie_break, seed=seed,
            max_steps=max_steps, time_limit_ms=time_limit_ms, request_id=request_id,
            pacing=rq.pacing(duration, fps, steps_per_frame, unpaced, runs), cancel_on_disconnect=cancel_on_disconnect,
        )
        return FrameStream(self, ResumePoint(request), timeout)

    def attach(self, job_id: str, after_seq: int = 0, *, unpaced: bool = False, runs: bool = False,
               timeout: float | None = None) -> FrameStream:
        """The frames of an existing job after `after_seq` (the Watch RPC);
        the first carries the job's info and a board, to draw from."""
        point = ResumePoint(job_id=job_id, after_seq=after_seq, unpaced=unpaced, runs=runs)
        return FrameStream(self, point, timeout)

    def cancel(self, job_id: str, *, timeout: float | None = _DEFAULT) -> bool:
        """Stops a solve; False when it had already finished."""
        return self._unary(self._stub.Cancel, pb.CancelRequest(job_id=job_id), timeout).cancelled

    def hint(self, givens: str, entries: str = "", *, include_candidates: bool = False,
             timeout: float | None = _DEFAULT) -> pb.HintReply:
        """The next move and why, or which entry is wrong."""
        request = pb.HintRequest(givens=givens, entries=entries, include_candidates=include_candidates)
        return self._unary(self._stub.Hint, request, timeout)

    def count(self, board: str, *, limit: int = 2, max_steps: int = 0, time_limit_ms: int = 0,
              include_solution: bool = False, timeout: float | None = _DEFAULT) -> pb.CountReply:
        """Counts solutions up to `limit` (2: is it unique?)."""
        request = rq.count_request(board, limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms,
                                   include_solution=include_solution)
        return self._unary(self._stub.CountSolutions, request, timeout)

    def count_batch(self, boards: Iterable[str], *, limit: int = 2, max_steps: int = 0, time_limit_ms: int = 0,
                    include_solution: bool = False, window: int = 4096,
                    timeout: float | None = None) -> Iterator[BatchItem]:
        """Counts every board of `boards` (any iterable, read lazily) through CountBatch.

        Yields one BatchItem per board in input order while later boards are
        still being sent. At most `window` boards are sent and unanswered at
        once, so memory stays bounded whatever the input's length. A bad
        board is an item with `error` set; the rest go on.
        """
        make = lambda board: rq.count_request(  # noqa: E731
            board, limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms, include_solution=include_solution
        )
        return _Batch(self, "CountBatch", boards, make, batch_item, window, timeout).results()

    def count_many(self, boards: Iterable[str], *, limit: int = 2, max_steps: int = 0, time_limit_ms: int = 0,
                   include_solution: bool = False, chunk: int = rq.MANY_CHUNK, window: int = 4,
                   timeout: float | None = None) -> Iterator[CountChunk]:
        """Counts every board of `boards` (any iterable, read lazily) through
        CountMany, `chunk` boards a message: the fast way, for generators.

        Yields a CountChunk per `chunk` boards, in input order (its items()
        gives BatchItems like count_batch). At most `window` chunks are sent
        and unanswered at once. A bad board is in its chunk's `errors`; the
        rest go on. A chunk is sent when full, so boards that trickle in
        slowly are better sent with count_batch.
        """
        make = lambda item: rq.count_many_request(  # noqa: E731
            item[1], limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms, include_solution=include_solution
        )
        answer = lambda _, item, reply, address: count_chunk(item[0], item[1], reply, address)  # noqa: E731
        return _Batch(self, "CountMany", chunks(boards, chunk), make, answer, window, timeout).results()


class FrameStream(StreamState, Iterator[pb.Frame]):
    """A solve's frames, resumed with Watch after UNAVAILABLE or a dropped stream.

    `pause()` stops reading (the job goes on), `resume()` continues from the
    last frame seen; `close()` stops reading for good; `cancel()` stops the
    job itself. The job id and the first and last frames are kept.
    """

    def __init__(self, client: Client, point: ResumePoint, timeout: float | None):
        super().__init__(client, point, timeout)
        self._lock = threading.Lock()
        self._running = threading.Event()
        self._running.set()

    def __next__(self) -> pb.Frame:
        while not self._closed:
            buffered = self._next_buffered()
            if buffered is not None:
                frame, delay = buffered
                if delay:
                    time.sleep(delay)
                return frame
            if self._point.finished:
                break
            self._running.wait()
            with self._lock:
                if self._call is None:
                    self._call = self._open()
                call = self._call
            try:
                frame = next(call)
            except StopIteration:
                self._retry_or_raise(ended_early(self._client.address))
                continue
            except grpc.RpcError as err:
                if err.code() == grpc.StatusCode.CANCELLED and (self._closed or not self._running.is_set()):
                    self._drop_call()
                    continue  # our own pause() or close()
                self._retry_or_raise(SudokuError.from_rpc(err, self._client.address))
                continue
            self._received(frame)
        raise StopIteration

    def _retry_or_raise(self, error: SudokuError) -> None:
        self._drop_call()
        delay = self._next_attempt(error)
        if delay is None:
            raise error
        time.sleep(delay)

    def _drop_call(self) -> None:
        with self._lock:
            if self._call is not None:
                self._call.cancel()
            self._call = None

    def cancel(self) -> bool:
        """Cancels the job (once its id is known) and stops reading."""
        cancelled = bool(self.job_id) and self._client.cancel(self.job_id)
        self.close()
        return cancelled


class _Batch:
    """One count_batch or count_many: a sender feeding the stream, bounded by `window`.

    The items (boards, or chunks of them) sent and not yet answered wait in
    `pending`, so each reply is paired with its item by `answer`; the sender
    blocks while `window` are pending.
    """

    def __init__(self, client: Client, method: str, items: Iterable[Any], make: Callable[[Any], Any],
                 answer: Callable[[int, Any, Any, str], Any], window: int, timeout: float | None):
        self._client = client
        self._method = method
        self._source = iter(items)
        self._make = make
        self._answer = answer
        self._slots = threading.Semaphore(max(1, window))
        self._pending: collections.deque[Any] = collections.deque()
        self._timeout = timeout
        self._stopped = threading.Event()
        self._sent_all = False
        self._source_error: BaseException | None = None

    def _requests(self) -> Iterator[Any]:
        # Runs in gRPC's sending thread: an error reading the input is kept
        # for results() to raise, rather than lost in that thread.
        while True:
            while not self._slots.acquire(timeout=0.1):
                if self._stopped.is_set():
                    return
            if self._stopped.is_set():
                return
            try:
                item = next(self._source)
                request = self._make(item)
            except StopIteration:
                self._sent_all = True
                return
            except Exception as exc:  # noqa: BLE001 - re-raised by results()
                self._source_error = exc
                self._stopped.set()
                raise
            self._pending.append(item)
            yield request

    def results(self) -> Iterator[Any]:
        address = self._client.address
        call = getattr(self._client._stub, self._method)(self._requests(), timeout=self._timeout,
                                                          metadata=self._client.metadata)
        answered = 0
        try:
            for reply in call:
                if not self._pending:
                    raise SudokuError(grpc.StatusCode.INTERNAL, f"{self._method} sent a reply to no request", address)
                item = self._pending.popleft()
                self._slots.release()
                yield self._answer(answered, item, reply, address)
                answered += 1
            if self._pending or not self._sent_all:
                raise SudokuError(grpc.StatusCode.UNAVAILABLE,
                                  f"{self._method} ended after {answered} replies, before the last request", address)
        except grpc.RpcError as err:
            if self._source_error is not None:
                raise self._source_error from None
            raise SudokuError.from_rpc(err, address) from None
        finally:
            self._stopped.set()
            call.cancel()