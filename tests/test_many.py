"""CountMany over a real channel, Redis and worker processes: many boards a message."""

from __future__ import annotations

import logging
import random
import socket
import sys
import threading
import time

import grpc
import pytest
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError
from rq import Worker
from rq.job import Job
from rq.serializers import JSONSerializer

from sudoku import engine, keys, replies
from sudoku.specs import CountManySpec
from sudoku.v1 import sudoku_pb2 as pb
from tests.puzzles import ENDLESS, long_boards, puzzles, relabelled
from tests.stack import until, until_steady
from worker import counting
from worker.run.classes import SudokuWorker

TIMEOUT = 60
INVALID = grpc.StatusCode.INVALID_ARGUMENT.value[0]
ABORTED = grpc.StatusCode.ABORTED.value[0]
EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
V = pb.CountReply


def many(stub, *requests: pb.CountManyRequest) -> list[pb.CountManyReply]:
    return list(stub.CountMany(iter(requests), timeout=TIMEOUT))


def test_counts_match_the_engine_board_by_board(stub):
    rng = random.Random(5)
    sources = puzzles("17_clue") + puzzles("forum_hardest_1905_11plus") + puzzles("invalid_no_solution")
    boards = [relabelled(rng.choice(sources), rng) for _ in range(3_000)]
    (reply,) = many(stub, pb.CountManyRequest(boards=boards, include_solution=True))
    assert not reply.errors and not reply.HasField("error")
    assert len(reply.counts) == len(reply.complete) == len(reply.verdicts) == len(reply.solutions) == 3_000
    for i, board in enumerate(boards):
        found, complete = engine.count(board, limit=2)
        assert (reply.counts[i], reply.complete[i]) == (found, complete)
        assert reply.verdicts[i] == {0: V.NONE, 1: V.UNIQUE}.get(found, V.MULTIPLE)
        assert reply.solutions[i] == (engine.solve(board) or "")


def test_unique_multiple_none_and_unknown(stub):
    unique = puzzles("17_clue")[0]
    clues = [i for i, c in enumerate(unique) if c != "."]
    fewer = list(unique)
    fewer[clues[0]] = fewer[clues[5]] = "."
    conflict = "1" + "." * 8 + "1" + "." * 71
    hard = next(b for b in puzzles("forum_hardest_1905_11plus") if not engine.count(b, limit=2, max_steps=1)[1])
    (reply,) = many(stub, pb.CountManyRequest(boards=[unique, "".join(fewer), conflict]))
    assert list(reply.verdicts) == [V.UNIQUE, V.MULTIPLE, V.NONE]
    assert list(reply.counts) == [1, 2, 0]
    assert list(reply.complete) == [True, True, True]
    (capped,) = many(stub, pb.CountManyRequest(boards=[hard, unique], max_steps=1))
    assert list(capped.verdicts) == [V.UNKNOWN, V.UNIQUE]
    assert list(capped.complete) == [False, True]


def test_a_limit_counts_further_and_below_two_has_no_verdict(stub):
    (reply,) = many(stub, pb.CountManyRequest(boards=["." * 81, puzzles("17_clue")[1]], limit=1000))
    assert list(reply.counts) == [1000, 1]
    (reply,) = many(stub, pb.CountManyRequest(boards=["." * 81], limit=1))
    assert (list(reply.counts), list(reply.verdicts)) == ([1], [V.VERDICT_UNSPECIFIED])


def test_bad_boards_get_errors_at_their_index_and_the_rest_are_counted(stub):
    good = puzzles("17_clue")[:6]
    spaced = "\n".join(good[2][i : i + 9] for i in range(0, 81, 9))  # nine lines of nine: fine
    boards = [good[0], "x" * 81, good[1], spaced, good[3][:80], "", good[4].replace(".", "0")]
    (reply,) = many(stub, pb.CountManyRequest(boards=boards, include_solution=True))
    assert [(e.index, e.error.code) for e in reply.errors] == [(1, INVALID), (4, INVALID), (5, INVALID)]
    assert reply.errors[0].error.message == "boards[1]: cell r1c1: 'x' is not 1-9, '.' or '0'"
    assert reply.errors[1].error.message == "boards[4]: expected 81 cells, got 80"
    assert list(reply.counts) == [1, 0, 1, 1, 0, 0, 1]
    assert list(reply.verdicts) == [V.UNIQUE, 0, V.UNIQUE, V.UNIQUE, 0, 0, V.UNIQUE]
    assert [bool(s) for s in reply.solutions] == [True, False, True, True, False, False, True]
    assert reply.solutions[3] == engine.solve(good[2])


def test_packed_boards_count_like_listed_ones(stub):
    rng = random.Random(8)
    boards = [relabelled(rng.choice(puzzles("17_clue")), rng) for _ in range(500)] + [puzzles("invalid_no_solution")[0]]
    boards[7] = boards[7].replace(".", "0")
    (listed, packed) = many(stub, pb.CountManyRequest(boards=boards, include_solution=True),
                            pb.CountManyRequest(packed_boards="".join(boards).encode(), include_solution=True))
    assert packed == listed
    assert list(packed.verdicts) == [V.UNIQUE] * 500 + [V.NONE]


def test_bad_packed_boards_get_errors_at_their_index(stub):
    good = puzzles("17_clue")[:3]
    packed = (good[0] + "x" * 81 + good[1]).encode() + b"\xff" + good[2][1:].encode() + (" " + good[2][1:]).encode()
    packed += (good[0][:40] + " " + good[0][41:]).encode()  # a space mid-board: no whitespace in packed boards
    (reply,) = many(stub, pb.CountManyRequest(packed_boards=packed))
    assert [(e.index, e.error.message) for e in reply.errors] == [
        (1, "packed_boards[1]: byte 81 (cell r1c1): 'x' is not 1-9, '.' or '0'"),
        (3, "packed_boards[3]: byte 243 (cell r1c1): 'ÿ' is not 1-9, '.' or '0'"),
        (4, "packed_boards[4]: byte 324 (cell r1c1): ' ' is not 1-9, '.' or '0'"),
        (5, "packed_boards[5]: byte 445 (cell r5c5): ' ' is not 1-9, '.' or '0'"),
    ]
    assert list(reply.verdicts) == [V.UNIQUE, 0, V.UNIQUE, 0, 0, 0]
    replies = many(stub, pb.CountManyRequest(packed_boards=packed[:100]),
                   pb.CountManyRequest(packed_boards=packed[:81], boards=good[:1]))
    assert [r.error.message for r in replies] == [
        "packed_boards: 100 bytes is not a whole number of 81-cell boards",
        "boards, packed_boards: send one of them, not both",
    ]


def test_a_bad_request_gets_its_own_error_and_the_call_goes_on(stub, custom_service):
    board = puzzles("17_clue")[0]
    replies = many(
        stub,
        pb.CountManyRequest(boards=[board]),
        pb.CountManyRequest(boards=[board], limit=-1),
        pb.CountManyRequest(boards=[board], max_steps=-5),
        pb.CountManyRequest(boards=[board]),
    )
    assert [r.error.message for r in replies] == [
        "", "limit: must not be negative, got -1", "max_steps: must not be negative, got -5", ""
    ]
    assert [list(r.counts) for r in replies] == [[1], [], [], [1]]
    small = custom_service(max_chunk=3)
    channel, small_stub = small.stub()
    with channel:
        replies = many(small_stub, pb.CountManyRequest(boards=[board] * 4), pb.CountManyRequest(boards=[board] * 3))
    assert replies[0].error.code == INVALID
    assert replies[0].error.message == "boards: at most 3 boards per request, got 4"
    assert list(replies[1].counts) == [1, 1, 1]


def test_undecodable_bytes_are_that_requests_error(service):
    board = puzzles("17_clue")[0]
    channel = grpc.insecure_channel(service.address)
    call = channel.stream_stream("/sudoku.v1.Sudoku/CountMany", request_serializer=lambda b: b,
                                 response_deserializer=pb.CountManyReply.FromString)
    good = pb.CountManyRequest(boards=[board]).SerializeToString()
    bad = b"\x0a\x03\xff\xfe\xfd"  # field 1 (boards), 3 bytes that are not UTF-8
    with channel:
        replies = list(call(iter([good, bad, good]), timeout=TIMEOUT))
    assert [r.error.message for r in replies] == ["", "boards: not valid UTF-8 (protobuf strings must be)", ""]
    assert [list(r.counts) for r in replies] == [[1], [], [1]]


def test_a_call_over_max_batch_ends_resource_exhausted_after_the_requests_that_fit(custom_service):
    small = custom_service(max_batch=5)
    board = puzzles("17_clue")[0]
    channel, stub = small.stub()
    replies = []
    with channel:
        call = stub.CountMany(iter([pb.CountManyRequest(boards=[board] * 3)] * 3), timeout=TIMEOUT)
        try:
            for reply in call:
                replies.append(reply)
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert err.details() == "at most 5 boards per CountMany call"
        else:
            raise AssertionError("the call did not end RESOURCE_EXHAUSTED")
    assert [list(r.counts) for r in replies] == [[1, 1, 1]]


def test_a_request_spreads_over_jobs_and_replies_keep_request_order(custom_service):
    small = custom_service(many_job_size=7)
    rng = random.Random(9)
    chunks = [[relabelled(rng.choice(puzzles("17_clue")), rng) for _ in range(23)] for _ in range(6)]
    channel, stub = small.stub()
    with channel:
        replies = many(stub, *(pb.CountManyRequest(boards=c) for c in chunks))
    assert [len(r.counts) for r in replies] == [23] * 6
    assert all(list(r.verdicts) == [V.UNIQUE] * 23 for r in replies)


@pytest.mark.slow
def test_a_reader_that_stops_reading_slows_the_sender(service, redis):
    sent = 0
    # With solutions a reply is as big as its request (8 KB), so gRPC's
    # flow-control windows fill within a few MB in both directions.
    chunk = pb.CountManyRequest(boards=puzzles("17_clue")[:100], include_solution=True)

    def requests():
        nonlocal sent
        while sent < 100_000:
            sent += 1
            yield chunk

    # Boards of calls whose service was stopped or killed in other tests
    # (tests/test_client.py) stay until they expire: not this call's.
    earlier = set(redis.scan_iter(keys.boards("*")))
    channel, stub = service.stub()
    call = stub.CountMany(requests(), timeout=TIMEOUT)
    assert len(next(call).counts) == 100  # then read nothing more
    samples = until_steady(lambda: sent)
    call.cancel()
    channel.close()
    assert samples[-1] == samples[-2], f"still taking requests: {samples}"
    # Nowhere near the 800 MB of 100,000 requests.
    assert sent < 5_000, samples
    # The jobs of the cancelled call end and take their boards with them.
    left = lambda: set(redis.scan_iter(keys.boards("*"))) - earlier  # noqa: E731
    until(lambda: not left(), lambda: f"the cancelled call's boards went, not {left()}", timeout=20, every=0.1)


def test_boards_the_first_rounds_cap_stopped_get_more_rounds(redis, monkeypatch):
    """The worker's count of a part's boards, in this process: a first
    round capped at one guess leaves the hard boards to the rounds of a
    lone count."""
    monkeypatch.setattr(counting, "FIRST_ROUND_GUESSES", 1)
    hard = puzzles("forum_hardest_1905_11plus")[:10] + [puzzles("multi_solution_16_clue")[0]]
    key = keys.boards("test-first-round")
    redis.set(key, "".join(hard), ex=60)
    spec = CountManySpec(boards_key=key, limit=2, max_steps=10**8, time_limit_ms=10_000, include_solution=True)
    result = counting.count_many(redis, spec)
    assert engine.count_many("".join(hard), 2, 1)[1].count(0) >= 5  # the cap did stop most of them
    assert result["counts"] == "1" * 10 + "2" and result["incomplete"] == []
    assert result["verdicts"] == str(V.UNIQUE) * 10 + str(V.MULTIPLE)
    assert [result["solutions"][i * 81 : i * 81 + 81] for i in range(10)] == [engine.solve(b) for b in hard[:10]]
    capped = CountManySpec(boards_key=key, limit=2, max_steps=1, time_limit_ms=10_000)
    result = counting.count_many(redis, capped)
    assert result["incomplete"] == [i for i, b in enumerate(hard) if not engine.count(b, limit=2, max_steps=1)[1]]


def count_while_the_boards_are_tampered_with(stub, redis, tamper) -> list[pb.CountManyReply]:
    """A CountMany call of two requests; both workers are kept busy while
    `tamper(redis, key)` is done to the boards of the first request's
    waiting job. Its replies (or its error)."""
    busy = [stub.Solve(pb.SolveRequest(board=ENDLESS, strategy=pb.STRATEGY_NAIVE, time_limit_ms=1500),
                       timeout=TIMEOUT) for _ in range(2)]
    for call in busy:
        next(call)
    until(lambda: len(busy_workers(redis)) >= 2, "both workers started a solve", timeout=TIMEOUT)
    board = puzzles("17_clue")[0]
    taken = threading.Event()

    def requests():
        yield pb.CountManyRequest(boards=[board, board])
        assert taken.wait(TIMEOUT), "the boards never appeared in Redis"
        yield pb.CountManyRequest(boards=[board])

    earlier = set(redis.scan_iter(keys.boards("*")))  # left by calls cancelled in other tests

    def take_the_boards():
        first = until(lambda: next((k for k in redis.scan_iter(keys.boards("*")) if k not in earlier), None),
                      "the call's boards were in Redis", timeout=TIMEOUT, every=0.005)
        tamper(redis, first)
        taken.set()

    thief = threading.Thread(target=take_the_boards)
    thief.start()
    try:
        return list(stub.CountMany(requests(), timeout=TIMEOUT))
    finally:
        thief.join()
        for call in busy:
            call.cancel()


def test_a_job_that_fails_gives_its_boards_aborted_and_the_call_goes_on(stub, redis):
    """The boards of a waiting CountMany job are spoiled: the job fails on
    every attempt, its boards are ABORTED with the reason, and the next
    request is counted."""
    spoil = lambda redis, key: redis.set(key, b"x" * 162, keepttl=True)  # noqa: E731
    replies = count_while_the_boards_are_tampered_with(stub, redis, spoil)
    assert [(e.index, e.error.code) for e in replies[0].errors] == [(0, ABORTED), (1, ABORTED)]
    assert "ValueError: board 0: cell r1c1" in replies[0].errors[0].error.message
    assert list(replies[0].verdicts) == [0, 0] and list(replies[0].complete) == [False, False]
    assert list(replies[1].verdicts) == [V.UNIQUE]


def test_a_job_whose_boards_are_gone_ends_the_call_unavailable(stub, redis):
    """The boards of a waiting CountMany job are gone while the job is not:
    what a Redis that restarted empty between their write and the job's
    leaves. The job fails for want of them; the call ends UNAVAILABLE, so
    that its client sends the requests not yet answered again
    (client/batches.py), as for a job lost whole."""
    with pytest.raises(grpc.RpcError) as caught:
        count_while_the_boards_are_tampered_with(stub, redis, lambda redis, key: redis.delete(key))
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "the job store lost this call's job" in caught.value.details()


def test_a_job_whose_boards_are_gone_is_one_warning_in_the_workers_log(redis, caplog):
    """RQ logs a failed job with its traceback at ERROR; a job whose boards
    a Redis restart lost fails by design (the test above: its call ends
    UNAVAILABLE and the client resends), so the worker says so in one line,
    as it does for a job whose commands a full Redis refused (it is
    retried: tests/test_faults.py). Any other failure keeps RQ's report."""
    heard = []
    worker = SudokuWorker([keys.QUEUE_BATCH], connection=redis, serializer=JSONSerializer,
                          exception_handlers=[lambda job, kind, value, tb: heard.append(kind)])
    job = Job.create(func="worker.jobs.part", connection=redis, serializer=JSONSerializer)
    caplog.set_level(logging.DEBUG)
    gone = counting.BoardsGone("the boards of this job (sudoku:boards:x) are gone")
    full = OutOfMemoryError("command not allowed when used memory > 'maxmemory'.")
    for error, one_line in ((gone, str(gone)), (full, "Redis refused its commands for its memory (maxmemory)"),
                            (ValueError("a bug"), None)):
        caplog.clear()
        try:
            raise error
        except Exception:  # noqa: BLE001 - as RQ's perform_job catches a job's exception
            worker.handle_exception(job, *sys.exc_info())
        # The worker's and RQ's records (another test's gRPC threads may log meanwhile).
        said = [(r.levelname, r.getMessage()) for r in caplog.records if r.name.startswith(("sudoku", "rq"))]
        if one_line:
            assert said == [("WARNING", f"job {job.id}: {one_line}")], said
        else:
            assert [level for level, _ in said] == ["ERROR"] and "Traceback" in said[0][1], said
    assert heard == [counting.BoardsGone, OutOfMemoryError, ValueError]  # a deployer's handlers hear of each


def maximal(boards: list[str]) -> pb.CountManyRequest:
    """A request as greedy as the limits allow."""
    return pb.CountManyRequest(boards=boards, limit=1_000_000, time_limit_ms=10_000)


def test_a_call_stops_at_its_share_of_worker_time(custom_service):
    """SUDOKU_MAX_CALL_WORK_S bounds a call's worker time: a job stops where
    its grant ends, the boards it did not reach get RESOURCE_EXHAUSTED, and
    once the call has used it all it ends RESOURCE_EXHAUSTED, naming the
    setting. Greedy requests no longer take workers for hours."""
    service = custom_service(max_call_work_s=2)
    channel, stub = service.stub()
    boards = long_boards(6)
    t0 = time.monotonic()
    replies = []
    # Far more requests than the budget reaches: the call spends it over
    # about 20, each job granted a share of what is left, and with only 20
    # the last could be answered (its boards EXHAUSTED) before a grant found
    # nothing left, and the call end OK.
    with pytest.raises(grpc.RpcError) as err:
        for reply in stub.CountMany(iter([maximal(boards)] * 200), timeout=TIMEOUT):
            replies.append(reply)
    took = time.monotonic() - t0
    channel.close()
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "SUDOKU_MAX_CALL_WORK_S" in err.value.details()
    uncounted = [e for r in replies for e in r.errors if e.error.code == EXHAUSTED]
    assert uncounted and "SUDOKU_MAX_CALL_WORK_S" in uncounted[0].error.message
    assert took < 10, took  # 2 s of worker time over two workers, and the replies


def busy_workers(redis) -> list[str]:
    return [w.name for w in Worker.all(connection=redis, serializer=JSONSerializer) if w.get_state() == "busy"]


@pytest.mark.parametrize("method", ["CountMany", "CountBatch"])
def test_a_cancelled_call_stops_its_jobs_within_a_second(custom_service, redis, method):
    """Both workers on a cancelled call's long boards (and more of its jobs
    queued): soon after the cancel no worker is busy, and none of its
    boards is left in Redis. Soon: within a second on an idle machine (the
    jobs look at the call's flag a few times a second); the bound here is
    half the 10 s their own time limit would take, so that only the cancel
    can meet it, however busy the machine."""
    boards = long_boards(16)
    earlier = set(redis.scan_iter(keys.boards("*")))
    channel, stub = custom_service(batch_size=2).stub()  # CountBatch: 8 jobs, not one
    if method == "CountMany":
        call = stub.CountMany(iter([maximal(boards[i::8]) for i in range(8)]), timeout=TIMEOUT)
    else:
        requests = [pb.CountRequest(board=b, limit=1_000_000, time_limit_ms=10_000) for b in boards]
        call = getattr(stub, method)(iter(requests), timeout=TIMEOUT)
    until(lambda: len(busy_workers(redis)) >= 2, "the workers took the call's jobs", timeout=10)
    call.cancel()
    until(lambda: not busy_workers(redis), lambda: f"the workers stopped, not {busy_workers(redis)}", timeout=5)
    channel.close()
    assert not set(redis.scan_iter(keys.boards("*"))) - earlier


@pytest.mark.parametrize("counts", [[], [0, 1, 2, 127], [1, 0] * 150, [1, 128, 2], [300, 1], [2**40]])
def test_a_replys_lists_are_the_same_whether_they_go_in_as_bytes_or_numbers(counts):
    complete = [i % 2 == 0 for i in range(len(counts))]
    verdicts = [i % 5 for i in range(len(counts))]
    solutions = ["1" * 81 if i % 3 else "" for i in range(len(counts))]
    expected = pb.CountManyReply(counts=counts, complete=complete, verdicts=verdicts, solutions=solutions)
    # _reply builds them as bytes while every count is a digit, else as lists
    as_bytes = [bytearray(values) if max(values, default=0) < 256 else values for values in (counts, complete, verdicts)]
    for given in ((counts, complete, verdicts), as_bytes):
        reply = replies._lists(*given, solutions)
        assert reply == expected
        assert (list(reply.counts), list(reply.complete), list(reply.verdicts)) == (counts, complete, verdicts)


@pytest.mark.parametrize("method", ["CountMany", "CountBatch"])
def test_a_service_stopped_under_a_call_stops_its_jobs_and_leaves_nothing_running(custom_service, redis, method):
    """sudoku-server stopping with no grace while a batch call's jobs run:
    the call's jobs stop and its boards go, and when App.stop returns none
    of the call's clean-up is still running on the loop (it would open Redis
    connections on closed clients, which nobody closes)."""
    boards = long_boards(16)
    earlier = set(redis.scan_iter(keys.boards("*")))
    service = custom_service(batch_size=2)
    channel, stub = service.stub()
    if method == "CountMany":
        call = stub.CountMany(iter([maximal(boards[i::8]) for i in range(8)]), timeout=TIMEOUT)
    else:
        requests = [pb.CountRequest(board=b, limit=1_000_000, time_limit_ms=10_000) for b in boards]
        call = stub.CountBatch(iter(requests), timeout=TIMEOUT)
    until(lambda: len(busy_workers(redis)) >= 2, "the workers took the call's jobs", timeout=10)
    service.stop(grace=0)
    assert service.leftover == []
    until(lambda: not busy_workers(redis), lambda: f"the workers stopped, not {busy_workers(redis)}", timeout=1.5)
    call.cancel()
    channel.close()
    assert not set(redis.scan_iter(keys.boards("*"))) - earlier


class CountingRedis:
    """A real Redis client that counts EXISTS calls per thread."""

    def __init__(self, redis):
        self.redis = redis
        self.looks: list[str] = []

    def exists(self, key):
        self.looks.append(threading.current_thread().name)
        return self.redis.exists(key)


def test_a_watched_job_sees_its_cancel_without_looking_itself(redis):
    """Inside watched() the work's own thread never waits for a look (a
    round trip): a thread looks every CHECK_EVERY_S, and over() reads what
    it found; a cancel flag set mid-way is seen within a look or two."""
    call_id = f"watch-{time.monotonic_ns()}"
    looking = CountingRedis(redis)
    work = counting.CallWork(looking, call_id, budget_ms=0)
    with work.watched() as stop:
        assert not work.over()
        redis.set(keys.cancel(call_id), 1, ex=60)
        until(work.over, "the cancel was seen", timeout=3 * counting.CallWork.CHECK_EVERY_S + 1, every=0.005)
        assert stop[0] == 1
    assert looking.looks and set(looking.looks) == {"bounds"}
    assert work.over()  # and stays over


def test_a_watchers_failed_look_is_raised_in_the_work():
    """Redis away during a watched job: over() raises the look's error, so
    the job fails and is retried instead of counting on unwatched."""
    # A port bound and never listened on refuses every connection, and no
    # other process (another test's Redis) can take it meanwhile, as it
    # could a port free_port() found free.
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        dead = Redis(host="127.0.0.1", port=held.getsockname()[1], socket_connect_timeout=0.2)
        work = counting.CallWork(dead, "gone", budget_ms=0)
        with work.watched() as stop:
            until(lambda: work.failure is not None, "the look failed", timeout=5, every=0.01)
            assert stop[0] == 1
            with pytest.raises(RedisConnectionError):
                work.over()
