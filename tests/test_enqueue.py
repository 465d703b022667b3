"""service/enqueue.py writes the same job RQ's own enqueue writes, refuses
exactly at the bound, writes frame 1 with the job, and queues nothing when
the cache holds the reply."""

from __future__ import annotations

import asyncio
import uuid
import zlib

import pytest
from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from rq import Callback, Queue, Retry
from rq.job import Job
from rq.serializers import JSONSerializer

from service.embedded_redis import EmbeddedRedis
from service.enqueue import Claim, Enqueued, Enqueuer, RequestIdReused
from sudoku import keys

# Fields that differ between any two enqueues of the same call.
VARYING = {"created_at", "enqueued_at", "last_heartbeat"}


def run(coro):
    return asyncio.run(coro)


async def enqueue(redis_url, queue, bound, *args, **options):
    client = AsyncRedis.from_url(redis_url)
    enqueuer = Enqueuer(client)
    try:
        return await enqueuer.enqueue(queue, bound, *args, **options)
    finally:
        await enqueuer.close()
        await client.aclose()


def test_the_job_is_the_one_rq_would_have_written(redis, redis_url):
    """Several jobs through one Enqueuer: the first builds the template of
    its options, the others reuse it (options made afresh, as the service
    does) or make their own."""
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)

    def options(timeout=70):
        return dict(timeout=timeout, result_ttl=60, failure_ttl=60, retry=Retry(max=3),
                    on_failure=Callback("worker.jobs.on_solve_failure"))

    calls = [
        ("worker.jobs.count", {"board": "." * 81, "limit": 2}, options()),
        ("worker.jobs.count", {"board": "1" + "." * 80, "limit": 3}, options()),
        ("worker.jobs.count", {"board": "é" * 81, "limit": 2, "note": "x" * 200}, options()),
        ("worker.jobs.count", {"board": "." * 81}, options(timeout=5)),
        ("worker.jobs.hint", {"givens": "." * 81}, dict(timeout=70, result_ttl=60)),
    ]

    async def ours_all():
        client = AsyncRedis.from_url(redis_url)
        try:
            enqueuer, ids = Enqueuer(client), []
            for func, args, opts in calls:
                ids.append(uuid.uuid4().hex)
                assert (await enqueuer.enqueue(queue, 100, func, args, ids[-1], **opts)).queued
            return ids
        finally:
            await enqueuer.close()
            await client.aclose()

    ours = run(ours_all())
    for job_id, (func, args, opts) in zip(ours, calls):
        theirs = uuid.uuid4().hex
        queue.enqueue_call(func, args=(args,), job_id=theirs, **opts)
        mine, rqs = (redis.hgetall(Job.key_for(i)) for i in (job_id, theirs))
        for stored in mine, rqs:  # compressed alike, not byte for byte (see service.enqueue.compress)
            stored[b"data"] = zlib.decompress(stored[b"data"])
        assert {k: v for k, v in mine.items() if k.decode() not in VARYING} == {
            k: v for k, v in rqs.items() if k.decode() not in VARYING}
        assert Job.fetch(job_id, connection=redis, serializer=JSONSerializer).args == [args]
    assert queue.job_ids[:len(ours)] == ours
    assert queue.key.encode() in redis.smembers(queue.redis_queues_keys)


def test_a_full_queue_is_refused_and_nothing_is_written(redis, redis_url):
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    for _ in range(2):
        assert run(enqueue(redis_url, queue, 2, "worker.jobs.count", {}, uuid.uuid4().hex))[0]
    refused = uuid.uuid4().hex
    claim = Claim(keys.request(refused), "print", 60)
    assert run(enqueue(redis_url, queue, 2, "worker.jobs.count", {}, refused,
                       stream=keys.frames(refused), first_frame=b"x", claim=claim)) == Enqueued(False, 2)
    assert not redis.exists(Job.key_for(refused), keys.frames(refused), claim.key)
    assert queue.count == 2


def test_a_request_id_is_claimed_with_its_job_and_only_while_its_stream_lives(redis, redis_url):
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    first, second, third = (uuid.uuid4().hex for _ in range(3))
    claim = Claim(keys.request(f"claim-{first}"), "print", 60)

    def solve(job_id: str, fingerprint: str = "print") -> Enqueued:
        return run(enqueue(redis_url, queue, 10, "worker.jobs.solve", {}, job_id, stream=keys.frames(job_id),
                           first_frame=b"x", claim=claim._replace(fingerprint=fingerprint)))

    assert solve(first).queued
    assert redis.get(claim.key) == f"{first} print".encode() and 0 < redis.ttl(claim.key) <= 60
    assert solve(second) == Enqueued(False, 0, attached=first)  # a retry: nothing queued
    with pytest.raises(RequestIdReused):
        solve(second, "another print")
    redis.delete(keys.frames(first))  # its stream expired
    assert solve(third).queued
    assert redis.get(claim.key) == f"{third} print".encode()
    assert queue.job_ids == [first, third]


def test_frame_one_is_written_with_the_job(redis, redis_url):
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    job_id = uuid.uuid4().hex
    run(enqueue(redis_url, queue, 5, "worker.jobs.solve", {}, job_id, stream=keys.frames(job_id), first_frame=b"hdr"))
    assert redis.xrange(keys.frames(job_id)) == [(b"0-1", {b"f": b"hdr"})]
    assert 0 < redis.ttl(keys.frames(job_id)) <= 86_400


def test_a_cached_reply_is_returned_instead_of_a_job(redis, redis_url):
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    key = keys.cache(uuid.uuid4().hex)
    missed = uuid.uuid4().hex
    assert run(enqueue(redis_url, queue, 5, "worker.jobs.count", {}, missed, cached=key)) == Enqueued(True, 0)
    redis.set(key, b'{"count": 1}', ex=30)
    hit = uuid.uuid4().hex
    assert run(enqueue(redis_url, queue, 5, "worker.jobs.count", {}, hit, cached=key)) == Enqueued(False, 0, b'{"count": 1}')
    assert queue.job_ids == [missed]
    assert not redis.exists(Job.key_for(hit))
    # A full queue does not refuse what the cache can answer.
    assert run(enqueue(redis_url, queue, 1, "worker.jobs.count", {}, uuid.uuid4().hex, cached=key)).cached


def test_the_service_reads_results_as_rq_does():
    """service.jobs.read_result against Result.restore, for each kind of
    entry a worker writes (a value, no value, an error)."""
    from rq.results import Result

    from service.jobs import read_result

    entries = [
        Result(job_id="job", type=Result.Type.SUCCESSFUL, connection=None, serializer=JSONSerializer,
               return_value={"count": 1, "solution": "1" * 81}, worker_name="w"),
        Result(job_id="job", type=Result.Type.SUCCESSFUL, connection=None, serializer=JSONSerializer,
               return_value=None),
        Result(job_id="job", type=Result.Type.FAILED, connection=None, serializer=JSONSerializer,
               exc_string="Traceback ...\nValueError: no"),
    ]
    for entry in entries:
        payload = {k.encode(): str(v).encode() for k, v in entry.serialize().items()}
        rq = Result.restore("job", "1-0", payload, connection=None, serializer=JSONSerializer)
        assert read_result(payload) == (rq.type, rq.return_value, rq.exc_string)


def test_a_lost_script_a_killed_connection_and_a_cancelled_call_are_survived():
    # A Redis of its own: killing every client of the shared one would cut
    # the other tests' service off too.
    server = EmbeddedRedis().start()
    redis = Redis.from_url(server.url)
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    key = keys.cache(uuid.uuid4().hex)
    redis.set(key, b"cached", ex=60)

    async def go():
        client = AsyncRedis.from_url(server.url)
        enqueuer = Enqueuer(client, slots=1)  # one connection, reused by every call
        try:
            assert (await enqueuer.enqueue(queue, 100, "worker.jobs.count", {}, uuid.uuid4().hex)).queued
            redis.script_flush()  # what a Redis restart does: the script is gone...
            redis.client_kill_filter(_type="normal", skipme=True)  # ...and so is the connection
            assert (await enqueuer.enqueue(queue, 100, "worker.jobs.count", {}, uuid.uuid4().hex)).queued
            for steps in range(1, 6):  # cancelled at different points of the call
                call = asyncio.create_task(enqueuer.enqueue(queue, 100, "worker.jobs.count", {}, uuid.uuid4().hex))
                for _ in range(steps):
                    await asyncio.sleep(0)
                call.cancel()
                await asyncio.gather(call, return_exceptions=True)
                # The next call reads its own reply, not the cancelled one's.
                assert (await enqueuer.enqueue(queue, 100, "worker.jobs.count", {}, "x", cached=key)).cached == b"cached"
        finally:
            await enqueuer.close()
            await client.aclose()

    try:
        run(go())
    finally:
        redis.close()
        server.stop()
