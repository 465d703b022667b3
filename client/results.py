"""What the client's calls return, beyond the generated messages."""

from __future__ import annotations

from dataclasses import dataclass

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
