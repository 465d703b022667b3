"""What the client's calls return, beyond the generated messages."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc

from client.errors import SudokuError
from sudoku.v1 import sudoku_pb2 as pb


@dataclass(frozen=True)
class SolveResult:
    """A finished solve: its first frame's job info and its last frame."""

    job_id: str
    job: pb.JobInfo
    last: pb.Frame

    @property
    def outcome(self) -> int:
        """pb.SOLVED, pb.EXHAUSTED, pb.GAVE_UP or pb.CANCELLED."""
        return self.last.outcome

    @property
    def outcome_name(self) -> str:
        return pb.Outcome.Name(self.last.outcome)

    @property
    def solved(self) -> bool:
        return self.last.outcome == pb.SOLVED

    @property
    def solution(self) -> str:
        return self.last.solution

    @property
    def counters(self) -> pb.Counters:
        return self.last.counters

    @property
    def conflicts(self) -> list[int]:
        """The cells of givens (or entries) that break a rule together."""
        return list(self.last.conflicts)


@dataclass(frozen=True)
class BatchItem:
    """One puzzle of a count_batch, in input order: its reply or its error."""

    index: int
    board: str
    reply: pb.CountReply | None
    error: SudokuError | None

    @property
    def verdict_name(self) -> str:
        """UNIQUE, MULTIPLE, NONE, UNKNOWN (VERDICT_UNSPECIFIED below limit 2), or ERROR."""
        if self.reply is None:
            return "ERROR"
        return pb.CountReply.Verdict.Name(self.reply.verdict)


def batch_item(index: int, board: str, reply: pb.CountReply, address: str, position: int) -> BatchItem:
    """The item of the input's board `index`, from the CountBatch reply at
    `position` in its call (a resumed call counts from 0 again); INTERNAL if
    it answers another request."""
    if reply.index != position:
        raise SudokuError(grpc.StatusCode.INTERNAL,
                          f"CountBatch replied with index {reply.index}, expected {position}", address)
    if reply.HasField("error"):
        return BatchItem(index, board, None, SudokuError.from_number(reply.error.code, reply.error.message, address))
    return BatchItem(index, board, reply, None)


@dataclass(frozen=True)
class CountChunk:
    """The counts of one chunk of count_many: `boards[i]` is the input's
    board number `start + i`, and has counts[i], complete[i], verdicts[i]
    (and solutions[i] when asked for), unless it is in `errors`."""

    start: int
    boards: list[str]
    reply: pb.CountManyReply
    errors: dict[int, SudokuError] = field(default_factory=dict)  # by position in `boards`

    @property
    def counts(self) -> list[int]:
        return list(self.reply.counts) or [0] * len(self.boards)

    @property
    def verdicts(self) -> list[int]:
        """CountReply.Verdict numbers (pb.CountReply.UNIQUE, ...)."""
        return list(self.reply.verdicts) or [0] * len(self.boards)

    def items(self) -> Iterator[BatchItem]:
        """One BatchItem per board, as count_batch gives them (slower: a message each)."""
        reply = self.reply
        for i, board in enumerate(self.boards):
            error = self.errors.get(i)
            if error is not None:
                yield BatchItem(self.start + i, board, None, error)
                continue
            yield BatchItem(self.start + i, board, pb.CountReply(
                index=self.start + i, count=reply.counts[i], complete=reply.complete[i], verdict=reply.verdicts[i],
                solution=reply.solutions[i] if reply.solutions else "",
            ), None)


def count_chunk(start: int, boards: list[str], reply: pb.CountManyReply, address: str) -> CountChunk:
    """The chunk of a CountMany reply; INTERNAL if it does not fit the request."""
    if reply.HasField("error"):  # the request as a whole: every board gets it
        error = SudokuError.from_number(reply.error.code, reply.error.message, address)
        return CountChunk(start, boards, reply, dict.fromkeys(range(len(boards)), error))
    if len(reply.counts) != len(boards):
        raise SudokuError(grpc.StatusCode.INTERNAL,
                          f"CountMany replied with {len(reply.counts)} counts to {len(boards)} boards", address)
    errors = {e.index: SudokuError.from_number(e.error.code, e.error.message, address) for e in reply.errors}
    return CountChunk(start, boards, reply, errors)


def graded(start: int, boards: list[str], reply: pb.GradeManyReply, address: str) -> list[pb.GradeReply]:
    """A GradeMany reply's grades, one per board, `index` counted from the
    first board of the call; a request refused as a whole gives every board
    its error. INTERNAL if the reply does not fit the request."""
    if reply.HasField("error"):
        return [pb.GradeReply(index=start + i, error=reply.error) for i in range(len(boards))]
    if len(reply.grades) != len(boards):
        raise SudokuError(grpc.StatusCode.INTERNAL,
                          f"GradeMany replied with {len(reply.grades)} grades to {len(boards)} boards", address)
    for grade in reply.grades:
        grade.index += start
    return list(reply.grades)
