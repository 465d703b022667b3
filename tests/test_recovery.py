"""worker/run/recovery.py: a job taken off its queue by a worker that died
before registering it is found and queued again; nothing else is touched.
On a Redis of its own, so the session's workers do not recover first."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from rq import Queue
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from launcher.embedded_redis import EmbeddedRedis
from service.jobs.enqueue import Enqueuer
from sudoku import keys
from worker.run.recovery import GRACE, recover_lost_jobs


@pytest.fixture
def own_redis():
    server = EmbeddedRedis().start()
    client = Redis.from_url(server.url)
    yield server.url, client
    client.close()
    server.stop()


def queue_job(url: str, queue: Queue) -> str:
    async def go() -> str:
        client = AsyncRedis.from_url(url)
        job_id = uuid.uuid4().hex
        enqueuer = Enqueuer(client)
        await enqueuer.enqueue(queue, 100, "worker.jobs.part", {}, job_id)
        await enqueuer.close()
        await client.aclose()
        return job_id

    return asyncio.run(go())


def test_a_job_popped_by_a_worker_that_died_is_queued_again(own_redis):
    url, redis = own_redis
    queue = Queue("q", connection=redis, serializer=JSONSerializer)
    job_id = queue_job(url, queue)
    assert redis.lpop(queue.key).decode() == job_id  # a worker took it, then died
    later = time.time() + GRACE + 1
    assert recover_lost_jobs(redis, now=later) == 0  # first look: a suspect
    assert recover_lost_jobs(redis, now=later + 1) == 1  # still missing: queued again
    assert queue.job_ids == [job_id]
    assert Job.fetch(job_id, connection=redis, serializer=JSONSerializer).get_status() == JobStatus.QUEUED


def test_jobs_on_their_queue_or_ended_are_left_alone(own_redis):
    url, redis = own_redis
    queue = Queue("q", connection=redis, serializer=JSONSerializer)
    waiting, ended = queue_job(url, queue), queue_job(url, queue)
    redis.lrem(queue.key, 1, ended)
    redis.hset(Job.key_for(ended), "status", JobStatus.FINISHED.value)
    later = time.time() + GRACE + 1
    assert recover_lost_jobs(redis, now=later) == 0
    assert recover_lost_jobs(redis, now=later + 1) == 0
    assert queue.job_ids == [waiting]
    assert redis.zscore(keys.PENDING, ended) is None  # struck off
    assert redis.zscore(keys.PENDING, waiting) is not None  # still watched


def test_a_young_job_is_not_looked_at(own_redis):
    url, redis = own_redis
    queue = Queue("q", connection=redis, serializer=JSONSerializer)
    job_id = queue_job(url, queue)
    redis.lpop(queue.key)  # popped a moment ago: its worker may be registering it now
    for _ in range(2):
        assert recover_lost_jobs(redis) == 0
    assert queue.job_ids == []
    assert not redis.hexists(keys.SUSPECTS, job_id)
