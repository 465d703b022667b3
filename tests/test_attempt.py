"""worker/run/attempt.py and the fenced result in worker/run/lifecycle.py: an
attempt whose job was handed to another attempt (or ended) writes nothing
more, neither frames, nor the plan, nor a result.

The end-to-end version, with a worker stopped by SIGSTOP and continued
after its job was retried elsewhere, is in tests/test_faults.py."""

from __future__ import annotations

import uuid

import pytest
from redis import Redis
from rq import Queue
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from sudoku import keys
from sudoku.v1 import sudoku_pb2 as pb
from tests.stack import started_attempt
from worker.run.attempt import Superseded
from worker.run.lifecycle import LeanWorker
from worker.stream import FrameSink

QUEUE = "attempt"


def frame(seq: int) -> tuple[int, bytes]:
    return seq, pb.Frame(seq=seq).SerializeToString()


@pytest.fixture
def job_id(redis) -> str:
    job_id = uuid.uuid4().hex
    yield job_id
    redis.delete(Job.key_for(job_id), keys.frames(job_id), keys.plan(job_id), keys.cancel(job_id))


def test_the_running_attempt_appends_and_skips_what_exists(redis, job_id):
    attempt = started_attempt(redis, job_id)
    assert attempt.append([frame(1), frame(2)], maxlen=100) is False
    assert attempt.append([frame(2), frame(3)], maxlen=100) is False  # seq 2 is there: skipped
    assert [keys.seq_of(i) for i, _ in redis.xrange(keys.frames(job_id))] == [1, 2, 3]
    redis.set(keys.cancel(job_id), 1)
    assert attempt.cancelled() is True
    assert attempt.append([frame(4)], maxlen=100) is True


@pytest.mark.parametrize("status, owner", [
    ("queued", "w1"),  # the cleanup requeued the job while its worker stalled
    ("started", "w2"),  # another worker runs it now
    ("finished", "w2"),  # and finished it
    ("failed", "w1"),  # or it was given up
])
def test_a_superseded_attempt_writes_nothing(redis, job_id, status, owner):
    attempt = started_attempt(redis, job_id, "w1")
    attempt.append([frame(1)], maxlen=100)
    redis.hset(Job.key_for(job_id), mapping={"status": status, "worker_name": owner})
    for write in (lambda: attempt.append([frame(2)], maxlen=100), attempt.cancelled,
                  lambda: attempt.set_plan(60, total=5, outcome="solved")):
        with pytest.raises(Superseded):
            write()
    assert redis.xlen(keys.frames(job_id)) == 1
    assert not redis.exists(keys.plan(job_id))


def test_a_frame_sink_stops_at_the_fence(redis, job_id):
    attempt = started_attempt(redis, job_id, "w1")
    sink = FrameSink(attempt, maxlen=100, ttl_seconds=60, first_seq=1)
    sink.add(pb.Frame())
    sink.flush()
    redis.hset(Job.key_for(job_id), "worker_name", "w2")
    sink.add(pb.Frame())
    with pytest.raises(Superseded):
        sink.close()
    assert redis.xlen(keys.frames(job_id)) == 1


def take_over(x: int) -> int:
    """A job during which another worker takes the job over, as the cleanup
    and a second worker would while this one stalled."""
    from rq import get_current_job

    job = get_current_job()
    job.connection.hset(job.key, "worker_name", "the-other-worker")
    return x


def test_a_superseded_attempt_records_no_result(redis_url):
    redis = Redis.from_url(redis_url)
    queue = Queue(QUEUE, connection=redis, serializer=JSONSerializer)
    job = queue.enqueue_call(take_over, args=(1,), job_id="fence-result", result_ttl=300)
    worker = LeanWorker([QUEUE], connection=redis, serializer=JSONSerializer)
    try:
        worker.work(burst=True, logging_level="ERROR")
        job.refresh()
        assert job.get_status() == JobStatus.STARTED  # the other attempt's to finish
        assert job.latest_result() is None
        assert worker.executions == {}
        assert redis.smembers(worker.executions_key) == set()
        assert redis.keys(f"rq:execution:{job.id}:*") == []
    finally:
        redis.delete(job.key, *redis.keys(f"rq:*{job.id}*"))
        redis.close()
