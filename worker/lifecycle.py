"""RQ's job lifecycle in three round trips instead of eleven.

For a job that runs in microseconds, RQ's SimpleWorker spends its time in
Redis round trips (~0.1 ms each, plus redis-py's work on every command):
fetch the job, register the execution, mark the job started, write a
heartbeat, watch and read the job's dependents, commit the outcome, set the
worker idle, check for `rq suspend`. LeanWorker writes exactly the same
state, with RQ's own methods, in two pipelines: one that starts the job
(and reads it) and one that ends it (and reads what the next loop needs).
With the dequeue's BLPOP that is three round trips per job.

Only the success path is merged. A job that raises, returns Retry, repeats
or is deleted on success (result_ttl=0) goes through RQ's own code, so
retries and failure callbacks behave as RQ documents. tests/test_lifecycle.py
checks that Redis holds the same keys and fields after a job as with RQ's
SimpleWorker.
"""

from __future__ import annotations

import logging
import time

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue, SimpleWorker
from rq.executions import Execution
from rq.job import Job, JobStatus
from rq.rate_limit import release_slot
from rq.suspension import WORKERS_SUSPENDED
from rq.utils import now
from rq.worker import WorkerStatus

log = logging.getLogger("sudoku.worker")


class UnreadQueue(Queue):
    """A queue whose dequeue hands over the job unread: LeanWorker reads it
    in the same round trip that marks it started."""

    @classmethod
    def _fetch_dequeued_job(cls, connection, queue_key, job_id, job_class=None, serializer=None,
                            death_penalty_class=None):
        queue = cls.from_queue_key(queue_key, connection=connection, job_class=job_class, serializer=serializer,
                                   death_penalty_class=death_penalty_class)
        job = queue.job_class(id=job_id, connection=connection, serializer=queue.serializer)
        job.origin = queue.name
        return job, queue


class LeanWorker(SimpleWorker):
    """SimpleWorker writing RQ's state for a job in fewer round trips.

    Give it queue names (or UnreadQueue objects): its dequeue must not read
    the job.
    """

    queue_class = UnreadQueue

    def __init__(self, *args, **kwargs):
        # Logging the description would read the job before it is read.
        kwargs.setdefault("log_job_description", False)
        super().__init__(*args, **kwargs)
        self._renewed_at = 0.0
        self._suspended: bool | None = None  # read when the last job ended
        self._heartbeat_owed = 0  # the job's last_heartbeat, written with its outcome

    def heartbeat(self, timeout: int | None = None, pipeline=None):
        # RQ renews the worker's key (an HSET and two EXPIREs) up to four
        # times per job. The key lives worker_ttl (minutes), so a renewal at
        # most once a second, or for free inside a pipeline, keeps it alive.
        if pipeline is not None:
            self._renewed_at = time.monotonic()
            return super().heartbeat(timeout, pipeline)
        current = time.monotonic()
        if current - self._renewed_at < 1.0:
            return None
        with self.connection.pipeline(transaction=False) as pipe:
            super().heartbeat(timeout, pipe)
            pipe.execute()
        self._renewed_at = current
        return None

    def set_state(self, state, pipeline=None):
        if pipeline is None and state == self._state:
            return
        super().set_state(state, pipeline)

    def execute_job(self, job: Job, queue: Queue):
        try:
            execution = self.start_job(job, queue)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            # RQ reads the job inside its dequeue, which rides out a Redis
            # outage; reading it here must too, not end the worker. The job
            # was taken off its queue: worker/recovery.py queues it again
            # (or, if the start was committed, its missed heartbeats do).
            self.log.error("Worker %s: could not start job %s: %s", self.name, job.id, exc)
            self._wait_for_redis()
            return
        if execution is not None:
            self.run_job(job, queue, execution)
        self.set_state(WorkerStatus.IDLE)  # written already unless the job failed

    def _wait_for_redis(self) -> None:
        """Until Redis answers, with the back-off of RQ's dequeue."""
        wait = 1.0
        while True:
            time.sleep(wait)
            try:
                self.connection.ping()
                return
            except (RedisConnectionError, RedisTimeoutError):
                wait = min(wait * self.exponential_backoff_factor, self.max_connection_wait_time)

    def run_job(self, job: Job, queue: Queue, execution: Execution) -> bool:
        """Runs a started job and records its outcome; True on success."""
        return self.perform_job(job, queue, execution)

    def start_job(self, job: Job, queue: Queue) -> Execution | None:
        """RQ's prepare_execution and prepare_job_execution, and reading the
        job, in one transaction; None if the job no longer exists."""
        ttl = self.get_heartbeat_ttl(job)
        with self.connection.pipeline() as pipe:
            execution = Execution.create(job, ttl, pipeline=pipe, worker_name=self.name)
            self.set_state(WorkerStatus.BUSY, pipeline=pipe)
            self.heartbeat(ttl, pipeline=pipe)
            job.prepare_for_execution(self.name, pipeline=pipe)  # writes the job's heartbeat too
            pipe.persist(job.key)
            if len(self.queues) == 1:  # RQ dequeued it through its intermediate queue
                pipe.lrem(queue.intermediate_queue_key, 1, job.id)
            pipe.hgetall(job.key)  # last: it sees the fields just written
            stored = pipe.execute()[-1]
        self.executions[execution.id] = execution
        if b"data" not in stored:
            self._forget(job, execution)
            return None
        job.restore(stored)
        self.procline(f"Processing {job.func_name} from {job.origin} since {time.time()}")
        return execution

    def _forget(self, job: Job, execution: Execution) -> None:
        # The job was deleted while it waited: RQ skips such a job, so undo
        # what the start wrote (it made a stub of the job's hash).
        log.warning("job %s vanished from Redis before it could start; skipped", job.id)
        with self.connection.pipeline() as pipe:
            pipe.delete(job.key)
            self.cleanup_execution(job, pipeline=pipe, execution=execution)
            self.set_state(WorkerStatus.IDLE, pipeline=pipe)
            pipe.execute()

    def prepare_job_execution(self, job: Job, remove_from_intermediate_queue: bool = False) -> None:
        """Done by start_job already."""

    def handle_execution_ended(self, job: Job, queue: Queue, heartbeat_ttl: int):
        # RQ writes the job's last_heartbeat here in a round trip of its own;
        # the outcome's write carries it instead (the job's hash is saved
        # whole on success; see _pay_heartbeat for the other outcomes).
        job.ended_at = now()
        job.last_heartbeat = job.ended_at
        self._heartbeat_owed = heartbeat_ttl

    def _pay_heartbeat(self, job: Job) -> None:
        if self._heartbeat_owed:
            job.heartbeat(job.last_heartbeat, self._heartbeat_owed)
            self._heartbeat_owed = 0

    def handle_job_failure(self, job: Job, queue: Queue, *args, **kwargs):
        self._pay_heartbeat(job)
        super().handle_job_failure(job, queue, *args, **kwargs)

    def handle_job_retry(self, job: Job, queue: Queue, *args, **kwargs):
        self._pay_heartbeat(job)
        super().handle_job_retry(job, queue, *args, **kwargs)

    def handle_job_success(self, job: Job, queue: Queue, started_job_registry, execution: Execution):
        """RQ's handle_job_success in one transaction, plus the worker going
        idle and the suspension check of the next loop (without the worker
        heartbeat RQ sends with it: start_job renewed the worker's key).

        RQ first WATCHes and reads the job's dependents to move them in the
        same transaction; this service never makes a job depend on another,
        so the transaction only checks whether there are any, and if there
        are, RQ enqueues them once the outcome is committed.
        """
        result_ttl = job.get_result_ttl(self.default_result_ttl)
        if result_ttl == 0 or job.repeats_left:
            self._pay_heartbeat(job)
            return super().handle_job_success(job, queue, started_job_registry, execution)
        self._heartbeat_owed = 0  # saved with the job below
        with self.connection.pipeline() as pipe:
            self.increment_successful_job_count(pipeline=pipe)
            self.increment_total_working_time(job.ended_at - job.started_at, pipe)
            job._handle_success(result_ttl, pipeline=pipe, worker_name=self.name, execution_id=execution.id,
                                execution_started_at=execution.created_at, execution_ended_at=job.ended_at)
            job.cleanup(result_ttl, pipeline=pipe, remove_from_queue=False)
            self.cleanup_execution(job, pipeline=pipe, execution=execution)
            self.set_state(WorkerStatus.IDLE, pipeline=pipe)
            pipe.exists(WORKERS_SUSPENDED)
            pipe.exists(job.dependents_key)
            *_, suspended, has_dependents = pipe.execute()
        job._status = JobStatus.FINISHED
        self._suspended = bool(suspended)
        if has_dependents:
            self._enqueue_dependents_safely(queue, job)
        release_slot(job)

    def check_for_suspension(self, burst: bool):
        # A reading taken as the last job ended is as fresh as RQ's own, which
        # it would take a few microseconds later; otherwise ask Redis.
        suspended, self._suspended = self._suspended, None
        if suspended is False:
            return
        super().check_for_suspension(burst)
