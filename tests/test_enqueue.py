"""service/jobs/enqueue.py writes what RQ's own enqueue writes, refuses options
it cannot write, refuses exactly at the bound, writes frame 1 with the job,
queues nothing when the cache holds the reply, and survives a lost script,
a killed connection and a cancelled call; service/jobs/waiting.py reads RQ's
results as RQ does."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from redis.asyncio import Redis as AsyncRedis
from rq import Callback, Queue, Retry
from rq.job import Job
from rq.serializers import JSONSerializer

from service.jobs.enqueue import Claim, Enqueued, Enqueuer, RequestIdReused
from sudoku import keys
from tests.rqstate import look
from tests.stack import url_of

pytestmark = pytest.mark.rq

QUEUE = "enqueue"


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


def rq_options(timeout: int = 70) -> dict:
    """The service's options for a count (service/jobs/queueing.py), made afresh
    each time as the service does."""
    return dict(timeout=timeout, result_ttl=60, failure_ttl=60, retry=Retry(max=3),
                on_failure=Callback("worker.jobs.on_solve_failure"))


# (function, its argument, enqueue_call's options): every supported option,
# the same options twice (the second job reuses the first one's template),
# a description RQ truncates, and RQ's defaults.
CALLS = [
    ("worker.jobs.part", {"board": "." * 81, "limit": 2}, rq_options),
    ("worker.jobs.part", {"board": "1" + "." * 80, "limit": 3}, rq_options),
    ("worker.jobs.part", {"board": "é" * 81, "limit": 2, "note": "x" * 200}, rq_options),
    ("worker.jobs.part", {"board": "." * 81}, lambda: rq_options(timeout=5)),
    ("worker.jobs.calls", {"givens": "." * 81}, lambda: dict(timeout=70, result_ttl=60)),
    ("worker.jobs.solve", {"board": "." * 81}, lambda: dict(
        meta={"from": "test"}, retry=Retry(max=2, interval=[1, 5]), on_success=Callback("worker.jobs.solve"),
        on_stopped=Callback("worker.jobs.on_solve_failure"))),
    ("worker.jobs.part", {}, dict),
]


def test_redis_holds_what_rqs_own_enqueue_writes(fresh_redis):
    """The same jobs, with the same ids, through one Enqueuer and through
    RQ's enqueue_call, each on a Redis of its own: every key is the same
    (tests/rqstate.py), but for the note for worker/run/recovery.py."""
    ours, theirs = fresh_redis(), fresh_redis()
    job_ids = [f"job-{i}" for i in range(len(CALLS))]

    async def enqueue_ours():
        client = AsyncRedis.from_url(url_of(ours))
        enqueuer = Enqueuer(client)
        queue = Queue(QUEUE, connection=ours, serializer=JSONSerializer)
        try:
            for job_id, (func, args, options) in zip(job_ids, CALLS):
                assert (await enqueuer.enqueue(queue, 100, func, args, job_id, **options())).queued
        finally:
            await enqueuer.close()
            await client.aclose()

    run(enqueue_ours())
    queue = Queue(QUEUE, connection=theirs, serializer=JSONSerializer)
    for job_id, (func, args, options) in zip(job_ids, CALLS):
        queue.enqueue_call(func, args=(args,), job_id=job_id, **options())
    assert look(ours, exclude={keys.PENDING.encode()}) == look(theirs)
    assert ours.zrange(keys.PENDING, 0, -1) == [job_id.encode() for job_id in job_ids]
    for job_id, (func, args, _) in zip(job_ids, CALLS):
        job = Job.fetch(job_id, connection=ours, serializer=JSONSerializer)
        assert (job.func_name, job.args) == (func, [args])


@pytest.mark.parametrize("option", [
    dict(ttl=60), dict(depends_on="job-before"), dict(at_front=True), dict(description="mine"), dict(unique=True),
])
def test_options_it_does_not_write_are_refused(redis, redis_url, option):
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    job_id = uuid.uuid4().hex
    with pytest.raises(TypeError, match=f"does not support enqueue_call's {next(iter(option))}; it supports"):
        run(enqueue(redis_url, queue, 10, "worker.jobs.part", {}, job_id, **option, timeout=70))
    assert queue.count == 0 and not redis.exists(Job.key_for(job_id))


def test_a_full_queue_is_refused_and_nothing_is_written(redis, redis_url):
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    for _ in range(2):
        assert run(enqueue(redis_url, queue, 2, "worker.jobs.part", {}, uuid.uuid4().hex))[0]
    refused = uuid.uuid4().hex
    claim = Claim(keys.request(refused), "print", 60)
    assert run(enqueue(redis_url, queue, 2, "worker.jobs.part", {}, refused,
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
    assert run(enqueue(redis_url, queue, 5, "worker.jobs.part", {}, missed, cached=key)) == Enqueued(True, 0)
    redis.set(key, b'{"count": 1}', ex=30)
    hit = uuid.uuid4().hex
    assert run(enqueue(redis_url, queue, 5, "worker.jobs.part", {}, hit, cached=key)) == Enqueued(False, 0, b'{"count": 1}')
    assert queue.job_ids == [missed]
    assert not redis.exists(Job.key_for(hit))
    # A full queue does not refuse what the cache can answer.
    assert run(enqueue(redis_url, queue, 1, "worker.jobs.part", {}, uuid.uuid4().hex, cached=key)).cached


def test_the_service_reads_results_as_rq_does():
    """service.jobs.waiting.read_result against Result.restore, for each kind of
    entry a worker writes (a value, no value, an error)."""
    from rq.results import Result

    from service.jobs.waiting import read_result

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


def test_a_lost_script_a_killed_connection_and_a_cancelled_call_are_survived(fresh_redis):
    # A Redis of its own: killing every client of the shared one would cut
    # the other tests' service off too.
    redis = fresh_redis()
    queue = Queue(f"test-{uuid.uuid4().hex}", connection=redis, serializer=JSONSerializer)
    key = keys.cache(uuid.uuid4().hex)
    redis.set(key, b"cached", ex=60)

    async def go():
        client = AsyncRedis.from_url(url_of(redis))
        enqueuer = Enqueuer(client, slots=1)  # one connection, reused by every call
        try:
            assert (await enqueuer.enqueue(queue, 100, "worker.jobs.part", {}, uuid.uuid4().hex)).queued
            redis.script_flush()  # what a Redis restart does: the script is gone...
            redis.client_kill_filter(_type="normal", skipme=True)  # ...and so is the connection
            assert (await enqueuer.enqueue(queue, 100, "worker.jobs.part", {}, uuid.uuid4().hex)).queued
            for steps in range(1, 6):  # cancelled at different points of the call
                call = asyncio.create_task(enqueuer.enqueue(queue, 100, "worker.jobs.part", {}, uuid.uuid4().hex))
                for _ in range(steps):
                    await asyncio.sleep(0)
                call.cancel()
                await asyncio.gather(call, return_exceptions=True)
                # The next call reads its own reply, not the cancelled one's.
                assert (await enqueuer.enqueue(queue, 100, "worker.jobs.part", {}, "x", cached=key)).cached == b"cached"
        finally:
            await enqueuer.close()
            await client.aclose()

    run(go())


def test_a_queued_job_rings_the_job_that_has_waited_longest_for_calls(fresh_redis):
    """A job queued takes one job waiting for calls off its queue's
    lingering lists, the interactive workers' first, and rings it: a "y"
    entry on its added calls (worker/calls.py), which lives at most two
    hours if nothing else keeps it. A job refused, or none waiting, rings nothing."""
    redis = fresh_redis()
    url = url_of(redis)
    interactive, general = keys.lingering_for(keys.QUEUE_INTERACTIVE)
    assert keys.lingering_for(keys.QUEUE_HEAVY) == (general, "")
    redis.rpush(interactive, keys.calls("i1"), keys.calls("i2"))
    redis.rpush(general, keys.calls("g1"), keys.calls("g2"))
    redis.xadd(keys.calls("i2"), {"c": "a call"})
    redis.expire(keys.calls("i2"), 9000)
    queues = {name: Queue(name, connection=redis, serializer=JSONSerializer) for name in keys.QUEUES}

    def rings(job: str) -> int:
        return sum(b"y" in fields for _, fields in redis.xrange(keys.calls(job)))

    def queue_one(name: str, bound: int = 10) -> bool:
        return run(enqueue(url, queues[name], bound, "worker.jobs.part", {}, uuid.uuid4().hex)).queued

    assert queue_one(keys.QUEUE_INTERACTIVE)
    assert rings("i1") == 1 and redis.lrange(interactive, 0, -1) == [keys.calls("i2").encode()]
    assert 7000 < redis.ttl(keys.calls("i1")) <= 7200
    assert queue_one(keys.QUEUE_INTERACTIVE)
    assert rings("i2") == 1 and redis.ttl(keys.calls("i2")) > 7200  # its own TTL kept
    assert queue_one(keys.QUEUE_INTERACTIVE)  # no interactive job waits: a general one's turn
    assert rings("g1") == 1 and redis.lrange(general, 0, -1) == [keys.calls("g2").encode()]
    assert not queue_one(keys.QUEUE_BATCH, bound=0)  # refused: rings nothing
    assert queue_one(keys.QUEUE_HEAVY)
    assert rings("g2") == 1 and not redis.exists(interactive, general)
    assert queue_one(keys.QUEUE_BATCH)  # none waits
    assert [rings(job) for job in ("i1", "i2", "g1", "g2")] == [1, 1, 1, 1]
