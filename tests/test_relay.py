"""Delivering frames to watchers (service/streams/relay.py): pacing, many watchers,
resuming anywhere, and what a watcher sees when frames were trimmed."""

from __future__ import annotations

import asyncio
import threading
import time

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.asyncio import Redis

from client.frames import Drawing, split
from service.streams.hub import StreamHub
from service.streams.pacing import Schedule
from service.streams.relay import Relay
from sudoku.v1 import sudoku_pb2 as pb
from tests.frames_util import attached, draw, pairs
from tests.puzzles import puzzles

HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps
TIMEOUT = 60


def watched(board=HARD, **pacing) -> pb.SolveRequest:
    return pb.SolveRequest(board=board, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH, pacing=pb.Pacing(**pacing))


def test_a_paced_solve_plays_in_its_duration(stub):
    stamps = []
    for frame in stub.Solve(watched(duration_ms=2_000, fps=10), timeout=TIMEOUT):
        stamps.append((time.monotonic(), frame))
    frames = [f for _, f in stamps]
    assert len(frames) == 1 + 20  # frame 1, then duration x fps
    elapsed = stamps[-1][0] - stamps[1][0]
    assert 1.5 < elapsed < 4.0, elapsed  # 19 gaps of 0.1 s; wide: a behaviour check, not a benchmark
    assert frames[-1].solution and draw(frames)[-1] == frames[-1].solution


@pytest.mark.slow
def test_a_slow_watcher_does_not_slow_the_fast_one(service):
    channel, stub = service.stub()
    call = stub.Solve(watched(duration_ms=2_000, fps=10), timeout=TIMEOUT)
    first = next(call)
    slow: list[pb.Frame] = []

    def read_slowly():
        for frame in stub.Watch(pb.WatchRequest(job_id=first.job_id), timeout=TIMEOUT):
            slow.append(frame)
            time.sleep(0.2)

    reader = threading.Thread(target=read_slowly)
    reader.start()
    t0 = time.monotonic()
    fast = [first] + list(call)
    fast_done = time.monotonic() - t0
    reader.join(TIMEOUT)
    channel.close()
    assert fast_done < 4.0, fast_done  # about 2 s: the slow reader did not hold it back
    assert [f.seq for f in fast] == list(range(1, 22))  # the fast one got every frame
    # The slow one reads at half the frame rate, so it falls behind and skips
    # ahead to keyframes: a consistent sequence (Drawing raises on a gap
    # that is not at a keyframe) that ends on the same last frame.
    drawing = Drawing()
    for frame in slow:
        drawing.apply(frame)
    assert slow[-1] == fast[-1]
    assert drawing.text == fast[-1].solution


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=3))
def test_resuming_at_any_points_gives_the_uninterrupted_sequence(service, finished_job, cuts):
    job_id = finished_job[0].job_id
    channel, stub = service.stub()
    got: list[pb.Frame] = []
    for cut in cuts:
        start = len(got)
        call = stub.Watch(pb.WatchRequest(job_id=job_id, after_seq=start, unpaced=True), timeout=TIMEOUT)
        for frame in call:
            got.append(frame)
            if len(got) % 31 == cut:
                call.cancel()  # the connection drops here
                break
        assert got[start:] == attached(finished_job, start)[: len(got) - start]
    start = len(got)
    got += stub.Watch(pb.WatchRequest(job_id=job_id, after_seq=start, unpaced=True), timeout=TIMEOUT)
    channel.close()
    assert got[start:] == attached(finished_job, start)
    assert [f.seq for f in got] == [f.seq for f in finished_job]
    assert draw(got)[-1] == finished_job[-1].solution


def test_watch_past_the_end_of_a_finished_job_is_out_of_range(stub, finished_job):
    with pytest.raises(grpc.RpcError) as err:
        list(stub.Watch(pb.WatchRequest(job_id=finished_job[0].job_id, after_seq=10_000), timeout=TIMEOUT))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "after_seq" in err.value.details()
    nothing_left = stub.Watch(pb.WatchRequest(job_id=finished_job[0].job_id, after_seq=finished_job[-1].seq))
    assert list(nothing_left) == []


def test_asking_for_trimmed_frames_is_out_of_range_with_the_oldest_seq(custom_service):
    service = custom_service(stream_maxlen=20)
    channel, stub = service.stub()
    frames = list(stub.Solve(watched(duration_ms=3_000, fps=30, unpaced=True), timeout=TIMEOUT))
    assert frames[-1].seq == 91
    with pytest.raises(grpc.RpcError) as err:
        list(stub.Watch(pb.WatchRequest(job_id=frames[0].job_id), timeout=TIMEOUT))
    assert err.value.code() == grpc.StatusCode.OUT_OF_RANGE
    assert "oldest available seq is 72" in err.value.details()
    tail = list(stub.Watch(pb.WatchRequest(job_id=frames[0].job_id, after_seq=71), timeout=TIMEOUT))
    channel.close()
    assert [f.seq for f in tail] == list(range(72, 92))


def test_a_watcher_left_behind_by_trimming_resyncs_at_a_keyframe(custom_service):
    # The worker writes all 91 frames at once; the stream keeps 20, so a
    # paced reader finds its next frames gone and must jump to a keyframe.
    service = custom_service(stream_maxlen=20, keyframe_every=5)
    channel, stub = service.stub()
    frames = list(stub.Solve(watched(duration_ms=3_000, fps=30), timeout=TIMEOUT))
    channel.close()
    seqs = [f.seq for f in frames]
    assert seqs == sorted(set(seqs)) and seqs[0] == 1 and seqs[-1] == 91
    jump = next(i for i in range(1, len(seqs)) if seqs[i] != seqs[i - 1] + 1)
    assert frames[jump].board, "the frame after a gap is a keyframe"
    board = list(frames[jump].board)
    for frame in frames[jump + 1 :]:
        for cell, value in pairs(frame.steps or frame.changes):
            board[cell] = str(value) if value else "."
    assert "".join(board) == frames[-1].solution


def test_a_watch_from_mid_way_draws_from_its_first_frame(service, finished_job):
    """A second phone attaching after seq 20 knows the givens and the board
    from the first frame it gets, with no seq repeated (client library)."""
    from client import Client

    with Client(service.address) as client:
        for runs in (False, True):
            frames = list(client.attach(finished_job[0].job_id, after_seq=20, unpaced=not runs, runs=runs))
            assert frames[0].seq == 21 and frames[0].job.givens == finished_job[0].job.givens
            drawing = Drawing()  # knows nothing of frames 1-20
            for frame in frames:
                drawing.apply(frame)
            assert [f.seq for f in frames] == list(range(21, finished_job[-1].seq + 1))
            assert drawing.text == finished_job[-1].solution
            assert [drawing.kind(c) for c in range(81)] == [
                "given" if finished_job[0].job.givens[c] != "." else "search" for c in range(81)
            ]


# The longest naive search among tests/data's hardest sets that ends
# within the step ceiling: 1,974,390 steps.
HARDEST_NAIVE = puzzles("forum_hardest_1106")[12]


@pytest.mark.parametrize("runs", [False, True])
def test_the_drawing_recipe_replays_the_hardest_naive_search_keyframe_for_keyframe(stub, runs):
    pacing = pb.Pacing(duration_ms=2_000, fps=60, runs=True) if runs else pb.Pacing(duration_ms=10_000, unpaced=True)
    messages = list(stub.Solve(watched(HARDEST_NAIVE, **{f.name: v for f, v in pacing.ListFields()}),
                               timeout=TIMEOUT))
    assert any(m.next_frames for m in messages) == runs
    frames = [f for m in messages for f in split(m)]
    assert [f.seq for f in frames] == list(range(1, len(frames) + 1))
    # Drawing applies each frame by the proto's recipe and raises when a
    # keyframe differs from what it drew.
    drawing = Drawing()
    for message in messages:
        drawing.apply(message)
    keyframes = sum(1 for f in frames if f.board)
    assert keyframes >= len(frames) // 30
    assert frames[-1].counters.steps == 1_974_390
    assert drawing.text == frames[-1].solution


def test_a_relay_that_lost_its_cancel_in_a_read_ends_instead_of_waiting(redis_url):
    """The lost cancel of tests/test_hub.py (redis-py swallows it on Python
    3.11), lost in the relay's own read of a job's frames just before it
    waits for more. That wait runs in a task of its own (so that a Stop can
    end it), whose check of a lost cancel is the task's, not the relay's: a
    cancel_on_disconnect solve whose client left played on to its time limit
    (a fresh-clone CI, and 2 runs in 10 of the vanished-client fault test).
    The relay checks its own and ends at once."""

    async def scenario() -> None:
        redis = Redis.from_url(redis_url)
        hub = StreamHub(redis_url, redis)
        hub.start()
        swallowed = asyncio.Event()

        async def read(key: str, after: str, count: int = 128) -> list:
            try:
                await asyncio.sleep(30)  # the cancel comes during the read
            except asyncio.CancelledError:
                swallowed.set()  # as redis-py's lost cancel is: caught, never uncancelled
            return []

        hub.read = read
        stopped = asyncio.get_running_loop().create_future()
        relay = Relay(hub, "test-relay-lost-cancel", 1, Schedule(0), stopped)  # after frame 1: stoppable

        async def play() -> None:
            async for _ in relay.messages():
                pass

        task = asyncio.create_task(play())
        await asyncio.sleep(0.05)
        task.cancel()
        try:
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(task, 5)  # the wait has no timeout: without the check, forever
            assert swallowed.is_set()
        finally:
            await hub.close()
            await redis.aclose()

    asyncio.run(scenario())
