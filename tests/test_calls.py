"""Coalesced unary calls: many calls in one job, each answered on its own.

On a Redis of the test's own, with real worker processes started when the
test has placed its calls: the job's calls wait in the queue (or in the
service) until then, so which calls ride together is the test's to say.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
import uuid
from collections.abc import Iterator

import grpc
import pytest
from redis.asyncio import Redis as AsyncRedis
from rq import Queue, Worker
from rq.registry import FailedJobRegistry
from rq.job import Job
from rq.serializers import JSONSerializer

import worker.calls
from launcher.embedded_redis import EmbeddedRedis
from service.jobs.calls import FUNC, call_entry
from service.jobs.enqueue import Enqueuer
from service.jobs.queueing import ANSWERED_TTL_S
from service.rpc.validate import hint_spec
from sudoku import connections, keys, lanes, scripts
from sudoku.lanes import CHEAP_LEVEL
from sudoku.specs import HintSpec
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.faults import FAULTY_WORKER, KILL_AFTER_A_REPLY, STALL_BEFORE_A_REPLY
from tests.puzzles import puzzles
from tests.stack import (ServiceThread, make_settings, stalled_worker, stopped, supervise_in_background, until,
                         url_of)
from worker.run.supervisor import Supervisor

TIMEOUT = 60
BOARDS = puzzles("magictour_top1465")[:10]
# Its first step needs the forcing chains the cheap lane leaves out.
HARDER, HARDER_TOO = puzzles("forum_hardest_1905_11plus")[:2]
INBOX = keys.inbox("test-calls")


@pytest.fixture
def workers_later(fresh_redis):
    """A Redis of the test's own, and start(general, interactive) to start
    workers on it (the tests' FaultyWorker) once the test has placed its calls."""
    redis = fresh_redis()
    supervisors = []

    def start(general: int = 0, interactive: int = 1, **env: str) -> Supervisor:
        supervisor = Supervisor(general, url_of(redis), interactive=interactive,
                                env={"SUDOKU_WORKER_CLASS": FAULTY_WORKER, **env})
        supervisor.start()
        supervise_in_background(supervisor)
        supervisors.append(supervisor)
        return supervisor

    yield redis, start
    for supervisor in supervisors:
        supervisor.stop()


def submit(redis, calls: list[bytes], open_job: str | None = None, timeout: int = 60, **args) -> str:
    """The calls into one cheap Hint job, by the service's own submit (a new
    job, or `open_job`), with RQ's `timeout`; `args`: the job's own beside
    the kind's (worker/calls.py run)."""

    async def go() -> str:
        client = AsyncRedis.from_url(url_of(redis))
        enqueuer = Enqueuer(client)
        queue = Queue(keys.QUEUE_INTERACTIVE, connection=redis, serializer=JSONSerializer)
        template = enqueuer.template(
            queue, FUNC, {"kind": "hint", "cheap": True, "inbox": INBOX, "cache_ttl_s": 0, **args},
            timeout=timeout, result_ttl=ANSWERED_TTL_S, failure_ttl=60)
        done = await enqueuer.submit(template, 100, f"calls-{time.monotonic_ns()}", open_job, calls,
                                     [""] * len(calls), 64, 3600)
        await enqueuer.close()
        await client.aclose()
        return done.job

    return asyncio.run(go())


def queued(redis) -> int:
    """Cheap jobs waiting for a worker."""
    return redis.llen(Queue(keys.QUEUE_INTERACTIVE, connection=redis).key)


def closed(redis, job_id: str) -> bool:
    """The job has ended as a job that answered its calls ends (its hash
    goes at once); a failed one (its wait cut by the worker's socket
    timeout, say) stays in the failed registry."""
    failed = FailedJobRegistry(keys.QUEUE_INTERACTIVE, connection=redis).get_job_ids()
    assert job_id not in failed, f"job {job_id} failed"
    return not redis.exists(Job.key_for(job_id))


def settled(redis) -> bool:
    """No job waits or runs: every worker is idle."""
    return queued(redis) == 0 and all(w.get_state() == "idle" for w in Worker.all(connection=redis))


def hint(board: str) -> HintSpec:
    return hint_spec(pb.HintRequest(givens=board))


def test_one_job_answers_each_call_its_own_way(workers_later):
    """Six calls in one job, one of them added while it waited: each gets
    its own reply, its own error, or is skipped, on the inbox."""
    redis, start = workers_later
    broken = HintSpec(givens=BOARDS[2], entries="." * 81, pencil_marks=[1, 2, 3])  # the service would refuse it
    entries = {
        "ok": call_entry("ok", hint(BOARDS[0]), None, None),
        "late": call_entry("late", hint(BOARDS[1]), time.time() - 1, None),  # its caller was told DEADLINE_EXCEEDED
        "left": call_entry("left", hint(BOARDS[3]), None, None),  # its caller has gone
        "harder": call_entry("harder", hint(HARDER), None, None),
        "broken": call_entry("broken", broken, None, None),
    }
    job_id = submit(redis, list(entries.values()))
    assert submit(redis, [call_entry("added", hint(BOARDS[4]), None, None)], open_job=job_id) == job_id
    assert queued(redis) == 1  # one job carries all six
    redis.sadd(keys.cancelled_calls(job_id), "left")
    start()
    until(lambda: not redis.exists(Job.key_for(job_id)), "the job finished and was deleted", TIMEOUT)
    replies = {fields[b"c"].decode(): fields for _, fields in redis.xrange(INBOX)}
    assert set(replies) == {"ok", "harder", "broken", "added"}
    for name, board in (("ok", BOARDS[0]), ("added", BOARDS[4])):
        move = pb.HintReply.FromString(replies[name][b"r"]).move
        assert board[move.cell] == "." and move.value
    assert replies["harder"][b"x"] == b"1"  # for the heavy lane
    assert replies["broken"][b"e"] == b"INTERNAL" and b"pencil_marks" in replies["broken"][b"m"]
    # Nothing of the job is left: its answers are on the inbox.
    assert not redis.exists(keys.calls(job_id), keys.cancelled_calls(job_id), keys.result(job_id))


def answered(redis) -> set[str]:
    """The calls answered on the test's inbox."""
    return {fields[b"c"].decode() for _, fields in redis.xrange(INBOX)}


def test_a_running_job_takes_the_calls_added_while_it_runs_then_closes(workers_later):
    """A job takes calls while it runs, each answered as it comes, until it
    has taken as many as a job carries; then it closes, and a call for it
    goes into a new job. (It would wait for more up to a minute: the test,
    not the clock, decides when a call comes.)"""
    redis, start = workers_later
    job_id = submit(redis, [call_entry("a", hint(BOARDS[0]), None, None)], max_calls=3, linger_ms=60_000,
                    takes_calls_s=120)
    start()
    until(lambda: answered(redis) == {"a"}, "the first call was answered")
    assert redis.hget(Job.key_for(job_id), "status") == b"started"  # and its job waits for more
    assert submit(redis, [call_entry("b", hint(BOARDS[1]), None, None)], open_job=job_id) == job_id
    until(lambda: answered(redis) == {"a", "b"}, "the call added to the running job was answered")
    assert submit(redis, [call_entry("c", hint(BOARDS[2]), None, None)], open_job=job_id) == job_id
    until(lambda: not redis.exists(Job.key_for(job_id)), "the job, with its three calls, closed and finished")
    assert answered(redis) == {"a", "b", "c"}
    assert not redis.exists(keys.calls(job_id), keys.cancelled_calls(job_id))
    later = submit(redis, [call_entry("d", hint(BOARDS[3]), None, None)], open_job=job_id)
    assert later not in (None, job_id)
    until(lambda: "d" in answered(redis), "the call after the close was answered by a new job")


def waiting_for_calls(redis, start) -> tuple[str, str]:
    """A job that has answered its call ("a") on the one interactive
    worker and waits for more (ten minutes: nothing but a ring ends the
    wait as a job ends; the worker's socket timeout would fail it), on its
    workers' lingering list: its id, and the list."""
    first = submit(redis, [call_entry("a", hint(BOARDS[0]), None, None)], max_calls=5, linger_ms=600_000,
                   takes_calls_s=1200, timeout=1200)
    start()
    lingering = keys.lingering((keys.QUEUE_INTERACTIVE,))
    until(lambda: redis.lrange(lingering, 0, -1) == [keys.calls(first).encode()],
          "the job answered its call and waits for more, on its workers' lingering list")
    return first, lingering


def test_a_job_waiting_for_calls_ends_its_wait_for_a_job_queued_behind_it(workers_later):
    """One worker, whose job waits for more calls: a job queued behind it
    rings it, and the worker closes its job and takes the one queued."""
    redis, start = workers_later
    first, _ = waiting_for_calls(redis, start)
    assert answered(redis) == {"a"}
    second = submit(redis, [call_entry("b", hint(BOARDS[1]), None, None)])
    assert second != first
    until(lambda: answered(redis) == {"a", "b"}, "the job queued behind it was answered")
    until(lambda: closed(redis, first), "the first job closed and finished")


def test_a_job_does_not_wait_for_calls_while_a_job_waits_for_its_worker(workers_later):
    """Two jobs queued before the one worker starts: the second's ring found
    no job waiting for calls, so the first, once it has answered its call,
    finds the second waiting, and closes instead of waiting for more."""
    redis, start = workers_later
    first = submit(redis, [call_entry("a", hint(BOARDS[0]), None, None)], max_calls=5, linger_ms=600_000,
                   takes_calls_s=1200, timeout=1200)
    second = submit(redis, [call_entry("b", hint(BOARDS[1]), None, None)])
    assert second != first and queued(redis) == 2
    start()
    until(lambda: answered(redis) == {"a", "b"}, "both jobs' calls were answered")
    until(lambda: closed(redis, first), "the first job closed and finished")


def test_a_ring_for_a_job_another_worker_took_leaves_the_wait_on(workers_later):
    """A ring whose job another worker has taken (none waits on the queue)
    leaves the job waiting, listed again, and it takes the next call."""
    redis, start = workers_later
    first, lingering = waiting_for_calls(redis, start)
    # The ring a queued job writes (sudoku/scripts.py RING), the job gone at once.
    assert redis.lpop(lingering) == keys.calls(first).encode()
    redis.xadd(keys.calls(first), {"y": 1})
    until(lambda: redis.lrange(lingering, 0, -1) == [keys.calls(first).encode()], "the job waits on, listed again")
    assert submit(redis, [call_entry("b", hint(BOARDS[1]), None, None)], open_job=first) == first
    until(lambda: answered(redis) == {"a", "b"}, "the next call was answered by the same job")
    assert redis.hget(Job.key_for(first), "status") == b"started"


def test_a_call_that_comes_with_the_ring_is_answered_before_the_job_closes(workers_later):
    """A call and a ring in the same read, with a job waiting on the queue:
    the job answers the call, then closes."""
    redis, start = workers_later
    first, lingering = waiting_for_calls(redis, start)
    with redis.pipeline(transaction=True) as both:  # what SUBMIT writes for a call, then a job queued that rings
        both.xadd(keys.calls(first), {"c": call_entry("b", hint(BOARDS[1]), None, None)})
        both.hincrby(Job.key_for(first), keys.ADDED_FIELD, 1)
        both.rpush(Queue(keys.QUEUE_INTERACTIVE, connection=redis).key, "a-job-gone-before-it-started")
        both.lpop(lingering)
        both.xadd(keys.calls(first), {"y": 1})
        both.execute()
    until(lambda: closed(redis, first), "the job closed and finished")
    assert answered(redis) == {"a", "b"}


def test_a_heavy_job_takes_the_heavy_calls_added_while_it_runs(workers_later):
    """A heavy job, too, takes calls while it runs, up to its own bound: a
    caller's next heavy call rides in the job that answered the last."""
    redis, start = workers_later
    job_id = submit(redis, [call_entry("a", hint(HARDER), None, None)], cheap=False, max_calls=2,
                    linger_ms=60_000, takes_calls_s=120)
    start()
    until(lambda: answered(redis) == {"a"}, "the first heavy call was answered")
    assert redis.hget(Job.key_for(job_id), "status") == b"started"  # and its job waits for more
    assert submit(redis, [call_entry("b", hint(HARDER_TOO), None, None)], open_job=job_id) == job_id
    until(lambda: not redis.exists(Job.key_for(job_id)), "the job, with its two calls, closed and finished")
    replies = {fields[b"c"].decode(): fields for _, fields in redis.xrange(INBOX)}
    for name, board in (("a", HARDER), ("b", HARDER_TOO)):
        assert b"x" not in replies[name]  # answered here, not sent on to a harder lane
        move = pb.HintReply.FromString(replies[name][b"r"]).move
        assert board[move.cell] == "." and move.value


def test_calls_go_to_the_job_that_has_answered_its_calls(fresh_redis):
    """With two jobs of a kind in flight, the next calls go into the one
    that has answered all of its calls (its worker waits for more), though
    a later one is still busy; not into one whose call ended unanswered."""
    service = ServiceThread(make_settings(url_of(fresh_redis()))).start()
    try:
        coalescer = service.app.cells.all[0].unary.lanes["hint", lanes.HEAVY]

        def both_in_flight():
            coalescer.in_flight.update({"first": 1, "second": 1})
            coalescer.open = "second"
            coalescer.ended("first", answered=True)
            return coalescer._target()

        assert service.call(_on_loop(both_in_flight)) == "first"

        def its_caller_left():
            # A heavy call whose caller left may still be running: its job
            # takes no call, which would wait behind it for seconds.
            coalescer.in_flight.update({"third": 1})
            coalescer.open = "third"
            coalescer.ended("second")  # left unanswered, while the job had another call
            coalescer.ended("third")
            return coalescer._target()

        assert service.call(_on_loop(its_caller_left)) is None  # a new job
        assert not coalescer.unsure and not coalescer.in_flight
    finally:
        service.stop()


def test_heavy_calls_in_flight_together_go_into_jobs_of_their_own(fresh_redis):
    """A heavy call may run for seconds: one that comes while another is
    in flight does not wait for it, nor ride in its job behind it; each
    goes into a job of its own, queued for whichever worker is free."""
    redis = fresh_redis()
    service = ServiceThread(make_settings(url_of(redis))).start()  # no worker: the jobs stay queued
    try:
        coalescer = service.app.cells.all[0].unary.lanes["hint", lanes.HEAVY]

        async def two_at_once():
            return await asyncio.gather(*(coalescer.place(call_entry(name, hint(board), None, None), "")
                                          for name, board in (("a", HARDER), ("b", HARDER_TOO))))

        first, second = service.call(two_at_once())
        assert first != second and not coalescer.pending
        assert redis.llen(Queue(keys.QUEUE_HEAVY, connection=redis).key) == 2
    finally:
        service.stop()


async def _on_loop(work):
    return work()


def test_a_job_closes_after_redis_lost_its_scripts(workers_later):
    """SCRIPT FLUSH (or a restart) before the job closes: its worker loads
    CLOSE_CALLS again and the job ends as usual."""
    redis, start = workers_later
    job_id = submit(redis, [call_entry("a", hint(BOARDS[0]), None, None)])
    redis.script_flush()
    start()
    until(lambda: not redis.exists(Job.key_for(job_id)), "the job closed and finished")
    assert answered(redis) == {"a"}
    assert redis.script_exists(scripts.CLOSE_CALLS.sha) == [True]


def test_the_waker_ends_a_wait_that_no_call_ended_and_no_other(redis):
    """A job's wait for more calls ends when due, not at Redis's next tick:
    the waker adds an entry without a call to that job's stream (which
    expires if the job never closes); a wait disarmed in time gets none.
    Alarms ring in the order they are due, so the later one's entry shows
    that the earlier, disarmed one had its turn."""
    quiet, waited = f"test-waker-{uuid.uuid4().hex}", f"test-waker-{uuid.uuid4().hex}"
    disarmed = worker.calls._WAKER.arm(redis, quiet, 0.05)
    worker.calls._WAKER.disarm(disarmed)
    worker.calls._WAKER.arm(redis, waited, 0.1)
    until(lambda: redis.exists(waited), "the wait was ended")
    [(_, fields)] = redis.xrange(waited)
    assert worker.calls._added([(b"0-1", fields)])[0] == []  # no call in it
    assert 0 < redis.ttl(waited) <= worker.calls.ADDED_TTL_S
    assert not redis.exists(quiet)
    redis.delete(waited)


def close(redis, job_id: str, worker: str, last: bytes):
    return redis.eval(scripts.CLOSE_CALLS.source, 3, Job.key_for(job_id), keys.calls(job_id),
                      keys.cancelled_calls(job_id), worker, last)


def test_closing_hands_over_the_calls_that_came_since_the_last_read(fresh_redis):
    """CLOSE_CALLS: the calls added after the worker's last read come back
    with the close (none is lost between the two), and no call is added
    after it; only the job's own attempt may close it."""
    redis, job_id = fresh_redis(), uuid.uuid4().hex
    redis.hset(Job.key_for(job_id), mapping={"status": "started", "worker_name": "w1", keys.CALLS_COUNT_FIELD: 1})
    read = redis.xadd(keys.calls(job_id), {"c": b"x"})
    came = redis.xadd(keys.calls(job_id), {"c": b"y\nz"})
    redis.sadd(keys.cancelled_calls(job_id), "x")
    assert close(redis, job_id, "w2", read) == -1  # not its attempt
    assert not redis.hexists(Job.key_for(job_id), keys.CLOSED_FIELD)
    assert close(redis, job_id, "w1", read) == [[came, [b"c", b"y\nz"]]]
    assert redis.hexists(Job.key_for(job_id), keys.CLOSED_FIELD)
    assert redis.exists(keys.calls(job_id), keys.cancelled_calls(job_id)) == 2  # still being answered
    assert submit(redis, [call_entry("w", hint(BOARDS[0]), None, None)], open_job=job_id) != job_id
    assert redis.xlen(keys.calls(job_id)) == 2
    assert close(redis, job_id, "w1", came) == []
    assert not redis.exists(keys.calls(job_id), keys.cancelled_calls(job_id))


def status_of(future: grpc.Future) -> grpc.StatusCode:
    try:
        future.result(TIMEOUT)
    except grpc.RpcError as err:
        return err.code()
    except grpc.FutureCancelledError:
        return grpc.StatusCode.CANCELLED
    return grpc.StatusCode.OK


def waiting_calls(service: ServiceThread) -> int:
    """Calls the service holds back while its one Hint job is in flight."""
    return len(service.app.cells.all[0].unary.lanes["hint", "cheap"].pending)


@contextlib.contextmanager
def a_job_in_flight(redis) -> Iterator[tuple[ServiceThread, pb_grpc.SudokuStub, grpc.Future]]:
    """A service with no worker yet, and a Hint whose job waits in the queue:
    the calls that come now wait in the service behind it."""
    service = ServiceThread(make_settings(url_of(redis))).start()
    channel = grpc.insecure_channel(service.address)
    stub = pb_grpc.SudokuStub(channel)
    try:
        first = stub.Hint.future(pb.HintRequest(givens=BOARDS[0]), timeout=TIMEOUT)
        until(lambda: queued(redis) == 1, "the first job was queued")
        yield service, stub, first
    finally:
        channel.close()
        service.stop()


def test_calls_that_come_while_a_job_is_in_flight_ride_on_together(workers_later):
    """While the one worker's job is in flight, Hints wait in the service:
    those whose callers give up (a deadline, a cancel) leave; the others go
    together into that job once it has answered its call (it takes calls
    while it runs), or into the next, an escalation to the heavy lane among them."""
    redis, start = workers_later
    with a_job_in_flight(redis) as (service, stub, first):
        calls = {"ok": stub.Hint.future(pb.HintRequest(givens=BOARDS[1]), timeout=TIMEOUT),
                 "late": stub.Hint.future(pb.HintRequest(givens=BOARDS[2]), timeout=1),
                 "left": stub.Hint.future(pb.HintRequest(givens=BOARDS[3]), timeout=TIMEOUT),
                 "harder": stub.Hint.future(pb.HintRequest(givens=HARDER), timeout=TIMEOUT)}
        until(lambda: waiting_calls(service) == 4, "the calls wait behind the first job")
        calls["left"].cancel()
        assert status_of(calls["late"]) == grpc.StatusCode.DEADLINE_EXCEEDED
        until(lambda: waiting_calls(service) == 2, "the calls whose callers left are gone")
        start(general=1, interactive=0)  # one worker, for both lanes
        outcomes = {name: status_of(call) for name, call in calls.items()}
        assert status_of(first) == grpc.StatusCode.OK
        assert outcomes == {"ok": grpc.StatusCode.OK, "late": grpc.StatusCode.DEADLINE_EXCEEDED,
                            "left": grpc.StatusCode.CANCELLED, "harder": grpc.StatusCode.OK}
        assert max(step.level for step in calls["harder"].result().before) > CHEAP_LEVEL
        # The first call's job, which took the two calls left unless it had
        # closed before they came (then a second job took them together), and
        # the escalation's; a job finishes just after its last reply went out.
        until(lambda: settled(redis), "every job finished")
        assert sum(w.successful_job_count for w in Worker.all(connection=redis)) in (2, 3)


def test_a_caller_that_leaves_while_its_call_goes_into_a_job_holds_up_no_later_call(monkeypatch):
    """A Hint's caller leaves while the round trip that puts its call into a
    job is under way (Redis stopped meanwhile): the job carries the call and
    answers it to nobody, and counts it among no calls of its own, so the
    next Hint goes in as soon as the job is idle and is answered."""
    monkeypatch.setattr(connections, "SERVICE_TIMEOUT_S", TIMEOUT)  # a stop as long as the test needs
    server = EmbeddedRedis().start()
    service = ServiceThread(make_settings(server.url)).start()
    workers = Supervisor(0, server.url, interactive=1)
    workers.start()
    coalescer = service.app.cells.all[0].unary.lanes["hint", lanes.CHEAP]
    channel, stub = service.stub()
    try:
        with channel:
            assert stub.Hint(pb.HintRequest(givens=BOARDS[0]), timeout=TIMEOUT).kind
            os.kill(server.proc.pid, signal.SIGSTOP)
            try:
                left = stub.Hint.future(pb.HintRequest(givens=BOARDS[1]), timeout=TIMEOUT)
                until(lambda: coalescer.sending is not None and not coalescer.pending, "its SUBMIT was under way")
                left.cancel()
                assert status_of(left) == grpc.StatusCode.CANCELLED
            finally:
                os.kill(server.proc.pid, signal.SIGCONT)
            # The service hears of the cancel on its own time: the call that
            # left may have been placed first, and then counts until its handler ends.
            until(lambda: coalescer.sending is None and not coalescer.in_flight,
                  "the SUBMIT was answered, and the call that left counts in no job")
            assert stub.Hint(pb.HintRequest(givens=BOARDS[2]), timeout=TIMEOUT).kind
    finally:
        workers.stop()
        service.stop()
        server.stop()


def test_a_job_whose_worker_dies_mid_way_answers_each_call_once(workers_later):
    """A pair of calls rides in a job (the one that answered the call before
    them, or the next), whose worker is SIGKILLed right after the pair's
    first reply went out: the job is taken up again, and each caller gets
    one answer."""
    redis, start = workers_later
    with a_job_in_flight(redis) as (service, stub, first):
        pair = [stub.Hint.future(pb.HintRequest(givens=board), timeout=TIMEOUT)
                for board in (BOARDS[5], KILL_AFTER_A_REPLY)]
        until(lambda: waiting_calls(service) == 2, "the pair waits behind the first job")
        supervisor = start()
        pids = set(supervisor.pids())
        first.result(TIMEOUT)
        for board, call in zip((BOARDS[5], KILL_AFTER_A_REPLY), pair):
            move = call.result(TIMEOUT).move
            assert board[move.cell] == "." and move.value
        killed = [key.decode().rsplit(":", 1)[1] for key in redis.scan_iter("test:killed:*")]
        assert len(killed) == 1, "the pair's job killed its first worker"
        assert set(supervisor.pids()) != pids  # and was finished by the next
        # (a job finishes just after its last reply went out: on a busy machine, not at once)
        until(lambda: not redis.exists(Job.key_for(killed[0])), "the job taken up again finished (and went)")
        carried = redis.get(f"test:killed:{killed[0]}").split(b"\n")  # what the killed attempt carried
        assert len(carried) == 2 and {json.loads(c)["s"]["givens"] for c in carried} == {BOARDS[5], KILL_AFTER_A_REPLY}


def test_calls_go_around_a_job_whose_worker_stalled(workers_later):
    """A Hint's job whose worker stopped (SIGSTOP) before answering it,
    its heartbeat made to last an hour (so no other worker takes the job
    over during the test): once the job has answered nothing for
    STALLED_S, another caller's Hint goes into a job of its own, which the
    second worker answers while the first is still stopped. Before, it
    waited for the stalled job, for as long as that worker's heartbeat
    lasted (4 s when it is not stretched). The stalled call stays with its
    job, and is answered once its worker continues."""
    redis, start = workers_later
    start()
    service = ServiceThread(make_settings(url_of(redis))).start()
    coalescer = service.app.cells.all[0].unary.lanes["hint", lanes.CHEAP]
    stalling_channel, stalling = service.stub(own_connection=True)
    other_channel, other = service.stub(own_connection=True)
    pid = None
    try:
        stalled_call = stalling.Hint.future(pb.HintRequest(givens=STALL_BEFORE_A_REPLY), timeout=TIMEOUT)
        job = until(lambda: (list(coalescer.in_flight) or [None])[0], "the stalling Hint went into a job")
        pid = stalled_worker(redis, job, TIMEOUT)
        start()  # a worker that can take the next job
        move = other.Hint(pb.HintRequest(givens=BOARDS[1]), timeout=TIMEOUT).move
        assert BOARDS[1][move.cell] == "." and move.value
        assert stopped(pid) and not stalled_call.done() and job in coalescer.stalled
        os.kill(pid, signal.SIGCONT)
        move = stalled_call.result(TIMEOUT).move
        assert STALL_BEFORE_A_REPLY[move.cell] == "." and move.value
        until(lambda: not coalescer.in_flight and not coalescer.stalled, "the stalled job's call was counted out")
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGCONT)
        stalling_channel.close()
        other_channel.close()
        service.stop()


def test_a_job_still_in_its_queue_is_not_stalled(workers_later):
    """A job that no worker has taken yet answers nothing either: when the
    service looks at it after STALLED_S, it finds it queued, and the calls
    that came meanwhile keep waiting behind it (another job would wait in
    the same queue); a worker then answers them all."""
    redis, start = workers_later
    with a_job_in_flight(redis) as (service, stub, first):
        coalescer = service.app.cells.all[0].unary.lanes["hint", lanes.CHEAP]
        later = stub.Hint.future(pb.HintRequest(givens=BOARDS[1]), timeout=TIMEOUT)
        until(lambda: waiting_calls(service) == 1 and coalescer.stall_checks >= 1, "the queued job was looked at")
        assert queued(redis) == 1 and not coalescer.stalled and waiting_calls(service) == 1
        start()
        assert first.result(TIMEOUT).move.value and later.result(TIMEOUT).move.value


def test_calls_go_around_a_job_taken_off_its_queue_and_never_started(workers_later):
    """A stopped worker waiting on its queue still takes the next job off it
    (Redis answers its BLPOP, which nobody reads), and the job sits on no
    queue, not started, until worker/run/recovery.py queues it again
    (seconds; an hour here). The test takes the job off the queue itself,
    as that BLPOP would: once the job has answered nothing for STALLED_S,
    another caller's Hint goes into a job of its own and is answered; the
    first one is, once its job is back on its queue."""
    redis, start = workers_later
    with a_job_in_flight(redis) as (service, stub, first):
        coalescer = service.app.cells.all[0].unary.lanes["hint", lanes.CHEAP]
        queue = Queue(keys.QUEUE_INTERACTIVE, connection=redis)
        job = redis.lpop(queue.key).decode()
        start(SUDOKU_TEST_RECOVERY_GRACE_S="3600")
        other_channel, other = service.stub(own_connection=True)
        with other_channel:
            move = other.Hint(pb.HintRequest(givens=BOARDS[1]), timeout=TIMEOUT).move
        assert BOARDS[1][move.cell] == "." and move.value
        assert not first.done() and job in coalescer.stalled
        redis.rpush(queue.key, job)
        assert first.result(TIMEOUT).move.value
