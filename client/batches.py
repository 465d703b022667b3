"""What the blocking and the asyncio clients share of a batch call:
count_batch, count_many and grade_many.

Each sends its input a chunk at a time, `(start, boards)`, as the RPC's
requests (count_batch: one board a chunk), and each reply answers the oldest
chunk not yet answered. The ledger keeps the chunks sent and not answered;
the sender stops while `window` of them are out, so memory stays bounded
whatever the input's length.

A call that breaks off with UNAVAILABLE, or ends before its last reply (a
dropped connection, a service that stopped), is resumed like a unary call
or a watched solve: after the same jittered backoff, within the same
deadline and retry budget (which starts afresh with every reply), a new
call sends the unanswered chunks again, in order, then goes on with the
input where it was. Counts and grades are idempotent, so a chunk the
service had answered into the broken call costs it the work again, and the
caller still sees each board once, in input order. Any other error is
final, after every reply that arrived.

The drivers (client/sync.py with threads, client/aio.py with tasks) do
the sending and reading; what is sent, what a reply answers and whether to
call again is decided here, once.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

import grpc

from client.connection import Deadline, Retry, should_retry
from client.errors import SudokuError
from client.requests import count_many_request, count_request
from client.results import batch_item, count_chunk, graded
from sudoku.v1 import sudoku_pb2 as pb

log = logging.getLogger("sudoku.client")

Chunk = tuple[int, list[str]]  # (the input position of its first board, the boards)


@dataclass(frozen=True)
class BatchCall:
    """One kind of batch call: the RPC, the request a chunk makes, and what
    a reply gives the caller: answer(chunk, reply, its place in its call, address)."""

    method: str
    make: Callable[[Chunk], Any]
    answer: Callable[[Chunk, Any, int, str], Any]


def count_batch(limit: int, max_steps: int, time_limit_ms: int, include_solution: bool) -> BatchCall:
    """CountBatch: a board a request; a BatchItem per reply."""
    def make(chunk: Chunk) -> pb.CountRequest:
        return count_request(chunk[1][0], limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms,
                             include_solution=include_solution)

    def answer(chunk: Chunk, reply: pb.CountReply, position: int, address: str):
        return batch_item(chunk[0], chunk[1][0], reply, address, position)

    return BatchCall("CountBatch", make, answer)


def count_many(limit: int, max_steps: int, time_limit_ms: int, include_solution: bool) -> BatchCall:
    """CountMany: a chunk a request; a CountChunk per reply."""
    def make(chunk: Chunk) -> pb.CountManyRequest:
        return count_many_request(chunk[1], limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms,
                                  include_solution=include_solution)

    return BatchCall("CountMany", make, lambda chunk, reply, _, address: count_chunk(*chunk, reply, address))


def grade_many() -> BatchCall:
    """GradeMany: a chunk a request; its GradeReplies per reply."""
    return BatchCall("GradeMany", lambda chunk: pb.GradeManyRequest(boards=chunk[1]),
                     lambda chunk, reply, _, address: graded(*chunk, reply, address))


class Ledger:
    """A batch call's chunks sent and not answered, across the calls that
    carry it, and whether (and when) to call again."""

    def __init__(self, call: BatchCall, address: str, retry: Retry, timeout: float | None):
        self.call = call
        self.address = address
        self.retry = retry
        self.deadline = Deadline(timeout)
        self.pending: collections.deque[Chunk] = collections.deque()  # sent, not answered, in order
        self.source_done = False  # the input has no more chunks
        self.replies = 0  # of the call now open
        self.attempt = 0  # calls opened again since the last reply

    def opened(self) -> list[Chunk]:
        """A new call is open: the chunks to send on it first, again."""
        self.replies = 0
        return list(self.pending)

    def sent(self, chunk: Chunk) -> None:
        self.pending.append(chunk)

    def answer(self, reply: Any) -> Any:
        """What `reply` gives the caller, for the oldest chunk not answered."""
        if not self.pending:
            raise SudokuError(grpc.StatusCode.INTERNAL, f"{self.call.method} sent a reply to no request", self.address)
        chunk = self.pending.popleft()
        self.attempt = 0
        answer = self.call.answer(chunk, reply, self.replies, self.address)
        self.replies += 1
        return answer

    def unfinished(self) -> SudokuError | None:
        """At the end of a call's replies: None when it answered everything,
        else UNAVAILABLE (it ended early, like a dropped connection)."""
        if not self.pending and self.source_done:
            return None
        return SudokuError(grpc.StatusCode.UNAVAILABLE,
                           f"{self.call.method} ended after {self.replies} replies, before the last request",
                           self.address)

    def retry_delay(self, error: SudokuError) -> float | None:
        """Seconds to wait before calling again after `error`; None when it is final."""
        delay = should_retry(error.code, self.attempt, self.retry, self.deadline)
        if delay is not None:
            self.attempt += 1
            log.info("%s; sending %s's %d unanswered requests again in %.2f s (retry %d)",
                     error, self.call.method, len(self.pending), delay, self.attempt)
        return delay


def chunks(boards: Iterable[str], size: int) -> Iterator[Chunk]:
    """(index of the first, boards) for each run of `size` boards of an iterable."""
    source = iter(boards)
    start = 0
    while chunk := list(islice(source, max(1, size))):
        yield start, chunk
        start += len(chunk)


async def achunks(boards: Iterable[str] | AsyncIterable[str], size: int) -> AsyncIterator[Chunk]:
    """chunks() for an iterable or an async iterable."""
    if not isinstance(boards, AsyncIterable):
        for item in chunks(boards, size):
            yield item
        return
    size = max(1, size)
    start, chunk = 0, []
    async for board in boards:
        chunk.append(board)
        if len(chunk) >= size:
            yield start, chunk
            start, chunk = start + len(chunk), []
    if chunk:
        yield start, chunk
