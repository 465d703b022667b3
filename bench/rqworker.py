"""RQ's own SimpleWorker lifecycle, with SudokuWorker's heartbeats, metrics
and superseded attempts: the public path that bench/rqpath.py weighs
against LeanWorker's scripts (worker/run/lifecycle.py).

    sudoku-server --worker-class bench.rqworker.PublicWorker

Every step of a job is RQ's: its dequeue reads the job (Queue, not
UnreadQueue), prepare_execution, the job's hash saved and its outcome
written by BaseWorker, the worker's key and state as RQ writes them. Only
the run itself goes through SudokuWorker.run_job (the job's heartbeat
from the liveness thread, and the job metrics).
"""

from __future__ import annotations

from rq import Queue
from rq.worker import WorkerStatus
from rq.worker.base import BaseWorker

from worker.run.classes import WORKER_KEY_TTL, SudokuWorker


class PublicWorker(SudokuWorker):
    queue_class = Queue
    prepare_job_execution = BaseWorker.prepare_job_execution
    handle_execution_ended = BaseWorker.handle_execution_ended
    handle_job_success = BaseWorker.handle_job_success
    handle_job_failure = BaseWorker.handle_job_failure
    handle_job_retry = BaseWorker.handle_job_retry
    set_state = BaseWorker.set_state
    check_for_suspension = BaseWorker.check_for_suspension

    def execute_job(self, job, queue):
        # SimpleWorker.execute_job, through run_job (SudokuWorker's heartbeat and metrics)
        execution = self.prepare_execution(job)
        self.run_job(job, queue, execution)
        self.set_state(WorkerStatus.IDLE)

    def heartbeat(self, timeout=None, pipeline=None):
        return BaseWorker.heartbeat(self, WORKER_KEY_TTL, pipeline)
