"""A greedy client cannot lock the others out of frames (service/rpc/admission.py
and the idle limit service/rpc/app.py installs), through a real channel."""

from __future__ import annotations

import time

import grpc
import pytest

from sudoku import keys
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.puzzles import puzzles
from tests.stack import until

HARD = puzzles("norvig_hardest")[0]
TIMEOUT = 60
UNREAD = 60


def long_finished_job(stub, redis) -> tuple[str, int]:
    """A finished job of 20,000 frames (2 MB, more than a connection's
    window) and its last seq."""
    request = pb.SolveRequest(board=HARD, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                              pacing=pb.Pacing(duration_ms=400_000, fps=60, unpaced=True))
    call = stub.Solve(request, timeout=TIMEOUT)
    job_id = next(call).job_id
    call.cancel()  # the job goes on without us

    def last_seq() -> int | None:
        newest = redis.xrevrange(keys.frames(job_id), count=1)
        if newest and pb.Frame.FromString(newest[0][1][b"f"]).outcome:
            return keys.seq_of(newest[0][0])
        return None

    return job_id, until(last_seq, "the job finished", timeout=30, every=0.1)


def test_unread_streams_on_one_connection_leave_room_for_others_and_end(custom_service, redis):
    service = custom_service(stream_idle_s=1)
    channel, stub = service.stub()
    job_id, last_seq = long_finished_job(stub, redis)
    # The greedy client: one connection whose window does not grow (no BDP
    # probing), 60 streams it never reads.
    greedy = grpc.insecure_channel(service.address, options=[("grpc.http2.bdp_probe", 0),
                                                              ("grpc.use_local_subchannel_pool", 1)])
    budget = service.app.servicer.frames
    until(lambda: budget.streams == 0, "the cancelled solve's stream ended", timeout=TIMEOUT)
    unread = [pb_grpc.SudokuStub(greedy).Watch(pb.WatchRequest(job_id=job_id, unpaced=True)) for _ in range(UNREAD)]
    refusals = lambda: [c for c in unread if c.done() and c.code() == grpc.StatusCode.RESOURCE_EXHAUSTED]  # noqa: E731
    until(lambda: budget.streams + len(refusals()) == UNREAD, "the service admitted or refused every stream",
          timeout=TIMEOUT)
    refused = refusals()
    assert 0 < len(refused) < UNREAD
    assert "this connection" in refused[0].details()

    # Another client still gets its frames at once.
    watched = pb.SolveRequest(board=HARD, view=pb.VIEW_SEARCH, pacing=pb.Pacing(duration_ms=2_000, fps=30))
    t0 = time.monotonic()
    call = stub.Solve(watched, timeout=TIMEOUT)
    first_ten = [next(call) for _ in range(10)]
    assert [f.seq for f in first_ten] == list(range(1, 11))
    assert time.monotonic() - t0 < 3.0  # in fact a third of a second at 30 fps; wide margin
    call.cancel()

    # The streams nobody reads end by themselves after the idle limit and
    # free their share: the greedy connection may open a stream again. (Its
    # client learns the status when it reads: the frames already sent come first.)
    until(lambda: budget.streams == 0, "the unread streams ended", timeout=TIMEOUT)
    again = pb_grpc.SudokuStub(greedy).Watch(pb.WatchRequest(job_id=job_id, after_seq=last_seq - 10, unpaced=True))
    assert list(again)[-1].outcome == pb.SOLVED
    stalled = next(c for c in unread if c not in refused)
    with pytest.raises(grpc.RpcError) as err:
        for _ in stalled:
            pass
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "took no frame for 1 s" in err.value.details() and "Watch" in err.value.details()
    greedy.close()
    channel.close()
