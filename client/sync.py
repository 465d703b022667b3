"""The blocking client: `Client`.

    with Client() as client:                     # $SUDOKU_ADDR or localhost:50051
        result = client.solve(board)             # SolveResult
        for frame in client.watch(board, duration=5):
            ...                                  # pb.Frame, resumed across dropped connections
        client.count(board).verdict              # pb.CountReply.UNIQUE
        for item in client.count_batch(lines):   # BatchItem, in input order
            ...

Every failure raises SudokuError (gRPC code and the server's message).
UNAVAILABLE is retried with backoff; see client.connection. What it shares
with AsyncClient is in client.core; this is the blocking driver.
"""

from __future__ import annotations

import collections
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import grpc

from client import batches
from client.batches import BatchCall, Chunk, Ledger, chunks
from client.connection import Deadline, should_retry
from client.core import DEFAULT, ClientCore
from client.errors import SudokuError
from client.requests import MANY_CHUNK, count_request, explain_request, generate_request, hint_request
from client.resume import ResumePoint, StreamState, ended_early
from client.results import BatchItem, CountChunk, SolveResult
from client.stepping import StepSearch, start_request
from sudoku.v1 import sudoku_pb2 as pb

Reply = TypeVar("Reply")


class Client(ClientCore["FrameStream", SolveResult]):
    """A connection to the Sudoku service. Thread-safe; close() when done.

    `timeout` is the default deadline in seconds of unary calls and of
    solve(); streams (watch, count_batch) have none unless given.
    """

    _grpc = grpc

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _frames(self, point: ResumePoint, timeout: float | None) -> FrameStream:
        return FrameStream(self, point, timeout)

    def _to_end(self, stream: FrameStream) -> SolveResult:
        for _ in stream:
            pass
        return stream.result()

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

    def cancel(self, job_id: str, *, timeout: float | None = DEFAULT) -> bool:
        """Stops a solve; False when it had already finished."""
        return self._unary(self._stub.Cancel, pb.CancelRequest(job_id=job_id), timeout).cancelled

    def hint(self, givens: str, entries: str = "", *, include_candidates: bool = False,
             pencil_marks: Sequence[int] | None = None,
             timeout: float | None = DEFAULT) -> pb.HintReply:
        """The next step and why, or which entry is wrong. With `pencil_marks`
        (81 masks, bit v-1 for value v) the step continues from them and may be
        eliminations (kind ELIMINATION); without, it is the next placement."""
        return self._unary(self._stub.Hint, hint_request(givens, entries, include_candidates, pencil_marks), timeout)

    def explain(self, board: str, *, pencil_marks: Sequence[int] | None = None,
                timeout: float | None = DEFAULT) -> pb.ExplainReply:
        """The board's whole logical solution, step by step."""
        return self._unary(self._stub.Explain, explain_request(board, pencil_marks), timeout)

    def search(self, board: str, *, entries: str = "", strategy: str | None = None,
               tie_break: str | None = None, seed: int = 0, timeout: float | None = DEFAULT) -> StepSearch:
        """A search to step through (the Step RPC): step(), run(n), play(),
        goto(k) on the same search, its position and drawing kept; see
        client.stepping. Nothing is called until the first step."""
        start = start_request(board, entries, strategy, tie_break, seed)
        return StepSearch(self, start, self._timeout(timeout))

    def step(self, request: pb.StepRequest, *, timeout: float | None = DEFAULT) -> pb.StepReply:
        """One Step call as it is: start a search or go on from a position."""
        return self._unary(self._stub.Step, request, timeout)

    def count(self, board: str, *, limit: int = 2, max_steps: int = 0, time_limit_ms: int = 0,
              include_solution: bool = False, timeout: float | None = DEFAULT) -> pb.CountReply:
        """Counts solutions up to `limit` (2: is it unique?)."""
        request = count_request(board, limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms,
                                include_solution=include_solution)
        return self._unary(self._stub.CountSolutions, request, timeout)

    def count_batch(self, boards: Iterable[str], *, limit: int = 2, max_steps: int = 0, time_limit_ms: int = 0,
                    include_solution: bool = False, window: int = 4096,
                    timeout: float | None = None) -> Iterator[BatchItem]:
        """Counts every board of `boards` (any iterable, read lazily) through CountBatch.

        Yields one BatchItem per board in input order while later boards are
        still being sent. At most `window` boards are sent and unanswered at
        once, so memory stays bounded whatever the input's length. A bad
        board is an item with `error` set; the rest go on. A call that
        breaks off (UNAVAILABLE, or ended early) is resumed from the first
        unanswered board (client.batches); any other error, or
        `retry.attempts` breaks with no reply between, raises SudokuError
        after every item that arrived: the boards after the last remain.
        """
        call = batches.count_batch(limit, max_steps, time_limit_ms, include_solution)
        return _Batch(self, call, chunks(boards, 1), window, timeout).results()

    def count_many(self, boards: Iterable[str], *, limit: int = 2, max_steps: int = 0, time_limit_ms: int = 0,
                   include_solution: bool = False, chunk: int = MANY_CHUNK, window: int = 4,
                   timeout: float | None = None) -> Iterator[CountChunk]:
        """Counts every board of `boards` (any iterable, read lazily) through
        CountMany, `chunk` boards a message: the fast way, for generators.

        Yields a CountChunk per `chunk` boards, in input order (its items()
        gives BatchItems like count_batch). At most `window` chunks are sent
        and unanswered at once. A bad board is in its chunk's `errors`; the
        rest go on. A call that breaks off (UNAVAILABLE, or ended early)
        is resumed from the first unanswered chunk (client.batches); any
        other error, or `retry.attempts` breaks with no reply between,
        raises SudokuError after every chunk that arrived: the boards after
        the last remain. A chunk is sent when full, so boards that trickle
        in slowly are better sent with count_batch.
        """
        call = batches.count_many(limit, max_steps, time_limit_ms, include_solution)
        return _Batch(self, call, chunks(boards, chunk), window, timeout).results()

    def grade(self, board: str, *, timeout: float | None = DEFAULT) -> pb.GradeReply:
        """How hard the puzzle is for a person: level, score, techniques."""
        return self._unary(self._stub.Grade, pb.GradeRequest(board=board), timeout)

    def grade_many(self, boards: Iterable[str], *, chunk: int = 1000, window: int = 4,
                   timeout: float | None = None) -> Iterator[pb.GradeReply]:
        """Grades every board of `boards` (read lazily) through GradeMany,
        `chunk` a message; yields one GradeReply per board, in input order,
        `index` its position, `error` set for a board that could not be graded.
        Resumed like count_many."""
        for grades in _Batch(self, batches.grade_many(), chunks(boards, chunk), window, timeout).results():
            yield from grades

    def generate(self, level: str | int, count: int = 1, *, seed: int | None = None, symmetry: str = "none",
                 givens: str = "", timeout: float | None = None) -> Iterator[pb.GeneratedPuzzle]:
        """New puzzles of `level` ("easy" .. "extreme", or a pb.Level), each
        unique, graded, with its solution; the same seed gives the same ones."""
        request = generate_request(level, count, seed=seed, symmetry=symmetry, givens=givens)
        call = self._stub.Generate(request, timeout=timeout, metadata=self.metadata)
        try:
            yield from call
        except grpc.RpcError as err:
            raise SudokuError.from_rpc(err, self.address) from None


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
    """One batch call (client.batches), driven with a thread: gRPC's sending
    thread runs requests(), which takes chunks from the input while fewer
    than `window` are unanswered, and results() reads the replies in the
    caller's thread, opening the call again after a break.

    The input is read by one sender at a time, under `_taking`. A sender
    whose call broke off (an older `call_no`) stops; a chunk it had taken
    from the input but not noted as sent goes to `_carried`, which the next
    sender sends before reading on, so nothing is skipped or reordered.
    """

    def __init__(self, client: Client, call: BatchCall, source: Iterable[Chunk], window: int,
                 timeout: float | None):
        self._client = client
        self._call = call
        self._ledger = Ledger(call, client.address, client.retry, timeout)
        self._source = iter(source)
        self._slots = threading.Semaphore(max(1, window))
        self._lock = threading.Lock()  # the ledger, `_carried` and `_call_no`
        self._taking = threading.Lock()  # the input
        self._carried: collections.deque[Chunk] = collections.deque()
        self._call_no = 0
        self._stopped = threading.Event()  # results() has ended
        self._source_error: BaseException | None = None

    def _current(self, call_no: int) -> bool:
        return call_no == self._call_no and not self._stopped.is_set()

    def _requests(self, call_no: int, again: list[Chunk]) -> Iterator[Any]:
        # Runs in gRPC's sending thread: an error reading the input is kept
        # for results() to raise, rather than lost in that thread.
        for chunk in again:
            yield self._call.make(chunk)
        while True:
            while not self._slots.acquire(timeout=0.1):
                if not self._current(call_no):
                    return
            with self._taking:
                chunk = self._take(call_no)
                if chunk is None:
                    self._slots.release()
                    return
            yield self._call.make(chunk)

    def _take(self, call_no: int) -> Chunk | None:
        """The next chunk for call `call_no` to send, noted as sent; None
        when there is none or the call is no longer the current one."""
        with self._lock:
            if not self._current(call_no):
                return None
            if self._carried:
                chunk = self._carried.popleft()
                self._ledger.sent(chunk)
                return chunk
        try:
            chunk = next(self._source)
        except StopIteration:
            with self._lock:
                self._ledger.source_done = True
            return None
        except Exception as exc:  # noqa: BLE001 - re-raised by results()
            self._source_error = exc
            self._stopped.set()
            raise
        with self._lock:
            if not self._current(call_no):
                self._carried.append(chunk)
                return None
            self._ledger.sent(chunk)
            return chunk

    def _open(self) -> Any:
        with self._lock:
            self._call_no += 1
            requests = self._requests(self._call_no, self._ledger.opened())
        client = self._client
        return getattr(client._stub, self._call.method)(requests, timeout=self._ledger.deadline.remaining(),
                                                         metadata=client.metadata)

    def results(self) -> Iterator[Any]:
        ledger, call = self._ledger, None
        try:
            while True:
                call = self._open()
                try:
                    for reply in call:
                        with self._lock:
                            answer = ledger.answer(reply)
                        self._slots.release()
                        yield answer
                    error = ledger.unfinished()
                    if error is None:
                        return
                except grpc.RpcError as err:
                    if self._source_error is not None:
                        raise self._source_error from None
                    error = SudokuError.from_rpc(err, ledger.address)
                call.cancel()
                delay = ledger.retry_delay(error)
                if delay is None:
                    raise error
                time.sleep(delay)
        finally:
            self._stopped.set()
            if call is not None:
                call.cancel()
