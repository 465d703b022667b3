"""What one batch call (CountBatch, CountMany, GradeMany, Generate: the
fan-out of service/batches/fanout.py) may ask of the workers, and the stop of its
jobs when it ends early.

A call may send max_batch boards (TooMany past them), and take
SUDOKU_MAX_CALL_WORK_S seconds of worker time in all. Each
job it queues is granted a share of what is left (at most that left divided
by the jobs a call may have in flight, so that jobs run side by side), and
reports the time it took; a job stops where its grant runs out, and the
boards it did not reach are answered RESOURCE_EXHAUSTED. Once nothing is
left, the call ends RESOURCE_EXHAUSTED after the replies it owes.

When the call ends before its last reply (the client cancelled, went away,
or the service is stopping), its cancel flag goes up: its running jobs stop
within a fraction of a second (worker.counting.CallWork looks at the flag a few
times a second), and the boards of its queued ones are deleted at once, so a
cancelled call leaves nothing behind in Redis.
"""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from service.jobs.queueing import new_job_id
from sudoku import keys
from sudoku.errors import Exhausted

# How long the cancel flag stays: longer than any job of the call can wait
# in the queue and run.
CANCEL_TTL_S = 24 * 3600


class BudgetSpent(Exhausted):
    """The call has taken all the worker time a call may take."""


class TooMany(Exhausted):
    """The call sent more boards (or requests) than max_batch."""


class CallBudget:
    def __init__(self, budget_s: int, shares: int):
        # The cells its jobs went to (a call's jobs spread over the cells),
        # each with its boards of jobs not ended yet.
        self.cells: dict[Redis, set[str]] = {}
        self.call_id = new_job_id()
        self.budget_ms = budget_s * 1000
        self.shares = max(1, shares)
        self.used_ms = 0
        self.reserved_ms = 0

    def grant(self, wanted_ms: int) -> int:
        """Reserves worker time for a job that may take up to `wanted_ms`;
        raises BudgetSpent when nothing is left."""
        free = self.budget_ms - self.used_ms - self.reserved_ms
        if free <= 0:
            raise BudgetSpent(f"this call has used its {self.budget_ms // 1000} s of worker time "
                              "(SUDOKU_MAX_CALL_WORK_S); open another call for more")
        granted = max(1, min(wanted_ms, free // self.shares))
        self.reserved_ms += granted
        return granted

    def settle(self, granted_ms: int, used_ms: int) -> None:
        """A job ended: its reservation is replaced by what it used."""
        self.reserved_ms -= granted_ms
        self.used_ms += used_ms

    def job_fields(self, granted_ms: int) -> dict:
        """What the job's spec carries of its call (worker.counting.CallWork)."""
        return {"call_id": self.call_id, "budget_ms": granted_ms}

    def boards_keys(self, redis: Redis) -> set[str]:
        """The boards of the call's jobs in the cell of `redis`, not ended yet
        (a job's cell is one the cancel must reach)."""
        return self.cells.setdefault(redis, set())

    async def cancel(self) -> None:
        """Stops the call's jobs: running ones at their next look at the
        flag, queued ones as they start, their boards deleted now. In every
        cell the call used, each with its own flag: a worker looks in its own."""
        outcomes = await asyncio.gather(*(self._cancel(redis, boards) for redis, boards in self.cells.items()),
                                        return_exceptions=True)
        for outcome in outcomes:  # each cell tried, then the first failure told
            if isinstance(outcome, BaseException):
                raise outcome

    async def _cancel(self, redis: Redis, boards: set[str]) -> None:
        async with redis.pipeline(transaction=False) as pipe:
            pipe.set(keys.cancel(self.call_id), 1, ex=CANCEL_TTL_S)
            if boards:
                pipe.delete(*boards)
            await pipe.execute()
