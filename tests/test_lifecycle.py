"""worker/run/lifecycle.py: LeanWorker leaves Redis as RQ's SimpleWorker does,
during a job and after it, whatever the job does (succeeds, with its result
kept or deleted, fails, is retried, has vanished, has dependents, suspends the workers).

Each case runs the same jobs, with the same ids, once under each worker
class on a Redis of its own, and compares every key (tests/rqstate.py):
type, contents, time to live, and sorted sets' scores. Each runs twice:
on one queue in burst mode, where RQ dequeues through its intermediate
queue (LMOVE), and on two queues blocking, as in production, where RQ
dequeues with BLPOP.
"""

from __future__ import annotations

import signal
import threading
import time

import pytest
from redis import Redis
from rq import Callback, Queue, Retry, SimpleWorker
from rq.intermediate_queue import IntermediateQueue
from rq.job import Job, JobStatus
from rq.registry import FinishedJobRegistry
from rq.results import Result
from rq.serializers import JSONSerializer
from rq.suspension import suspend

from launcher.embedded_redis import EmbeddedRedis
from tests.rqstate import look
from tests.stack import until
from worker.run.lifecycle import LeanWorker, PromptTeardown

pytestmark = pytest.mark.rq

QUEUE = "lifecycle"
WORKER = "w1"
# The two ways RQ dequeues: burst mode on one queue (LMOVE through an
# intermediate queue), and blocking on two (BLPOP), which is production's.
LAYOUTS = {"one queue, burst": ([QUEUE], True), "two queues, blocking": ([f"{QUEUE}-first", QUEUE], False)}

during: list[tuple[str, dict]] = []  # (job id, what the running job saw), per job and run
failures: list[str] = []  # job ids whose on_failure callback ran


# Job functions, run in the worker (this process, burst mode).


def succeed(x: int) -> dict:
    from rq import get_current_job

    job = get_current_job()
    during.append((job.id, look(job.connection)))
    return {"double": 2 * x}


def fail(x: int) -> None:
    raise ValueError(f"no {x}")


def record_failure(job, connection, exc_type, exc_value, traceback) -> None:
    failures.append(job.id)


def suspend_workers(x: int) -> int:
    from rq import get_current_job

    suspend(get_current_job().connection)
    return x


def lose_scripts_and_connections(x: int) -> int:
    """What a Redis restart does to a worker mid-job: its scripts are gone
    and its connections are closed."""
    from rq import get_current_job

    redis = get_current_job().connection
    redis.script_flush()
    redis.client_kill_filter(_type="normal", skipme=False)
    return x


@pytest.fixture(autouse=True)
def signal_handlers():
    """The workers here run in the test process and install RQ's SIGINT and
    SIGTERM handlers; the next tests must not inherit them."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


class UntilEmpty:
    """A worker that stops when its queues are empty, and when the workers
    are suspended, instead of waiting: blocking otherwise, so that RQ
    dequeues as in production."""

    def dequeue_job_and_maintain_ttl(self, timeout, max_idle_time=None):
        if timeout is not None:
            if not any(self.connection.llen(queue.key) for queue in self.queues):
                return None
            # Were a job taken from under it, BLPOP waits one second, not minutes.
            timeout = max_idle_time = 1
        return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)

    def check_for_suspension(self, burst: bool):
        super().check_for_suspension(True)


class UntilEmptySimpleWorker(UntilEmpty, PromptTeardown, SimpleWorker):
    """RQ's own worker, but for its teardown's wait (which writes nothing):
    a teardown of a minute made the keys' TTLs differ by a minute."""


class UntilEmptyLeanWorker(UntilEmpty, LeanWorker):
    pass


@pytest.fixture(params=list(LAYOUTS))
def layout(request) -> tuple[list[str], bool]:
    """(queue names, burst)."""
    return LAYOUTS[request.param]


def run_under_both(fresh_redis, layout, setup) -> tuple[dict, dict]:
    """Runs `setup(queues)`'s jobs under SimpleWorker, then LeanWorker;
    returns what each left in Redis."""
    names, burst = layout
    states = []
    for worker_class in (UntilEmptySimpleWorker, UntilEmptyLeanWorker):
        redis = fresh_redis()
        setup([Queue(name, connection=redis, serializer=JSONSerializer) for name in names])
        worker = worker_class(names, name=WORKER, connection=redis, serializer=JSONSerializer)
        worker.work(burst=burst, logging_level="ERROR")
        states.append(look(redis))
    return states[0], states[1]


def test_jobs_that_succeed(fresh_redis, layout):
    """One job on each queue (the same one, for one queue)."""
    during.clear()

    def setup(queues):
        queues[-1].enqueue_call(succeed, args=(21,), job_id="job-ok", result_ttl=300)
        queues[0].enqueue_call(succeed, args=(22,), job_id="job-first", result_ttl=600)

    rq_after, lean_after = run_under_both(fresh_redis, layout, setup)
    assert len(during) == 4
    assert during[2:] == during[:2]
    assert lean_after == rq_after
    for job_id, state in during:
        assert state[Job.key_for(job_id).encode()][1][b"status"] == JobStatus.STARTED.value.encode()
    for job_id in ("job-ok", "job-first"):
        assert lean_after[Job.key_for(job_id).encode()][1][b"status"] == JobStatus.FINISHED.value.encode()


def test_jobs_deleted_on_success(fresh_redis, layout):
    """result_ttl=0, as the jobs that answer on an inbox are (service/jobs/calls.py)."""
    def setup(queues):
        queues[-1].enqueue_call(succeed, args=(21,), job_id="job-gone-ok", result_ttl=0)
        queues[0].enqueue_call(succeed, args=(22,), job_id="job-gone-first", result_ttl=0)

    rq_after, lean_after = run_under_both(fresh_redis, layout, setup)
    assert lean_after == rq_after
    for job_id in ("job-gone-ok", "job-gone-first"):
        assert Job.key_for(job_id).encode() not in lean_after
        assert Result.get_key(job_id).encode() not in lean_after


def test_a_job_deleted_on_success_takes_the_script_not_rqs_transaction(fresh_redis):
    redis = fresh_redis()
    Queue(QUEUE, connection=redis, serializer=JSONSerializer).enqueue_call(succeed, args=(1,), result_ttl=0)
    redis.config_resetstat()
    LeanWorker([QUEUE], connection=redis, serializer=JSONSerializer).work(burst=True, logging_level="ERROR")
    assert redis.info("stats")["total_commands_processed"] > 0
    assert "cmdstat_watch" not in redis.info("commandstats")  # RQ's handle_job_success WATCHes the dependents


def test_a_job_deleted_on_success_with_dependents_enqueues_them(fresh_redis, layout):
    def setup(queues):
        first = queues[-1].enqueue_call(succeed, args=(1,), job_id="job-first", result_ttl=0)
        queues[0].enqueue_call(succeed, args=(2,), job_id="job-then", depends_on=first, result_ttl=300)

    rq_after, lean_after = run_under_both(fresh_redis, layout, setup)
    assert lean_after == rq_after
    assert Job.key_for("job-first").encode() not in lean_after
    assert lean_after[Job.key_for("job-then").encode()][1][b"status"] == JobStatus.FINISHED.value.encode()


def test_rq_reads_back_the_result_and_registries(fresh_redis):
    redis = fresh_redis()
    queue = Queue(QUEUE, connection=redis, serializer=JSONSerializer)
    queue.enqueue_call(succeed, args=(4,), job_id="job-read", result_ttl=300)
    LeanWorker([QUEUE], connection=redis, serializer=JSONSerializer).work(burst=True, logging_level="ERROR")
    job = Job.fetch("job-read", connection=redis, serializer=JSONSerializer)
    assert job.get_status() == JobStatus.FINISHED
    assert job.latest_result().type == Result.Type.SUCCESSFUL
    assert job.return_value() == {"double": 8}
    assert "job-read" in FinishedJobRegistry(QUEUE, connection=redis)
    assert queue.started_job_registry.get_job_ids() == []


def test_a_job_that_fails_is_retried_then_fails_with_its_callback(fresh_redis, layout):
    failures.clear()

    def setup(queues):
        queues[-1].enqueue_call(fail, args=(1,), job_id="job-fail", retry=Retry(max=1), failure_ttl=300,
                           on_failure=Callback(record_failure))

    rq_after, lean_after = run_under_both(fresh_redis, layout, setup)
    assert lean_after == rq_after
    assert failures == ["job-fail"] * 4  # each attempt, under each class
    stored = lean_after[Job.key_for("job-fail").encode()][1]
    assert stored[b"status"] == JobStatus.FAILED.value.encode()


def test_a_job_that_vanished_while_queued_is_skipped(fresh_redis, layout):
    def setup(queues):
        queues[-1].enqueue_call(succeed, args=(1,), job_id="job-gone")
        queues[-1].enqueue_call(succeed, args=(2,), job_id="job-next", result_ttl=300)
        queues[-1].connection.delete(Job.key_for("job-gone"))

    rq_after, lean_after = run_under_both(fresh_redis, layout, setup)
    if len(layout[0]) == 1:
        # RQ leaves the vanished id in the intermediate queue (one queue: it
        # dequeues with LMOVE) for its maintenance to remove; LeanWorker's
        # start has removed it already.
        intermediate = IntermediateQueue.get_intermediate_queue_key(Queue.redis_queue_namespace_prefix + QUEUE)
        assert rq_after.pop(intermediate.encode())[1] == [b"job-gone"]
    assert lean_after == rq_after
    assert Job.key_for("job-gone").encode() not in lean_after


def test_dependents_are_enqueued_when_their_dependency_finishes(fresh_redis, layout):
    def setup(queues):
        first = queues[-1].enqueue_call(succeed, args=(1,), job_id="job-first", result_ttl=300)
        queues[0].enqueue_call(succeed, args=(2,), job_id="job-then", depends_on=first, result_ttl=300)

    rq_after, lean_after = run_under_both(fresh_redis, layout, setup)
    assert lean_after == rq_after
    assert lean_after[Job.key_for("job-then").encode()][1][b"status"] == JobStatus.FINISHED.value.encode()


def test_a_suspension_during_a_job_stops_the_next_one(fresh_redis, layout):
    def setup(queues):
        queues[-1].enqueue_call(suspend_workers, args=(1,), job_id="job-suspend", result_ttl=300)
        queues[-1].enqueue_call(succeed, args=(2,), job_id="job-later", result_ttl=300)

    rq_after, lean_after = run_under_both(fresh_redis, layout, setup)
    assert lean_after == rq_after
    assert lean_after[Job.key_for("job-later").encode()][1][b"status"] == JobStatus.QUEUED.value.encode()


def test_redis_going_away_as_a_job_starts_does_not_end_the_worker():
    """RQ rides out an outage while it reads a job; so must LeanWorker, which
    reads it when it starts it. (The job itself is worker/run/recovery.py's.)"""
    server = EmbeddedRedis().start()
    redis = Redis.from_url(server.url)
    queue = Queue(QUEUE, connection=redis, serializer=JSONSerializer)
    queue.enqueue_call(succeed, args=(1,), job_id="job-outage")
    killed, done = threading.Event(), threading.Event()

    def restart() -> None:
        killed.wait()
        time.sleep(0.5)  # the worker's first look is 1 s after the failure
        server.start()
        # Nothing is persisted: the restarted Redis is empty. A job for after.
        queue.enqueue_call(succeed, args=(2,), job_id="job-after", result_ttl=300)
        done.wait()  # redis-server dies with the thread that started it

    class Outage(LeanWorker):
        def start_job(self, job, queue):
            if not killed.is_set():
                server.kill()
                killed.set()
            return super().start_job(job, queue)

    helper = threading.Thread(target=restart)
    helper.start()
    try:
        worker = Outage([QUEUE], connection=redis, serializer=JSONSerializer)
        assert worker.work(burst=True, logging_level="CRITICAL")
        assert Job.fetch("job-after", connection=redis, serializer=JSONSerializer).get_status() == JobStatus.FINISHED
    finally:
        done.set()
        helper.join(10)
        redis.close()
        server.stop()


def test_lost_scripts_and_connections_are_recovered_on_the_next_call(fresh_redis, layout):
    names, burst = layout
    redis = fresh_redis()
    queue = Queue(names[-1], connection=redis, serializer=JSONSerializer)
    queue.enqueue_call(lose_scripts_and_connections, args=(1,), job_id="job-lose", result_ttl=300)
    queue.enqueue_call(succeed, args=(2,), job_id="job-next", result_ttl=300)
    UntilEmptyLeanWorker(names, connection=redis, serializer=JSONSerializer).work(burst=burst, logging_level="ERROR")
    for job_id in ("job-lose", "job-next"):
        job = Job.fetch(job_id, connection=redis, serializer=JSONSerializer)
        assert job.get_status() == JobStatus.FINISHED, job_id
        assert job.latest_result().type == Result.Type.SUCCESSFUL


def test_a_worker_ends_at_once_whatever_its_pubsub_thread_was_doing(redis):
    """The teardown's race: the pub/sub thread read the unsubscribe's reply
    and waits for a subscription again before its stop is asked for (RQ's
    own worker, under redis-py 8.2, then waited a minute for it)."""
    worker = LeanWorker([QUEUE], connection=redis, serializer=JSONSerializer)
    worker.subscribe()
    worker.pubsub.unsubscribe()
    until(lambda: not worker.pubsub.subscribed, "the thread read the unsubscribe's reply")
    ended = threading.Event()
    threading.Thread(target=lambda: (worker.unsubscribe(), ended.set()), daemon=True).start()
    # A bound many times what it takes (under PUBSUB_WAKE_S), well under the minute of the race.
    assert ended.wait(10 * PromptTeardown.PUBSUB_WAKE_S), "the teardown waited on the pub/sub thread"
    assert not worker.pubsub_thread.is_alive()
