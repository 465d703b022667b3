"""service/enqueue.py writes the same job RQ's own enqueue writes, refuses
exactly at the bound, and writes frame 1 with the job."""

from __future__ import annotations

import asyncio
import uuid

from redis.asyncio import Redis as AsyncRedis
from rq import Callback, Queue, Retry
from rq.job import Job
from rq.serializers import JSONSerializer

from service.enqueue import Enqueuer
from sudoku import keys

# Fields that differ between any two enqueues of the same call.
VARYING = {"created_at", "enqueued_at", "last_heartbeat"}


def run(coro):
    return asyncio.run(coro)


async def enqueue(redis_url, queue, bound, *args, **options):
    client = AsyncRedis.from_url(redis_url)
    try:
        return await Enqueuer(client).enqueue(queue, bound, *args, **options)
    finally:
        await client.aclose()


def test_the_job_is_the_one_rq_would_have_written(redis, redis_url):
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    options = dict(timeout=70, result_ttl=60, failure_ttl=60, retry=Retry(max=3),
                   on_failure=Callback("worker.jobs.on_solve_failure"))
    args = {"board": "." * 81, "limit": 2}
    ours, theirs = uuid.uuid4().hex, uuid.uuid4().hex
    assert run(enqueue(redis_url, queue, 10, "worker.jobs.count", args, ours, **options)) == (True, 0)
    queue.enqueue_call("worker.jobs.count", args=(args,), job_id=theirs, **options)
    mine = Job.fetch(ours, connection=redis, serializer=JSONSerializer).to_dict()
    rqs = Job.fetch(theirs, connection=redis, serializer=JSONSerializer).to_dict()
    assert {k: v for k, v in mine.items() if k not in VARYING} == {k: v for k, v in rqs.items() if k not in VARYING}
    assert queue.job_ids == [ours, theirs]
    assert queue.key.encode() in redis.smembers(queue.redis_queues_keys)


def test_a_full_queue_is_refused_and_nothing_is_written(redis, redis_url):
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    for _ in range(2):
        assert run(enqueue(redis_url, queue, 2, "worker.jobs.count", {}, uuid.uuid4().hex))[0]
    refused = uuid.uuid4().hex
    assert run(enqueue(redis_url, queue, 2, "worker.jobs.count", {}, refused,
                       stream=keys.frames(refused), first_frame=b"x")) == (False, 2)
    assert not redis.exists(Job.key_for(refused), keys.frames(refused))
    assert queue.count == 2


def test_frame_one_is_written_with_the_job(redis, redis_url):
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    job_id = uuid.uuid4().hex
    run(enqueue(redis_url, queue, 5, "worker.jobs.solve", {}, job_id, stream=keys.frames(job_id), first_frame=b"hdr"))
    assert redis.xrange(keys.frames(job_id)) == [(b"0-1", {b"f": b"hdr"})]
    assert 0 < redis.ttl(keys.frames(job_id)) <= 86_400
