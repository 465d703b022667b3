"""RQ's job lifecycle in three round trips, two of them a Lua script each.

For a job that runs in microseconds, RQ's SimpleWorker spends its time in
Redis round trips (~0.1 ms each) and in the Python around them (redis-py's
work on every command, RQ's objects): fetch the job, register the
execution, mark the job started, write a heartbeat, watch and read the
job's dependents, commit the outcome, set the worker idle, check for
`rq suspend`. LeanWorker writes exactly the same state in two Lua scripts:
START registers the execution and reads the job, FINISH commits a success
and reads what the next loop needs. With the dequeue's BLPOP that is three
round trips per job, and two replies to parse instead of thirty-odd.

Only the success path is scripted. A job that raises, returns Retry, repeats,
is deleted on success (result_ttl=0) or kept for ever goes through RQ's own
code, so retries and failure callbacks behave as RQ documents.
tests/test_lifecycle.py checks that Redis holds the same keys and fields
during and after a job as with RQ's SimpleWorker, for every outcome.
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from base64 import b64encode
from datetime import datetime

from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
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

log = logging.getLogger("sudoku.worker")

# What RQ's Execution.create, Worker.set_state(BUSY), Worker.heartbeat,
# Job.prepare_for_execution and a PERSIST of the job write, in that order,
# then the job as it now stands.
# KEYS: execution, the job's executions, started registry, worker's
#       executions, worker, job[, intermediate queue]
# ARGV: execution id, job id, execution timestamp, worker name, heartbeat
#       ttl, executions score, executions ttl, started score, composite key,
#       worker heartbeat, worker key ttl, job timestamp
START = """
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'job_id', ARGV[2], 'created_at', ARGV[3],
           'last_heartbeat', ARGV[3], 'worker_name', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[8], ARGV[9])
redis.call('SADD', KEYS[4], ARGV[9])
redis.call('EXPIRE', KEYS[4], ARGV[7])
redis.call('HSET', KEYS[5], 'state', 'busy', 'last_heartbeat', ARGV[10])
redis.call('EXPIRE', KEYS[5], ARGV[11])
redis.call('EXPIRE', KEYS[4], ARGV[11])
redis.call('HSET', KEYS[6], 'last_heartbeat', ARGV[12], 'status', 'started', 'started_at', ARGV[12],
           'worker_name', ARGV[4])
redis.call('PERSIST', KEYS[6])
if KEYS[7] then redis.call('LREM', KEYS[7], 1, ARGV[2]) end
return redis.call('HGETALL', KEYS[6])
"""

# What RQ's handle_job_success writes for a result kept result_ttl seconds
# (worker stats, the job finished, its Result, the finished registry, the
# job's expiry, the execution removed, the worker idle), then whether the
# workers are suspended and whether the job has dependents. Unless the
# attempt was superseded (worker/attempt.py): then nothing, and {-1, 0}.
# KEYS: worker, job, results, finished registry, dependents, dependencies,
#       execution, started registry, the job's executions, worker's
#       executions, suspension flag
# ARGV: working time, started_at, ended_at, result ttl, finished score,
#       job id, composite key, execution id, worker name, then the Result's fields
FINISH = """
local owner = redis.call('HMGET', KEYS[2], 'status', 'worker_name')
if owner[1] ~= 'started' or owner[2] ~= ARGV[9] then return {-1, 0} end
redis.call('HINCRBY', KEYS[1], 'successful_job_count', 1)
redis.call('HINCRBYFLOAT', KEYS[1], 'total_working_time', ARGV[1])
redis.call('HSET', KEYS[2], 'status', 'finished', 'started_at', ARGV[2], 'ended_at', ARGV[3],
           'last_heartbeat', ARGV[3])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', '10', '*', unpack(ARGV, 10))
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[5], ARGV[4])
redis.call('EXPIRE', KEYS[6], ARGV[4])
redis.call('DEL', KEYS[7])
redis.call('ZREM', KEYS[8], ARGV[7])
redis.call('ZREM', KEYS[9], ARGV[8])
redis.call('SREM', KEYS[10], ARGV[7])
redis.call('HSET', KEYS[1], 'state', 'idle')
return {redis.call('EXISTS', KEYS[11]), redis.call('EXISTS', KEYS[5])}
"""


def executions_key(job: Job) -> str:
    """The key of RQ's ExecutionRegistry of the job."""
    return ExecutionRegistry.key_template.format(job.id)


DATES = (b"created_at", b"enqueued_at", b"started_at", b"ended_at", b"last_heartbeat")


def restore(job: Job, stored: dict[bytes, bytes]) -> None:
    """Job.restore, with its dates parsed by datetime.fromisoformat: RQ's
    strptime takes 21 µs a date, and a job has four."""
    dates = {name: stored.pop(name) for name in DATES if stored.get(name)}
    job.restore(stored)
    for name, value in dates.items():
        setattr(job, name.decode(), datetime.fromisoformat(value.decode()))


class HeldScript:
    """A Lua script, called on a connection of its own.

    Only the worker's main thread calls it, so it needs no pool: redis-py's
    Script took 144 µs a call here against 65 µs for the same EVALSHA
    written and read on a held connection (its pool, retry and
    observability layers run on every command). Like redis-py it loads the
    script again when Redis has lost it, and retries once on a broken
    connection.
    """

    def __init__(self, redis: Redis, source: str):
        self.redis = redis
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()
        self._connection = None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.disconnect()
            self._connection = None

    def __call__(self, keys: list, args: list):
        command = ("EVALSHA", self.sha, len(keys), *keys, *args)
        reloaded = reconnected = False
        while True:
            if self._connection is None:
                self._connection = self.redis.connection_pool.make_connection()
            connection = self._connection
            try:
                connection.send_packed_command(connection.pack_command(*command))
                return connection.read_response()
            except NoScriptError:
                if reloaded:
                    raise
                self.redis.script_load(self.source)  # Redis restarted, or SCRIPT FLUSH
                reloaded = True
            except (RedisConnectionError, RedisTimeoutError):
                connection.disconnect()
                if reconnected:
                    raise
                reconnected = True


class UnreadQueue(Queue):
    """A queue whose dequeue hands over the job unread: LeanWorker reads it
    in the same round trip that marks it started."""

    # RQ builds a Queue object per dequeued job (~30 µs); they hold no state
    # of the job, so one per queue and worker set-up is kept.
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
        self._start = HeldScript(self.connection, START)
        self._finish = HeldScript(self.connection, FINISH)
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
        job, in one script (START); None if the job no longer exists."""
        ttl = self.get_heartbeat_ttl(job)
        execution = Execution(id=uuid.uuid4().hex, job_id=job.id, connection=self.connection, worker_name=self.name)
        execution._job = job
        self.last_heartbeat = now()
        job_time = utcformat(self.last_heartbeat)
        started_key = self.registry_keys(job.origin)[0]
        keys_ = [execution.key, executions_key(job), started_key, execution.worker_executions_key, self.key, job.key]
        if len(self.queues) == 1:  # RQ dequeued it through its intermediate queue
            keys_.append(queue.intermediate_queue_key)
        stamp = current_timestamp()
        args = [execution.id, job.id, execution.created_at.timestamp(), self.name, ttl, stamp + ttl + 60, ttl + 60,
                stamp + ttl, execution.composite_key, job_time, self.worker_key_ttl(ttl), job_time]
        stored = self._start(keys=keys_, args=args)
        self._state = WorkerStatus.BUSY
        self._renewed_at = time.monotonic()
        self.executions[execution.id] = execution
        stored = dict(zip(stored[::2], stored[1::2]))
        if b"data" not in stored:
            self._forget(job, execution)
            return None
        restore(job, stored)
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
        fields = self._result_fields(job, execution) if result_ttl and result_ttl > 0 and not job.repeats_left else None
        if fields is None:
            self._pay_heartbeat(job)
            return super().handle_job_success(job, queue, started_job_registry, execution)
        self._heartbeat_owed = 0  # written by the script
        started_key, finished_key = self.registry_keys(job.origin)
        keys_ = [self.key, job.key, Result.get_key(job.id), finished_key, job.dependents_key, job.dependencies_key,
                 execution.key, started_key, executions_key(job), execution.worker_executions_key, WORKERS_SUSPENDED]
        working = (job.ended_at - job.started_at).total_seconds()
        args = [working, utcformat(job.started_at), utcformat(job.ended_at), result_ttl,
                current_timestamp() + result_ttl, job.id, execution.composite_key, execution.id, self.name, *fields]
        suspended, has_dependents = self._finish(keys=keys_, args=args)
        if suspended == -1:
            log.warning("job %s: this attempt was superseded while it stalled; its result is dropped", job.id)
            self.drop(job, execution)
            return
        self.executions.pop(execution.id, None)
        self._state = WorkerStatus.IDLE
        job._status = JobStatus.FINISHED
        self._suspended = bool(suspended)
        if has_dependents:
            self._enqueue_dependents_safely(queue, job)
        release_slot(job)

    def register_death(self):
        super().register_death()
        # The scripts' connections are the worker's own, outside its pool.
        self._start.close()
        self._finish.close()

    def owns(self, job: Job) -> bool:
        """Whether the job is still this worker's to finish (worker/attempt.py)."""
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
