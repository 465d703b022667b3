"""One attempt at a job, and the fence that stops a superseded one.

A worker that stalls (SIGSTOP, a long swap, a VM pause) stops sending
heartbeats; after a few seconds the job is handed to another worker
(worker/run/recovery.py). When the stalled worker wakes up it does not know
that, and would go on writing frames and a result of its own: two attempts
writing into one stream, and two results. So every write an attempt makes
to a job's shared state is fenced: it happens only while the job's hash
says the job is started and that this worker runs it. RQ writes both
fields when an attempt starts and changes them when the job is requeued,
retried elsewhere, finished or failed, so the fence needs no state of its
own. A worker runs one job at a time, so its name identifies the attempt.

The checks and the writes they guard run in one Lua script each (APPEND,
SET_PLAN and CHECK in sudoku/scripts.py): nothing can come between the
check and the write.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis import Redis
from rq.job import Job

from sudoku import keys, scripts


class Superseded(Exception):
    """This attempt's job was handed to another attempt (or ended): stop
    without writing anything more."""


@dataclass
class Attempt:
    """The running attempt of job `job_id`, under worker `worker_name`."""

    redis: Redis
    job_id: str
    worker_name: str

    def __post_init__(self) -> None:
        self.job_key = Job.key_for(self.job_id)
        self._append = self.redis.register_script(scripts.APPEND.source)
        self._set_plan = self.redis.register_script(scripts.SET_PLAN.source)
        self._check = self.redis.register_script(scripts.CHECK.source)

    @classmethod
    def of(cls, job: Job) -> Attempt:
        return cls(job.connection, job.id, job.worker_name or "")

    @staticmethod
    def _owned(reply: int) -> int:
        if reply == -1:
            raise Superseded()
        return reply

    def append(self, frames: list[tuple[int, bytes]], maxlen: int) -> bool:
        """Appends (seq, frame) pairs; returns the cancel flag."""
        args = [self.worker_name, maxlen]
        for seq, data in frames:
            args += [seq, data]
        reply = self._append(keys=[self.job_key, keys.frames(self.job_id), keys.cancel(self.job_id)], args=args)
        return bool(self._owned(reply))

    def set_plan(self, ttl: int, **fields: int | str) -> None:
        args: list = [self.worker_name, ttl]
        for name, value in fields.items():
            args += [name, value]
        self._owned(self._set_plan(keys=[self.job_key, keys.plan(self.job_id)], args=args))

    def cancelled(self) -> bool:
        """The cancel flag; raises Superseded when the attempt is no longer the job's."""
        reply = self._check(keys=[self.job_key, keys.cancel(self.job_id)], args=[self.worker_name])
        return bool(self._owned(reply))
