"""CountSolutions and CountBatch end to end: verdicts, caps, the cache, order
and back-pressure of a batch."""

from __future__ import annotations

import random
import threading

import grpc
import pytest

from service.jobs.cache import count_key, hint_key
from service.rpc.validate import count_spec, hint_spec
from sudoku import engine
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.puzzles import puzzles, relabelled
from tests.stack import until, until_steady

TIMEOUT = 60


def count(stub, board: str, **fields) -> pb.CountReply:
    return stub.CountSolutions(pb.CountRequest(board=board, **fields), timeout=TIMEOUT)


def test_unique_puzzles_are_unique(stub):
    for board in puzzles("17_clue")[:5] + puzzles("forum_hardest_1905_11plus")[:5]:
        reply = count(stub, board, include_solution=True)
        assert (reply.count, reply.complete, reply.verdict) == (1, True, pb.CountReply.UNIQUE)
        assert len(reply.solution) == 81


def test_two_clues_removed_from_a_unique_puzzle_make_it_multiple(stub):
    board = puzzles("17_clue")[0]
    clues = [i for i, c in enumerate(board) if c != "."]
    fewer = list(board)
    fewer[clues[0]] = fewer[clues[5]] = "."
    reply = count(stub, "".join(fewer))
    assert (reply.count, reply.verdict) == (2, pb.CountReply.MULTIPLE)


def test_contradictory_givens_are_none_with_the_conflicts(stub):
    reply = count(stub, "1" + "." * 8 + "1" + "." * 71)
    assert (reply.count, reply.complete, reply.verdict) == (0, True, pb.CountReply.NONE)
    assert sorted(reply.conflicts) == [0, 9]


def test_a_cap_gives_unknown(stub):
    # A puzzle that takes the engine more than one guess to settle.
    board = next(b for b in puzzles("forum_hardest_1905_11plus") if not engine.count(b, limit=2, max_steps=1)[1])
    reply = count(stub, board, max_steps=1)
    assert (reply.complete, reply.verdict) == (False, pb.CountReply.UNKNOWN)
    assert count(stub, board).verdict == pb.CountReply.UNIQUE


def test_a_limit_above_two_counts_further(stub):
    reply = count(stub, "." * 81, limit=1000)
    assert (reply.count, reply.complete) == (1000, True)


def test_identical_counts_are_answered_from_the_cache(stub, service, redis):
    board = relabelled(puzzles("magictour_top1465")[3], random.Random(7))
    first = count(stub, board)
    key = count_key(count_spec(pb.CountRequest(board=board), service.settings))
    # The cache is written after the reply goes out.
    until(lambda: redis.ttl(key) >= 0, "the cache entry was written", timeout=2, every=0.01)
    assert 0 < redis.ttl(key) <= service.settings.cache_ttl_s
    # Prove the second answer comes from the cache: doctor the cached entry
    # (and drop it after: it is the entry of top1465's fourth board, which
    # other tests of the session count).
    redis.set(key, pb.CountReply(count=7, complete=True, verdict=pb.CountReply.MULTIPLE).SerializeToString(), ex=30)
    try:
        assert count(stub, board.replace(".", "0")).count == 7  # same puzzle, other spelling
        # and the same puzzle with its digits renamed: the count is the same, and so is its entry
        assert count(stub, relabelled(board, random.Random(9))).count == 7
    finally:
        redis.delete(key)
    assert first.count == 1


def test_identical_hints_are_answered_from_the_cache(stub, service, redis):
    board = relabelled(puzzles("magictour_top1465")[5], random.Random(8))
    first = stub.Hint(pb.HintRequest(givens=board))
    key = hint_key(hint_spec(pb.HintRequest(givens=board)))
    # The cache is written after the reply goes out.
    until(lambda: redis.ttl(key) >= 0, "the cache entry was written", timeout=2, every=0.01)
    assert 0 < redis.ttl(key) <= service.settings.cache_ttl_s
    redis.set(key, pb.HintReply(kind=pb.HintReply.NEXT_MOVE, reason="from the cache").SerializeToString(), ex=30)
    try:
        assert stub.Hint(pb.HintRequest(givens=board)).reason == "from the cache"
    finally:
        redis.delete(key)  # other tests of the session may ask for a hint of this board
    assert first.reason != "from the cache"


@pytest.mark.slow
def test_a_batch_of_ten_thousand_returns_every_index_once_in_order(stub):
    rng = random.Random(20261130)
    sources = puzzles("17_clue") + puzzles("qqwing_easy") + puzzles("invalid_no_solution")
    boards = [relabelled(rng.choice(sources), rng) for _ in range(10_000)]
    bad = {17: "x" * 81, 4_000: boards[4_000][:80], 9_999: ""}
    for i, text in bad.items():
        boards[i] = text
    requests = (pb.CountRequest(board=b) for b in boards)
    replies = list(stub.CountBatch(requests, timeout=120))
    assert [r.index for r in replies] == list(range(10_000))
    for i, reply in enumerate(replies):
        if i in bad:
            assert reply.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
            assert reply.error.message.startswith("board:")
        else:
            assert not reply.HasField("error"), reply.error.message
            expected = pb.CountReply.NONE if boards[i] in sources else None
            assert reply.verdict in (pb.CountReply.UNIQUE, pb.CountReply.NONE)
            if expected is not None:
                assert reply.verdict == expected


@pytest.mark.slow
def test_a_batch_reader_that_stops_reading_slows_the_sender(service):
    """Back-pressure: once the client stops reading replies, the service
    stops taking requests; the sender is held by gRPC's flow control with
    no more than the service's bounded queues and the windows hold. When
    the client reads again, everything taken is answered, in order.

    The client's receive window is fixed at 64 KB: gRPC grows it (BDP
    probing) to megabytes, which for replies of a dozen bytes is a quarter
    of a million of them held by the client, taken as fast as the service
    counts, so that the service's own bounds would not show."""
    sent = 0
    done = threading.Event()
    # A kilobyte a request (whitespace in a board is ignored): gRPC's windows
    # count bytes, the service's bounds count requests.
    board = puzzles("17_clue")[0] + " " * 1000

    def requests():
        nonlocal sent
        while sent < 1_000_000 and not done.is_set():
            sent += 1
            yield pb.CountRequest(board=board)

    channel = grpc.insecure_channel(service.address, options=[
        ("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 65_536)])
    with channel:
        call = pb_grpc.SudokuStub(channel).CountBatch(requests(), timeout=TIMEOUT)
        first = next(call)  # then read nothing more
        samples = until_steady(lambda: sent)
        stopped = samples[-1] == samples[-2]
        if stopped:
            done.set()
            indexes = [first.index] + [reply.index for reply in call]
        else:
            call.cancel()
    # Without the service's bounds it goes on taking requests for as long
    # as the sender has them (a million here).
    assert stopped, f"still taking requests: {samples}"
    settings = service.settings
    in_service = settings.batch_size * (settings.batch_inflight + 2)
    # The client's send buffer and the service's receive window, which gRPC
    # grows, hold the rest: megabytes, some thousands of these requests.
    assert sent < in_service + 20_000, samples
    assert indexes == list(range(sent))


def test_a_batch_answers_while_the_client_is_still_sending(stub):
    """A generator sending one puzzle at a time gets each answer promptly."""
    answered = threading.Event()
    board = puzzles("qqwing_easy")[0]

    def requests():
        yield pb.CountRequest(board=board)
        assert answered.wait(10), "no reply to the first request while the stream was open"
        yield pb.CountRequest(board=board)

    replies = []
    for reply in stub.CountBatch(requests(), timeout=TIMEOUT):
        replies.append(reply)
        answered.set()
    assert [r.index for r in replies] == [0, 1]
