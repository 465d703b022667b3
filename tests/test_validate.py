"""Bad requests get INVALID_ARGUMENT (or NOT_FOUND, RESOURCE_EXHAUSTED) with a
message naming the field, before anything is queued."""

from __future__ import annotations

import grpc
import pytest

from sudoku.v1 import sudoku_pb2 as pb

GOOD = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
TIMEOUT = 30


def error_of(call, request) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as err:
        reply = call(request, timeout=TIMEOUT)
        if hasattr(reply, "__iter__"):
            list(reply)
    return err.value


@pytest.mark.parametrize(
    ("request_", "field", "words"),
    [
        (pb.SolveRequest(board=""), "board", "expected 81 cells, got 0"),
        (pb.SolveRequest(board=GOOD[:80]), "board", "expected 81 cells, got 80"),
        (pb.SolveRequest(board=GOOD + "1"), "board", "expected 81 cells, got 82"),
        (pb.SolveRequest(board=GOOD[:20] + "x" + GOOD[21:]), "board", "r3c3"),
        (pb.SolveRequest(board=GOOD, entries="5" + "." * 80), "entries", "r1c1"),
        (pb.SolveRequest(board=GOOD, strategy=7), "strategy", "unknown value 7"),
        (pb.SolveRequest(board=GOOD, tie_break=9), "tie_break", "unknown value 9"),
        (pb.SolveRequest(board=GOOD, view=5), "view", "unknown value 5"),
        (pb.SolveRequest(board=GOOD, max_steps=-1), "max_steps", "negative"),
        (pb.SolveRequest(board=GOOD, time_limit_ms=-5), "time_limit_ms", "negative"),
        (pb.SolveRequest(board=GOOD, request_id="no spaces allowed"), "request_id", "characters"),
        (pb.SolveRequest(board=GOOD, view=pb.VIEW_SEARCH, pacing=pb.Pacing(fps=-1)), "pacing.fps", "negative"),
        (
            pb.SolveRequest(board=GOOD, view=pb.VIEW_SEARCH, pacing=pb.Pacing(duration_ms=-1)),
            "pacing.duration_ms",
            "negative",
        ),
    ],
)
def test_bad_solve_requests_name_the_field(stub, request_, field, words):
    error = error_of(stub.Solve, request_)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details().startswith(field + ":"), error.details()
    assert words in error.details()


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (pb.CountRequest(board="1"), "board"),
        (pb.CountRequest(board=GOOD, limit=-2), "limit"),
        (pb.CountRequest(board=GOOD, max_steps=-2), "max_steps"),
    ],
)
def test_bad_count_requests_name_the_field(stub, request_, field):
    error = error_of(stub.CountSolutions, request_)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details().startswith(field + ":")


def test_a_hint_entry_on_a_given_names_the_cell(stub):
    error = error_of(stub.Hint, pb.HintRequest(givens=GOOD, entries="1" + "." * 80))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details().startswith("entries: cell r1c1")


def test_a_malformed_job_id_is_invalid_and_an_unknown_one_not_found(stub):
    bad = error_of(stub.Watch, pb.WatchRequest(job_id="../etc"))
    assert bad.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert bad.details().startswith("job_id:")
    for call, request in ((stub.Watch, pb.WatchRequest), (stub.Cancel, pb.CancelRequest)):
        missing = error_of(call, request(job_id="0" * 32))
        assert missing.code() == grpc.StatusCode.NOT_FOUND
        assert "job_id" in missing.details()


def test_a_full_queue_is_resource_exhausted_at_once(custom_service):
    service = custom_service(queue_bound=0, cache_ttl_s=0)  # no cached answer either
    channel, stub = service.stub()
    for call, request in (
        (stub.Solve, pb.SolveRequest(board=GOOD)),
        (stub.CountSolutions, pb.CountRequest(board=GOOD)),
        (stub.Hint, pb.HintRequest(givens=GOOD)),
    ):
        error = error_of(call, request)
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "queue" in error.details()
    channel.close()


def test_the_service_keeps_answering_after_bad_requests(stub):
    for board in ("", "x" * 81, "\x00" * 81):
        error_of(stub.Solve, pb.SolveRequest(board=board))
    assert list(stub.Solve(pb.SolveRequest(board=GOOD), timeout=TIMEOUT))[-1].outcome == pb.SOLVED
