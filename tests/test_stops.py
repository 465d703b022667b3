"""Cancel stops every playback of a job where it is (service/streams/stops.py), on
a real channel: a paced playback of a search the worker finished long ago,
a search still being computed, two watchers at different points, a Watch
after the cancel, and a Cancel on another instance."""

from __future__ import annotations

import threading
import time

import grpc

from client.frames import Drawing, split
from sudoku.v1 import sudoku_pb2 as pb
from tests.puzzles import puzzles

HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps, done by a worker in well under a second
TIMEOUT = 60


def watched(**pacing) -> pb.SolveRequest:
    return pb.SolveRequest(board=HARD, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH, pacing=pb.Pacing(**pacing))


class Reader:
    """Reads a stream in a thread, drawing each message as it arrives."""

    def __init__(self, call):
        self.call = call
        self.frames: list[pb.Frame] = []
        self.arrived: list[float] = []
        self.drawing = Drawing()
        self.error: grpc.RpcError | None = None
        self.changed = threading.Condition()  # a frame came, or the stream ended
        self.ended = False
        self.thread = threading.Thread(target=self._read)
        self.thread.start()

    def _read(self) -> None:
        try:
            for frame in self.call:
                self.drawing.apply(frame)  # raises on a gap, or a keyframe that disagrees
                with self.changed:
                    self.frames.append(frame)
                    self.arrived.append(time.monotonic())
                    self.changed.notify_all()
        except grpc.RpcError as err:
            self.error = err
        finally:
            with self.changed:
                self.ended = True
                self.changed.notify_all()

    def wait_for(self, n: int) -> None:
        """Until n frames came or the stream ended (at most TIMEOUT)."""
        with self.changed:
            self.changed.wait_for(lambda: len(self.frames) >= n or self.ended, TIMEOUT)

    def join(self) -> None:
        self.thread.join(TIMEOUT)
        assert not self.thread.is_alive(), "the stream did not end"
        assert self.error is None, self.error


def assert_stopped_where_it_was(frames: list[pb.Frame]) -> None:
    """The last frame is CANCELLED, drawn at the point the stream had reached."""
    last, before = frames[-1], frames[-2]
    assert last.outcome == pb.CANCELLED
    assert last.seq == before.seq + 1
    assert last.counters == before.counters and last.last_step == before.last_step
    assert last.board and last.cursor == -1
    drawing = Drawing()
    for frame in frames[:-1]:
        drawing.apply(frame)
    assert last.board == drawing.text


def test_cancel_stops_a_paced_playback_of_a_finished_search_at_once(service):
    channel, stub = service.stub()
    reader = Reader(stub.Solve(watched(duration_ms=10_000, fps=30), timeout=TIMEOUT))
    reader.wait_for(31)  # a second of a ten-second playback; the worker is long done
    t0 = time.monotonic()
    assert stub.Cancel(pb.CancelRequest(job_id=reader.frames[0].job_id), timeout=TIMEOUT).cancelled
    reader.join()
    ended = reader.arrived[-1] - t0
    assert ended < 1.0, ended  # one frame interval in fact; wide: a behaviour check, not a benchmark
    frames = reader.frames
    assert len(frames) < 100  # not the 301 of the whole playback
    assert_stopped_where_it_was(frames)
    # A Watch after the cancel plays up to that point and ends the same way.
    again = list(stub.Watch(pb.WatchRequest(job_id=frames[0].job_id, unpaced=True), timeout=TIMEOUT))
    channel.close()
    assert again == frames
    # Nothing left to stop now.
    channel, stub = service.stub()
    assert not stub.Cancel(pb.CancelRequest(job_id=frames[0].job_id), timeout=TIMEOUT).cancelled
    channel.close()


def test_cancel_stops_a_search_paced_by_steps_per_frame(service):
    channel, stub = service.stub()
    reader = Reader(stub.Solve(watched(steps_per_frame=1, fps=30), timeout=TIMEOUT))
    reader.wait_for(6)
    t0 = time.monotonic()
    assert stub.Cancel(pb.CancelRequest(job_id=reader.frames[0].job_id), timeout=TIMEOUT).cancelled
    reader.join()
    channel.close()
    assert reader.arrived[-1] - t0 < 1.0
    assert len(reader.frames) < 60
    assert_stopped_where_it_was(reader.frames)


def test_two_watchers_stop_each_where_it_was_and_a_later_watch_at_the_furthest(service):
    channel, stub = service.stub()
    ahead = Reader(stub.Solve(watched(duration_ms=10_000, fps=30), timeout=TIMEOUT))
    ahead.wait_for(30)  # a second in
    job_id = ahead.frames[0].job_id
    behind = Reader(stub.Watch(pb.WatchRequest(job_id=job_id, runs=True), timeout=TIMEOUT))
    ahead.wait_for(60)
    assert stub.Cancel(pb.CancelRequest(job_id=job_id), timeout=TIMEOUT).cancelled
    ahead.join()
    behind.join()
    a = ahead.frames
    b = [f for message in behind.frames for f in split(message)]
    assert a[-1].seq > b[-1].seq  # each at its own point
    assert_stopped_where_it_was(a)
    assert_stopped_where_it_was(b)
    later = list(stub.Watch(pb.WatchRequest(job_id=job_id, after_seq=b[-2].seq, unpaced=True), timeout=TIMEOUT))
    channel.close()
    assert later[-1].seq == a[-1].seq and later[-1].board == a[-1].board and later[-1].outcome == pb.CANCELLED


def test_a_cancel_on_another_instance_stops_the_stream(service, custom_service):
    other = custom_service()
    channel, stub = service.stub()
    reader = Reader(stub.Solve(watched(duration_ms=10_000, fps=30), timeout=TIMEOUT))
    reader.wait_for(10)
    other_channel, other_stub = other.stub()
    t0 = time.monotonic()
    assert other_stub.Cancel(pb.CancelRequest(job_id=reader.frames[0].job_id), timeout=TIMEOUT).cancelled
    reader.join()
    other_channel.close()
    channel.close()
    assert reader.arrived[-1] - t0 < 1.0
    assert_stopped_where_it_was(reader.frames)


def test_cancel_of_a_finished_unwatched_job_has_nothing_to_stop(stub):
    frames = list(stub.Solve(pb.SolveRequest(board=HARD), timeout=TIMEOUT))
    assert frames[-1].outcome == pb.SOLVED
    assert not stub.Cancel(pb.CancelRequest(job_id=frames[0].job_id), timeout=TIMEOUT).cancelled
    assert list(stub.Watch(pb.WatchRequest(job_id=frames[0].job_id), timeout=TIMEOUT)) == frames
