"""Grade and GradeMany: how hard puzzles are for a person (worker/grades.py).

A grade is a whole logical solution in C: microseconds for an easy puzzle,
up to a second for the forum's hardest. A lone Grade is a coalesced call
(service/jobs/calls.py). GradeMany splits each request into jobs of
`grade_job_size` boards through the call's fan-out (service/batches/fanout.py: jobs
in flight, the call's worker time, its caller's share, the stop within a
second when it ends early); each job answers with its part of the reply
message (sudoku.replies.grade_many_part), boards it did not reach in time
marked RESOURCE_EXHAUSTED, and the parts of a request joined are its reply,
one per request, in order. A bad board gets its own error in its place; the
call goes on.
"""

from __future__ import annotations

from collections.abc import Callable

from service.batches.boardstream import BoardStream
from service.batches.fanout import Part, Stretch, Unit, joined, stretches
from service.rpc import validate
from sudoku import replies
from sudoku.specs import GradeSpec
from sudoku.v1 import sudoku_pb2 as pb

# A job's worker time per board at most: the hardest puzzles grade in about a second.
GRADE_MS_PER_BOARD = 5_000


def grade_spec(request: pb.GradeRequest) -> GradeSpec:
    return GradeSpec(boards=validate.board(request.board, "board"))


class Grader(BoardStream):
    rpc, reply = "GradeMany", pb.GradeManyReply

    def checked(self, request: pb.GradeManyRequest) -> tuple[int, Callable[[], Unit]]:
        packed, positions, errors, n = validate.many_boards(validate.parsed(request), self.settings.max_grade_chunk)
        return n, lambda: self._unit(packed.decode("ascii"), positions, errors, n)

    def _unit(self, boards: str, positions: list[int], errors: dict[int, str], n: int) -> Unit:
        parts = stretches(n, self.settings.grade_job_size, positions, errors)
        jobs = [Part("grade_many", {"boards": s.boards(boards), "start": s.start, "n": s.count, "valid": s.valid,
                                    "errors": [[p, m] for p, m in s.errors.items()]},
                     len(s.valid) * GRADE_MS_PER_BOARD) for s in parts if s.valid]

        def failed(s: Stretch, failure: str) -> bytes:
            return replies.grade_many_part(s.start, [
                pb.GradeReply(error=replies.error("INVALID_ARGUMENT", s.errors[p])) if p in s.errors
                else pb.GradeReply(error=replies.error("ABORTED", failure)) for p in range(s.count)])

        return Unit(jobs, lambda answers: joined(parts, answers, failed))
