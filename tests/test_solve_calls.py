"""Unwatched solves as calls of coalesced jobs (service/rpc/server.py coalesced).

A Solve with view FINAL, and MRV or a step cap within the cheap lane's, is
a call like a Hint: many ride in one job, each answered on
its own with its two frames, which its stream also holds, so its job id
works with Watch and Cancel, and its request_id with a retry, like any
solve's. One whose search needs more
than the cheap lane's steps goes on as a job of its own; the other solves
are jobs of their own from the start. Over real channels to a real
service, with real workers.
"""

from __future__ import annotations

import grpc
from rq import Queue
from rq.job import Job

from sudoku import engine, keys, lanes
from sudoku.v1 import sudoku_pb2 as pb
from tests.faults import FAULTY_WORKER
from tests.frames_util import Reader
from tests.puzzles import LONG_MRV, puzzles
from tests.stack import ServiceThread, make_settings, supervise_in_background, until, url_of
from worker.run.supervisor import Supervisor

TIMEOUT = 60
BOARDS = puzzles("magictour_top1465")[:12]


def ended_as(board: str, **options) -> engine.Stepper:
    """The search run to its end here, for the frames to be checked against."""
    stepper = engine.Stepper(board, **options)
    while stepper.status == "running":
        stepper.skip(1_000_000)
    return stepper


def check_frames(frames: list[pb.Frame], request: pb.SolveRequest, expected: engine.Stepper) -> None:
    """Frame 1 with the job's id and options, then the last with the outcome the search has."""
    assert [f.seq for f in frames] == [keys.HEADER_SEQ, keys.WORKER_FIRST_SEQ]
    first, last = frames
    assert first.job_id and last.job_id == first.job_id
    assert first.board == request.board and first.job.givens == request.board and first.job.view == pb.VIEW_FINAL
    assert last.counters.steps == expected.steps
    assert last.outcome == {"solved": pb.SOLVED, "gave_up": pb.GAVE_UP, "exhausted": pb.EXHAUSTED}[expected.status]
    assert last.solution == (expected.solution or "")
    assert last.board == expected.board


def is_rq_job(redis, job_id: str) -> bool:
    """Whether the solve was a job of its own (its hash lives as long as its
    stream); a coalesced call's id never names one."""
    return bool(redis.exists(Job.key_for(job_id)))


def test_unwatched_solves_ride_in_one_job_and_each_gets_its_own_frames(fresh_redis):
    """Twelve unwatched solves from two clients while no worker runs: one
    job is queued for them all. Once a worker starts, each call gets its
    own two frames, right for its board, and its stream holds the same."""
    redis = fresh_redis()
    service = ServiceThread(make_settings(url_of(redis))).start()
    clients = [service.stub(own_connection=True) for _ in range(2)]
    requests = [pb.SolveRequest(board=board) for board in BOARDS]
    readers = [Reader(clients[i % 2][1].Solve(request, timeout=TIMEOUT)) for i, request in enumerate(requests)]
    coalescer = service.app.cells.all[0].unary.lanes["solve", lanes.CHEAP]
    until(lambda: sum(coalescer.in_flight.values()) + len(coalescer.pending) == len(requests),
          "every solve reached the service", TIMEOUT)
    assert redis.llen(Queue(keys.QUEUE_INTERACTIVE, connection=redis).key) == 1  # one job for them all
    workers = Supervisor(0, url_of(redis), interactive=1, env={"SUDOKU_WORKER_CLASS": FAULTY_WORKER})
    workers.start()
    supervise_in_background(workers)
    try:
        for reader, request in zip(readers, requests):
            reader.join(TIMEOUT)
            assert reader.error is None, reader.error
            check_frames(reader.items, request, ended_as(request.board))
            job_id = reader.items[0].job_id
            stored = [pb.Frame.FromString(fields[b"f"]) for _, fields in redis.xrange(keys.frames(job_id))]
            assert stored == reader.items
            assert not is_rq_job(redis, job_id)
            assert 0 < redis.ttl(keys.frames(job_id)) <= service.settings.unwatched_ttl_s
    finally:
        for channel, _ in clients:
            channel.close()
        service.stop()
        workers.stop()


def test_a_coalesced_solve_can_be_watched_again_and_has_nothing_to_cancel(stub, redis):
    """Its job id works as any finished solve's: Watch plays its frames
    again, from the start or after frame 1; Cancel finds it ended."""
    request = pb.SolveRequest(board=BOARDS[0], tie_break=pb.TIE_BREAK_FIRST)
    frames = list(stub.Solve(request, timeout=TIMEOUT))
    check_frames(frames, request, ended_as(request.board, tie_break="first"))
    job_id = frames[0].job_id
    assert not is_rq_job(redis, job_id)
    assert list(stub.Watch(pb.WatchRequest(job_id=job_id), timeout=TIMEOUT)) == frames
    resumed = list(stub.Watch(pb.WatchRequest(job_id=job_id, after_seq=1), timeout=TIMEOUT))
    last = pb.Frame()
    last.CopyFrom(frames[1])
    last.job.CopyFrom(frames[0].job)  # a resumed stream's first frame says what the job does
    assert resumed == [last]
    assert stub.Cancel(pb.CancelRequest(job_id=job_id), timeout=TIMEOUT).cancelled is False


def test_a_coalesced_solve_keeps_its_two_frames_compactly(stub, redis):
    """Redis gives a new stream's first node room for 4 KB of entries: two
    frames kept so cost 4.7 KB, for SUDOKU_UNWATCHED_TTL_S, three times
    what a Hint keeps. The stream is written whole, so it is stored at its
    size: its frames, its expiry and its use are the same."""
    request = pb.SolveRequest(board=BOARDS[1])
    frames = list(stub.Solve(request, timeout=TIMEOUT))
    stream = keys.frames(frames[0].job_id)
    size = sum(len(fields[b"f"]) for _, fields in redis.xrange(stream))
    assert redis.memory_usage(stream) < size + 1024, (redis.memory_usage(stream), size)
    assert [pb.Frame.FromString(fields[b"f"]) for _, fields in redis.xrange(stream)] == frames
    assert 0 < redis.ttl(stream) <= 60
    assert list(stub.Watch(pb.WatchRequest(job_id=frames[0].job_id), timeout=TIMEOUT)) == frames


def test_a_solve_longer_than_the_cheap_lane_goes_on_as_a_job_of_its_own(stub, redis):
    """The cheap lane's try gives up at its step cap; the solve is then
    queued as a job, and the caller sees only that job's frames."""
    request = pb.SolveRequest(board=LONG_MRV)
    frames = list(stub.Solve(request, timeout=TIMEOUT))
    expected = ended_as(LONG_MRV)
    assert expected.steps > lanes.CHEAP_SOLVE_STEPS
    check_frames(frames, request, expected)
    assert is_rq_job(redis, frames[0].job_id)


def test_a_step_cap_reached_in_the_cheap_lane_is_the_answer(stub, redis):
    """A cap of the request's own, within the cheap lane's, ends the search
    GAVE_UP there, as a job would: not a reason to go on."""
    request = pb.SolveRequest(board=LONG_MRV, max_steps=1_000)
    frames = list(stub.Solve(request, timeout=TIMEOUT))
    check_frames(frames, request, ended_as(LONG_MRV, max_steps=1_000))
    assert frames[1].outcome == pb.GAVE_UP and not is_rq_job(redis, frames[0].job_id)


def test_which_solves_are_jobs_of_their_own(stub, redis):
    """Naive search without a cheap cap (it often needs more steps) and a
    watched solve are jobs of their own; naive search capped within the
    cheap lane is not."""
    board = BOARDS[1]
    own = [pb.SolveRequest(board=board, strategy=pb.STRATEGY_NAIVE),
           pb.SolveRequest(board=board, view=pb.VIEW_SEARCH, pacing=pb.Pacing(unpaced=True))]
    for request in own:
        frames = list(stub.Solve(request, timeout=TIMEOUT))
        assert frames[-1].outcome == pb.SOLVED and is_rq_job(redis, frames[0].job_id), request
    capped = pb.SolveRequest(board=board, strategy=pb.STRATEGY_NAIVE, max_steps=lanes.CHEAP_SOLVE_STEPS)
    frames = list(stub.Solve(capped, timeout=TIMEOUT))
    check_frames(frames, capped, ended_as(board, strategy="naive", max_steps=lanes.CHEAP_SOLVE_STEPS))
    assert not is_rq_job(redis, frames[0].job_id)


def test_a_retry_with_the_request_id_attaches_to_the_coalesced_solve(stub, redis):
    """The request_id is claimed with the stream the worker writes: the same
    request again gets that solve's frames, not a new solve; another
    request with the id is refused, naming the field."""
    request = pb.SolveRequest(board=BOARDS[5], request_id="solve-calls-retry")
    frames = list(stub.Solve(request, timeout=TIMEOUT))
    check_frames(frames, request, ended_as(request.board))
    assert not is_rq_job(redis, frames[0].job_id)
    assert list(stub.Solve(request, timeout=TIMEOUT)) == frames
    other = pb.SolveRequest(board=BOARDS[6], request_id="solve-calls-retry")
    try:
        list(stub.Solve(other, timeout=TIMEOUT))
        raise AssertionError("another request took the request_id")
    except grpc.RpcError as exc:
        assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT and "request_id" in exc.details()


def test_frame_one_says_what_was_clamped_as_the_stream_does(custom_service):
    """The clamps of a coalesced solve are in frame 1 as the service sends
    it and as the worker wrote it on the stream."""
    service = custom_service(max_time_ms=5_000)
    channel, stub = service.stub()
    with channel:
        frames = list(stub.Solve(pb.SolveRequest(board=BOARDS[2], time_limit_ms=60_000), timeout=TIMEOUT))
        assert frames[0].job.adjustments == ["time_limit_ms clamped from 60000 to 5000"]
        assert frames[0].job.time_limit_ms == 5_000
        assert list(stub.Watch(pb.WatchRequest(job_id=frames[0].job_id), timeout=TIMEOUT)) == frames


def test_a_coalesced_solve_past_its_deadline_is_deadline_exceeded_and_costs_nothing_more(fresh_redis):
    """No worker runs: the call's deadline passes while its job waits; the
    caller is told DEADLINE_EXCEEDED and the job, once a worker runs it,
    skips it (no stream is written for it)."""
    redis = fresh_redis()
    service = ServiceThread(make_settings(url_of(redis))).start()
    channel, stub = service.stub()
    workers = None
    try:
        call = stub.Solve(pb.SolveRequest(board=BOARDS[3]), timeout=0.5)
        try:
            list(call)
            raise AssertionError("the call ended without its deadline passing")
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        workers = Supervisor(0, url_of(redis), interactive=1)
        workers.start()
        queue = Queue(keys.QUEUE_INTERACTIVE, connection=redis)
        until(lambda: redis.llen(queue.key) == 0, "the worker took the job", TIMEOUT)
        # A later call is answered, by then the first job has ended: nothing of the late one was written.
        frames = list(stub.Solve(pb.SolveRequest(board=BOARDS[4]), timeout=TIMEOUT))
        assert frames[-1].outcome == pb.SOLVED
        assert [key for key in redis.scan_iter(keys.frames("*"))] == [keys.frames(frames[0].job_id).encode()]
    finally:
        channel.close()
        service.stop()
        if workers is not None:
            workers.stop()
