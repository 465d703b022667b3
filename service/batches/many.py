"""CountMany: CountBatch with many boards per message each way.

With one board a message (CountBatch), gRPC's cost per message in the
service and in the client is many times the count itself (bench/count.py
compares the two). Here a message carries up to `max_chunk` boards; they
are checked in one scan (service/rpc/validate.py), travel to a worker as one
string beside its job, are counted there in one C call a slice
(engine.count_many), and come back as a part of the reply message
(sudoku.replies.count_many_part), which the service joins to the other
parts of the request and sends as it is: the reply's lists are never
numbers in Python here.

A request is split into jobs of `many_job_size` boards, through the call's
fan-out (service/batches/fanout.py: jobs in flight, the call's worker time, its
caller's share, the stop when it ends early). Nothing is cached: looking a
board up would cost more than counting it.
"""

from __future__ import annotations

from collections.abc import Callable

from service.batches.boardstream import BoardStream
from service.batches.fanout import Part, Stretch, Unit, joined, stretches
from service.jobs.queueing import new_job_id
from service.rpc import validate
from sudoku import keys, replies
from sudoku.v1 import sudoku_pb2 as pb


class ManyCounter(BoardStream):
    rpc, reply = "CountMany", pb.CountManyReply

    def checked(self, request: pb.CountManyRequest) -> tuple[int, Callable[[], Unit]]:
        options = validate.count_options(validate.parsed(request), self.settings)
        boards, positions, errors, n = validate.many_boards(request, self.settings.max_chunk)
        return n, lambda: self._unit(options, boards, positions, errors, n)

    def _unit(self, options: dict, boards: bytes, positions: list[int], errors: dict[int, str], n: int) -> Unit:
        """The request's boards in stretches of many_job_size positions, a job for each with valid boards."""
        parts = stretches(n, self.settings.many_job_size, positions, errors)
        jobs = [Part("count_many", {"count": {**options, "boards_key": keys.boards(new_job_id())}, "start": s.start,
                                    "n": s.count, "valid": s.valid, "errors": [[p, m] for p, m in s.errors.items()]},
                     len(s.valid) * options["time_limit_ms"], s.boards(boards)) for s in parts if s.valid]

        def failed(s: Stretch, failure: str) -> bytes:  # no board to count, or its job failed
            return replies.count_many_part(s.count, s.start, s.valid, None, s.errors, options["include_solution"],
                                           failure)

        return Unit(jobs, lambda answers: joined(parts, answers, failed))



