"""RQ's job lifecycle in two Lua scripts, with the dequeue all the round
trips a job needs.

For a job that runs in microseconds, RQ's SimpleWorker spends its time in
Redis round trips and in the Python around them (redis-py's work on every
command, RQ's objects): fetch the job, register the execution, mark the
job started, write a heartbeat, watch and read the job's dependents, commit
the outcome, set the worker idle, check for `rq suspend`, each a command or
a pipeline of its own. LeanWorker writes exactly the same state in two Lua
scripts (sudoku/scripts.py): START registers the execution and reads the
job, FINISH commits a success and reads what the next loop needs. Beside
the dequeue's BLPOP and those two, a job costs at most a heartbeat a
second (and a second START where the heartbeat's TTL depends on the job:
see start_job). docs/architecture.md's "Workers" has the figures
(bench/service.py).

Only the success path is scripted, for a result kept a while or deleted on
success (result_ttl=0, as the jobs that answer on an inbox are). A job that
raises, returns Retry, repeats, has dependents and is deleted on success, or
is kept for ever goes through RQ's own code, so retries and failure callbacks behave as RQ documents.
tests/test_lifecycle.py checks that Redis holds the same keys, fields,
expiries and scores during and after a job as with RQ's SimpleWorker, for
every outcome, on one queue and on two.
"""

from __future__ import annotations

import logging
import time
import uuid
from base64 import b64encode
from datetime import datetime

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue, SimpleWorker
from rq.executions import Execution, ExecutionRegistry
from rq.job import Job, JobStatus
from rq.rate_limit import release_slot
from rq.registry import FinishedJobRegistry, StartedJobRegistry
from rq.results import Result
from rq.suspension import WORKERS_SUSPENDED
from rq.utils import current_timestamp, now, utcformat
from rq.worker import WorkerStatus

from sudoku import scripts
from sudoku.scripts import HeldConnection

log = logging.getLogger("sudoku.worker")


def executions_key(job: Job) -> str:
    """The key of RQ's ExecutionRegistry of the job."""
    return ExecutionRegistry.key_template.format(job.id)


DATES = (b"created_at", b"enqueued_at", b"started_at", b"ended_at", b"last_heartbeat")


def restore(job: Job, stored: dict[bytes, bytes]) -> None:
    """Job.restore, with its dates parsed by datetime.fromisoformat, which
    is many times faster than the strptime RQ parses four dates a job with."""
    dates = {name: stored.pop(name) for name in DATES if stored.get(name)}
    job.restore(stored)
    for name, value in dates.items():
        setattr(job, name.decode(), datetime.fromisoformat(value.decode()))


class PromptTeardown:
    """RQ's worker, whose teardown does not wait up to a minute for its
    pub/sub thread (the thread that hears `rq` commands such as kill-horse).

    RQ unsubscribes, then stops that thread. The thread may read the
    unsubscribe's reply and go back to waiting for a subscription (up to
    RQ's sleep_time, a minute) before the stop is asked for; since redis-py
    8.2, stop() waits for the thread, so now and then a worker took a minute
    to end (sudoku-server killed it after 3 s, with a warning). Here the
    thread is asked to stop first, so it ends as it reads the reply, and
    it waits PUBSUB_WAKE_S at most at a time, so no wait of it is longer.
    """

    PUBSUB_WAKE_S = 1.0

    def subscribe(self):
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(
            sleep_time=self.PUBSUB_WAKE_S, daemon=True, exception_handler=self._pubsub_exception_handler)

    def unsubscribe(self):
        thread = getattr(self, "pubsub_thread", None)
        if thread is None:
            return
        try:
            thread.stop(timeout=0)  # redis-py 8.2 and later: ask, and wait no time
        except TypeError:
            thread.stop()  # earlier: only asks
        if thread.is_alive():
            self.pubsub.unsubscribe()
        thread.join(timeout=2 * self.PUBSUB_WAKE_S)


class UnreadQueue(Queue):
    """A queue whose dequeue hands over the job unread: LeanWorker reads it
    in the same round trip that marks it started."""

    # RQ builds a Queue object per dequeued job, which costs more than a
    # short job; they hold no state of the job, so one per queue and worker
    # set-up is kept.
    _known: dict[tuple, Queue] = {}

    @classmethod
    def _fetch_dequeued_job(cls, connection, queue_key, job_id, job_class=None, serializer=None,
                            death_penalty_class=None):
        known = (queue_key, connection, job_class, serializer, death_penalty_class)
        queue = cls._known.get(known)
        if queue is None:
            queue = cls._known[known] = cls.from_queue_key(
                queue_key, connection=connection, job_class=job_class, serializer=serializer,
                death_penalty_class=death_penalty_class)
        job = queue.job_class(id=job_id, connection=connection, serializer=queue.serializer)
        job.origin = queue.name
        return job, queue


class LeanWorker(PromptTeardown, SimpleWorker):
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
        self._scripts = HeldConnection(self.connection)
        self._registry_keys: dict[str, tuple[str, str]] = {}

    def worker_key_ttl(self, job_ttl: int | None) -> int:
        """How long the worker's key lives after a heartbeat of `job_ttl`."""
        return job_ttl or self.worker_ttl + 60

    def registry_keys(self, queue_name: str) -> tuple[str, str]:
        """The started and finished registries' keys of a queue (building
        RQ's registry objects for them on every job costs more than the job)."""
        found = self._registry_keys.get(queue_name)
        if found is None:
            found = (StartedJobRegistry(queue_name, connection=self.connection).key,
                     FinishedJobRegistry(queue_name, connection=self.connection).key)
            self._registry_keys[queue_name] = found
        return found

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
            # was taken off its queue: worker/run/recovery.py queues it again
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
        job, in one script (START); None if the job no longer exists.

        The heartbeat's TTL is asked for before the job is read. Where it
        depends on the job (RQ's SimpleWorker gives the job's timeout plus a
        minute), START runs again with the TTL of the job as read;
        SudokuWorker's TTL is the same for every job, so it never does.
        """
        execution = Execution(id=uuid.uuid4().hex, job_id=job.id, connection=self.connection, worker_name=self.name)
        execution._job = job
        self.last_heartbeat = now()
        job_time = utcformat(self.last_heartbeat)
        started_key = self.registry_keys(job.origin)[0]
        keys_ = [execution.key, executions_key(job), started_key, execution.worker_executions_key, self.key, job.key]
        if len(self.queues) == 1:  # RQ dequeued it through its intermediate queue
            keys_.append(queue.intermediate_queue_key)
        stamp = current_timestamp()

        def start(ttl: int) -> list:
            return self._scripts(scripts.START, keys_, [
                execution.id, job.id, execution.created_at.timestamp(), self.name, ttl, stamp + ttl + 60, ttl + 60,
                stamp + ttl, execution.composite_key, job_time, self.worker_key_ttl(ttl), job_time])

        unread_ttl = self.get_heartbeat_ttl(job)
        stored = start(unread_ttl)
        self._state = WorkerStatus.BUSY
        self._renewed_at = time.monotonic()
        self.executions[execution.id] = execution
        stored = dict(zip(stored[::2], stored[1::2]))
        if b"data" not in stored:
            self._forget(job, execution)
            return None
        job.started_fields = dict(stored)  # with the fields of the job's own beside RQ's (worker/calls.py)
        restore(job, stored)
        if self.get_heartbeat_ttl(job) != unread_ttl:
            start(self.get_heartbeat_ttl(job))
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
        """RQ's handle_job_success in one script (FINISH), plus the worker
        going idle and the suspension check of the next loop (without the
        worker heartbeat RQ sends with it: start_job renewed the worker's key).

        RQ first WATCHes and reads the job's dependents to move them in the
        same transaction; this service never makes a job depend on another,
        so the script only checks whether there are any, and if there are,
        RQ enqueues them once the outcome is committed.
        """
        result_ttl = job.get_result_ttl(self.default_result_ttl)
        fields = None
        if result_ttl == 0 and not job.repeats_left:
            fields = []  # deleted on success: no Result to write
        elif result_ttl and result_ttl > 0 and not job.repeats_left:
            fields = self._result_fields(job, execution)
        if fields is None:
            self._pay_heartbeat(job)
            return super().handle_job_success(job, queue, started_job_registry, execution)
        owed, self._heartbeat_owed = self._heartbeat_owed, 0  # written by the script
        started_key, finished_key = self.registry_keys(job.origin)
        keys_ = [self.key, job.key, Result.get_key(job.id), finished_key, job.dependents_key, job.dependencies_key,
                 execution.key, started_key, executions_key(job), execution.worker_executions_key, WORKERS_SUSPENDED]
        working = (job.ended_at - job.started_at).total_seconds()
        args = [working, utcformat(job.started_at), utcformat(job.ended_at), result_ttl,
                current_timestamp() + result_ttl, job.id, execution.composite_key, execution.id, self.name, *fields]
        suspended, has_dependents = self._scripts(scripts.FINISH, keys_, args)
        if suspended == -1:
            log.warning("job %s: this attempt was superseded while it stalled; its result is dropped", job.id)
            self.drop(job, execution)
            return
        if suspended == -2:  # deleted on success, with dependents: RQ moves them first
            self._heartbeat_owed = owed
            self._pay_heartbeat(job)
            return super().handle_job_success(job, queue, started_job_registry, execution)
        self.executions.pop(execution.id, None)
        self._state = WorkerStatus.IDLE
        job._status = JobStatus.FINISHED
        self._suspended = bool(suspended)
        if has_dependents:
            self._enqueue_dependents_safely(queue, job)
        release_slot(job)

    def register_death(self):
        super().register_death()
        # The scripts' connection is the worker's own, outside its pool.
        self._scripts.close()

    def owns(self, job: Job) -> bool:
        """Whether the job is still this worker's to finish (worker/run/attempt.py)."""
        status, worker_name = self.connection.hmget(job.key, "status", "worker_name")
        return status == JobStatus.STARTED.encode() and worker_name == self.name.encode()

    def drop(self, job: Job, execution: Execution) -> None:
        """Forgets a superseded attempt: only this worker's own records of it
        go (its execution, the worker busy); the job is another attempt's."""
        self._heartbeat_owed = 0
        with self.connection.pipeline() as pipe:
            execution.delete(job=job, pipeline=pipe)
            self.set_state(WorkerStatus.IDLE, pipeline=pipe)
            pipe.execute()
        self.executions.pop(execution.id, None)

    def _result_fields(self, job: Job, execution: Execution) -> list | None:
        """What Result.serialize writes for the job's return value; None
        when RQ's own code should write it (a value the serializer refuses)."""
        try:
            value = job.serializer.dumps(job._result)
        except Exception:  # noqa: BLE001 - RQ stores a placeholder; let it
            return None
        fields = ["type", Result.Type.SUCCESSFUL.value, "worker_name", self.name]
        if job._result is not None:
            fields += ["return_value", b64encode(value).decode()]
        return fields + ["execution_id", execution.id, "execution_started_at", execution.created_at.timestamp(),
                         "execution_ended_at", job.ended_at.timestamp()]

    def check_for_suspension(self, burst: bool):
        # A reading taken as the last job ended is as fresh as RQ's own, which
        # it would take a few microseconds later; otherwise ask Redis.
        suspended, self._suspended = self._suspended, None
        if suspended is False:
            return
        super().check_for_suspension(burst)
