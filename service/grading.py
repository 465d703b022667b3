"""Grade and GradeMany: how hard puzzles are for a person (worker/grades.py).

A grade is a whole logical solution in C: microseconds for an easy puzzle,
up to a second for the forum's hardest. GradeMany splits each request into
RQ jobs of `grade_job_size` boards, at most `batch_inflight` of them out at
once, which spread over the workers; replies leave one per request, in
order. A bad board gets its own error in its place; the call goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc

from service import validate
from service.callbudget import TooMany
from service.config import Settings
from service.queueing import Jobs
from service.validate import Invalid
from service.waiting import JobFailed
from sudoku import keys
from sudoku.replies import item_error
from sudoku.specs import GradeSpec
from sudoku.v1 import sudoku_pb2 as pb

# A job's time limit per board: the hardest puzzles grade in about a second.
GRADE_MS_PER_BOARD = 5_000


def grade_spec(request: pb.GradeRequest) -> GradeSpec:
    return GradeSpec(boards=validate.board(request.board, "board"))


class Grader:
    def __init__(self, settings: Settings, jobs: Jobs):
        self.settings = settings
        self.jobs = jobs

    async def replies(self, requests: AsyncIterator[pb.GradeManyRequest]) -> AsyncIterator[pb.GradeManyReply]:
        seen = 0
        async for request in requests:
            try:
                packed, positions, errors, n = validate.many_boards(validate.parsed(request),
                                                                    self.settings.max_grade_chunk)
            except Invalid as exc:
                yield pb.GradeManyReply(error=item_error(exc.code, str(exc)))
                continue
            seen += n
            if seen > self.settings.max_batch:
                raise TooMany(f"at most {self.settings.max_batch} boards per GradeMany call")
            yield await self._grade(packed, positions, errors, n)

    async def _grade(self, packed: bytes, positions: list[int], errors: dict[int, str], n: int) -> pb.GradeManyReply:
        size = self.settings.grade_job_size
        room = asyncio.Semaphore(self.settings.batch_inflight)
        parts = [packed[i * 81 : (i + size) * 81] for i in range(0, len(positions), size)]
        results = await asyncio.gather(*(self._job(part, room) for part in parts))
        reply = pb.GradeManyReply()
        grades = iter(g for result in results for g in result)
        valid = iter(positions)
        at = next(valid, None)
        for index in range(n):
            if index in errors:
                reply.grades.add(index=index, error=item_error(grpc.StatusCode.INVALID_ARGUMENT, errors[index]))
                continue
            assert index == at
            grade = next(grades)
            if isinstance(grade, JobFailed):
                reply.grades.add(index=index, error=item_error(grpc.StatusCode.ABORTED, grade.message))
            else:
                reply.grades.append(pb.GradeReply(index=index, **grade))
            at = next(valid, None)
        return reply

    async def _job(self, boards: bytes, room: asyncio.Semaphore) -> list:
        count = len(boards) // 81
        async with room:
            try:
                result = await self.jobs.run("worker.jobs.grade", GradeSpec(boards=boards.decode("ascii")),
                                             keys.QUEUE_BATCH, count * GRADE_MS_PER_BOARD)
            except JobFailed as exc:  # that job's boards get the error; the call goes on
                return [exc] * count
        return result["grades"]
