"""The client library against the real stack: every call, sync and asyncio,
errors with their code and message, resuming a watched search after the
service went away, and count_batch's order and bounded read-ahead."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import subprocess
import time
from concurrent import futures

import grpc
import pytest
from rq.job import Job

from client import AsyncClient, Client, Retry, SudokuError
from client.frames import Drawing, FrameError, draw
from sudoku import keys
from sudoku.grid import is_solution_of
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc
from tests.frames_util import attached
from tests.puzzles import ENDLESS, puzzles
from tests.stack import ServiceThread, free_port, make_settings, reap, start_sudoku_server, until

WIKIPEDIA = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
WIKIPEDIA_SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps
LONG = ENDLESS  # naive: runs until its cap or a cancel
FAST_RETRY = Retry(attempts=8, base=0.05, cap=0.5)


def test_the_published_service_config_keeps_the_clients_retries_and_deadlines():
    """The numbers the client had before it read them from the service config
    (docs/service-config.md): 5 retries of UNAVAILABLE alone, 0.1 s doubling
    to at most 2 s, 60 s for a unary call, no deadline on a stream."""
    import json

    from client import connection

    assert (Retry().attempts, Retry().base, Retry().cap, Retry().multiplier) == (5, 0.1, 2.0, 2)
    assert connection.RETRYABLE == {grpc.StatusCode.UNAVAILABLE}
    assert connection.UNARY_TIMEOUT == 60.0
    config = connection.load_service_config()
    streams = {"Solve", "Watch", "CountBatch", "CountMany", "GradeMany", "Generate"}
    for entry in config["methodConfig"]:
        methods = {name.get("method") for name in entry["name"]}
        assert entry["retryPolicy"] == config["methodConfig"][0]["retryPolicy"]
        assert ("timeout" in entry) == (methods == {None}), entry  # streams have none
        assert methods in ({None}, streams)
    names = {m.name for m in pb.DESCRIPTOR.services_by_name["Sudoku"].methods}
    streaming = {m.name for m in pb.DESCRIPTOR.services_by_name["Sudoku"].methods
                 if m.client_streaming or m.server_streaming}
    assert streaming == streams and streams < names
    channel = json.loads(connection.channel_service_config("round_robin"))
    assert channel["loadBalancingConfig"] == [{"round_robin": {}}]
    # The client retries by itself, and gives each call its own deadline:
    # the config's 60 s would cap a call made with timeout=None.
    assert all("retryPolicy" not in entry and "timeout" not in entry for entry in channel["methodConfig"])


@pytest.fixture
def client(service):
    with Client(service.address, timeout=30) as client:
        yield client


def test_solve_returns_the_solution_and_the_job(client):
    result = client.solve(WIKIPEDIA.replace(".", "0"), strategy="naive", tie_break="first")
    assert result.solved and result.outcome == pb.SOLVED and result.outcome_name == "SOLVED"
    assert result.solution == WIKIPEDIA_SOLUTION
    assert result.job.strategy == pb.STRATEGY_NAIVE and result.job.givens == WIKIPEDIA
    assert result.counters.steps > 0 and len(result.job_id) == 32


def test_conflicting_givens_are_exhausted_with_the_cells(client):
    result = client.solve("55" + "." * 79)
    assert result.outcome == pb.EXHAUSTED and not result.solved
    assert sorted(result.conflicts) == [0, 1]


def test_a_step_cap_gives_up(client):
    result = client.solve(HARD, strategy="naive", max_steps=500)
    assert (result.outcome, result.counters.steps) == (pb.GAVE_UP, 500)


def test_errors_carry_the_code_and_the_servers_message(client):
    with pytest.raises(SudokuError) as err:
        client.solve("x" + "." * 80)
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.message == "board: cell r1c1: 'x' is not 1-9, '.' or '0'"
    assert err.value.address == client.address
    assert str(err.value) == "INVALID_ARGUMENT: board: cell r1c1: 'x' is not 1-9, '.' or '0'"
    with pytest.raises(SudokuError) as err:
        list(client.attach("0" * 32))
    assert err.value.code == grpc.StatusCode.NOT_FOUND and "job_id" in err.value.message
    with pytest.raises(SudokuError) as err:
        client.count(WIKIPEDIA, limit=-1)
    assert (err.value.code, err.value.message) == (grpc.StatusCode.INVALID_ARGUMENT,
                                                   "limit: must not be negative, got -1")


def test_a_deadline_is_per_call(client):
    with pytest.raises(SudokuError) as err:
        list(client.watch(HARD, duration=5, timeout=0.5))
    assert err.value.code == grpc.StatusCode.DEADLINE_EXCEEDED


def test_watch_draws_the_search_to_the_solution(client):
    stream = client.watch(HARD, duration=1, fps=30, strategy="naive")
    frames = list(stream)
    boards = draw(frames)
    assert frames[-1].outcome == pb.SOLVED and boards[-1] == frames[-1].solution
    assert is_solution_of(boards[-1], HARD)
    assert all(f.total_steps == 671_215 for f in frames[1:])
    assert stream.result().solution == boards[-1] and stream.job_id == frames[0].job_id


def test_attach_replays_a_finished_job(client):
    frames = list(client.watch(WIKIPEDIA, steps_per_frame=5, unpaced=True))
    assert list(client.attach(frames[0].job_id, after_seq=3, unpaced=True)) == attached(frames, 3)


def test_a_drawing_starts_at_a_keyframe(client):
    """A drawing starts at a frame with a board (a stream's first frame
    always has one); one without cannot be drawn, and the error says why."""
    frames = list(client.watch(HARD, duration=0.5, fps=20, strategy="naive"))
    assert frames[0].board
    plain = next(f for f in frames if not f.board)
    with pytest.raises(FrameError, match=rf"first frame \({plain.seq}\) has no board"):
        Drawing().apply(plain)


def test_pause_and_resume_continue_without_a_gap(client):
    stream = client.watch(HARD, duration=1, fps=20)
    frames = [next(stream) for _ in range(4)]
    stream.pause()
    assert stream.paused
    time.sleep(0.3)
    stream.resume()
    frames += list(stream)
    assert [f.seq for f in frames] == list(range(1, len(frames) + 1))
    assert draw(frames)[-1] == frames[-1].solution


def test_cancel_stops_the_job(client, redis):
    stream = client.watch(LONG, strategy="naive", steps_per_frame=1000)
    next(stream)
    assert stream.cancel()
    assert list(client.attach(stream.job_id, after_seq=stream.last_seq))[-1].outcome == pb.CANCELLED
    # The service ends the cancelled stream's playback after its client has
    # gone (it does not wait for it); until then a Cancel still has it to stop.
    until(lambda: not redis.zcard(keys.playbacks(stream.job_id)), "the playbacks ended", timeout=5, every=0.01)
    assert not client.cancel(stream.job_id)


class Restarting:
    """A service on an address of its own that a test stops and starts
    again on the same address while a call is under way."""

    def __init__(self, redis_url: str):
        port = free_port()
        # Any HTTP port (make_settings): the default 8080 may be taken.
        self.settings = lambda: make_settings(redis_url, listen=f"127.0.0.1:{port}", max_count_limit=SLOW_LIMIT,
                                              max_time_ms=ROOMY_MS)
        self.running = [ServiceThread(self.settings()).start()]
        self.address = self.running[0].address

    def restart(self) -> None:
        """The calls in flight end UNAVAILABLE; another service takes the address."""
        self.running[-1].stop(grace=0)
        self.running.append(ServiceThread(self.settings()).start())

    def close(self) -> None:
        for service in self.running:
            if service.loop.is_running():
                service.stop()


@pytest.fixture
def restarting(redis_url, workers):
    service = Restarting(redis_url)
    yield service
    service.close()


def test_watch_resumes_when_the_service_restarts(restarting):
    """The service goes away mid-stream and comes back on the same address:
    the stream continues with Watch from the last seq, nothing missed."""
    with Client(restarting.address, retry=FAST_RETRY) as client:
        stream = client.watch(HARD, duration=1.5, fps=20, strategy="naive")
        frames = [next(stream) for _ in range(5)]
        restarting.restart()
        frames += list(stream)
    assert [f.seq for f in frames] == list(range(1, len(frames) + 1))
    boards = draw(frames)
    assert frames[-1].outcome == pb.SOLVED and is_solution_of(boards[-1], HARD)


class FlakySolve:
    """The service's stub, but the first Solve fails with UNAVAILABLE."""

    def __init__(self, stub):
        self.stub = stub
        self.requests: list[pb.SolveRequest] = []

    def __getattr__(self, name):
        return getattr(self.stub, name)

    def Solve(self, request, **kwargs):
        self.requests.append(request)
        if len(self.requests) == 1:
            return DroppedCall()
        return self.stub.Solve(request, **kwargs)


class DroppedCall(grpc.RpcError):
    """A streaming call whose connection dropped before the first frame."""

    def __next__(self):
        raise self

    def cancel(self):
        pass

    def code(self):
        return grpc.StatusCode.UNAVAILABLE

    def details(self):
        return "Socket closed"


def lose_job(redis, job_id: str) -> None:
    """What a Redis that restarted empty does to a job: its stream, its
    state and its request_id are gone."""
    request_keys = [k for k in redis.scan_iter("sudoku:request:*") if job_id.encode() in redis.get(k)]
    redis.delete(keys.frames(job_id), Job.key_for(job_id), keys.plan(job_id), *request_keys)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sync", "asyncio"])
def test_a_watched_job_that_was_lost_is_submitted_again(service, redis, kind):
    """NOT_FOUND for a job the stream holds the request of: the client submits
    it again (same request_id), says so, and goes on from the last seq it had;
    the new job's frames continue the drawing to the solution."""

    def check(stream, frames: list[pb.Frame]) -> None:
        assert stream.resubmissions == 1
        assert [f.seq for f in frames] == list(range(1, len(frames) + 1))
        assert draw(frames)[-1] == frames[-1].solution and frames[-1].outcome == pb.SOLVED
        assert {f.job_id for f in frames if f.job_id} == {frames[0].job_id, stream.job_id}
        assert stream.job_id != frames[0].job_id

    # More frames than the service reads from Redis at once (hub.BATCH), so
    # that it must go back for frames after the job is lost.
    options = dict(strategy="naive", duration=5, fps=60, request_id=f"lost-{kind}-{time.monotonic_ns()}")
    if kind == "sync":
        with Client(service.address, timeout=30) as client:
            stream = client.watch(HARD, **options)
            frames = [next(stream) for _ in range(5)]
            lose_job(redis, stream.job_id)
            frames += list(stream)
        check(stream, frames)
        return

    async def run() -> None:
        async with AsyncClient(service.address, timeout=30) as client:
            stream = client.watch(HARD, **options)
            frames = [await stream.__anext__() for _ in range(5)]
            lose_job(redis, stream.job_id)
            frames += [frame async for frame in stream]
        check(stream, frames)

    asyncio.run(run())


@pytest.mark.parametrize("policy", ["pick_first", "round_robin"])
def test_several_instances_behind_one_target(redis_url, workers, policy):
    """An ipv4: target of two service instances: round_robin spreads the
    streams over both; with either policy, calls go on when one instance stops."""
    first, second = (ServiceThread(make_settings(redis_url)).start() for _ in range(2))
    target = f"ipv4:127.0.0.1:{first.app.port},127.0.0.1:{second.app.port}"
    try:
        with Client(target, timeout=30, load_balancing=policy, retry=FAST_RETRY) as client:
            # round_robin picks among the addresses it has connected to: let both connect first.
            grpc.channel_ready_future(client._channel).result(timeout=10)
            time.sleep(0.5)
            streams = [client.watch(WIKIPEDIA, duration=20, fps=1) for _ in range(6)]
            for stream in streams:
                next(stream)
            open_on = [s.app.servicer.frames.streams for s in (first, second)]
            assert sum(open_on) == 6
            assert (min(open_on) > 0) == (policy == "round_robin"), open_on
            for stream in streams:
                stream.close()
            first.stop()
            for _ in range(4):
                assert client.count(WIKIPEDIA).verdict == pb.CountReply.UNIQUE
    finally:
        first.stop()
        second.stop()


def test_a_load_balancing_policy_must_be_known():
    with pytest.raises(ValueError, match="load_balancing"):
        Client("localhost:1", load_balancing="weighted")


def test_a_retried_solve_sends_the_same_request_id(client):
    client.retry = FAST_RETRY
    client._stub = flaky = FlakySolve(client._stub)
    assert client.solve(WIKIPEDIA).solution == WIKIPEDIA_SOLUTION
    assert len(flaky.requests) == 2 and flaky.requests[0] == flaky.requests[1]
    assert flaky.requests[0].request_id
    again = client.solve(WIKIPEDIA)
    assert flaky.requests[2].request_id != flaky.requests[0].request_id
    assert again.solution == WIKIPEDIA_SOLUTION


def test_the_same_request_id_attaches_to_the_same_job(client):
    request_id = f"test-{time.monotonic_ns()}"
    assert client.solve(HARD, request_id=request_id).job_id == client.solve(HARD, request_id=request_id).job_id


def test_hint_and_count(client):
    hint = client.hint(WIKIPEDIA, include_candidates=True)
    assert hint.kind == pb.HintReply.NEXT_MOVE
    assert WIKIPEDIA_SOLUTION[hint.move.cell] == str(hint.move.value)
    assert len(hint.candidates) == 81
    wrong = client.hint(WIKIPEDIA, "..1" + "." * 78)  # r1c3 should be 4
    assert wrong.kind == pb.HintReply.WRONG_ENTRY and wrong.wrong.should_be == 4
    assert client.count(WIKIPEDIA).verdict == pb.CountReply.UNIQUE
    multiple = client.count(puzzles("multi_solution_16_clue")[0], limit=3)
    assert multiple.count == 3 and multiple.verdict == pb.CountReply.MULTIPLE
    assert client.count(WIKIPEDIA, limit=1, include_solution=True).solution == WIKIPEDIA_SOLUTION


def test_hint_with_pencil_marks_and_explain(client):
    puzzle = puzzles("norvig_hardest")[10]
    marks = [0x1FF] * 81  # every mark on: the rules take off what the board rules out
    step = client.hint(puzzle, pencil_marks=marks).step
    assert step.technique == pb.Step.POINTING
    for e in step.eliminations:
        marks[e.cell] &= ~(1 << (e.value - 1))
    assert client.hint(puzzle, pencil_marks=marks).move.technique == pb.Move.NAKED_SINGLE
    explained = client.explain(puzzle)
    assert explained.solved and explained.steps[0] == step


def test_count_batch_keeps_input_order_and_reports_bad_boards(client):
    unique = puzzles("17_clue") + puzzles("magictour_top1465")
    good = unique + puzzles("multi_solution_16_clue")[:20] + puzzles("invalid_no_solution")[:5]
    boards = good[:100] + ["not a board"] + good[100:] + ["1" * 80]
    items = list(client.count_batch(iter(boards), window=64))
    assert [item.index for item in items] == list(range(len(boards)))
    assert [item.board for item in items] == boards
    bad = [item for item in items if item.error]
    assert [item.index for item in bad] == [100, len(boards) - 1]
    assert bad[0].error.code == grpc.StatusCode.INVALID_ARGUMENT and "board" in bad[0].error.message
    assert bad[0].verdict_name == "ERROR"
    verdicts = [item.verdict_name for item in items if not item.error]
    assert verdicts == ["UNIQUE"] * len(unique) + ["MULTIPLE"] * 20 + ["NONE"] * 5


def test_count_batch_reads_its_input_only_a_window_ahead(client):
    window = 32
    taken = 0

    def boards():
        nonlocal taken
        for board in puzzles("17_clue") + puzzles("magictour_top1465"):
            taken += 1
            yield board

    ahead = []
    for item in client.count_batch(boards(), window=window, include_solution=True, limit=1):
        ahead.append(taken - item.index)
        assert is_solution_of(item.reply.solution, item.board)
    assert max(ahead) <= window + 1


def test_count_many_keeps_input_order_in_chunks_and_reports_bad_boards(client):
    unique = puzzles("17_clue") + puzzles("magictour_top1465")
    good = unique + puzzles("multi_solution_16_clue")[:20] + puzzles("invalid_no_solution")[:5]
    boards = good[:100] + ["not a board"] + good[100:] + ["1" * 80]
    chunks = list(client.count_many(iter(boards), chunk=64, window=2, include_solution=True))
    assert [c.start for c in chunks] == list(range(0, len(boards), 64))
    assert [b for c in chunks for b in c.boards] == boards
    items = [item for c in chunks for item in c.items()]
    assert [item.index for item in items] == list(range(len(boards)))
    bad = [item for item in items if item.error]
    assert [item.index for item in bad] == [100, len(boards) - 1]
    assert bad[0].error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert bad[0].error.message == "boards[36]: cell r1c1: 'n' is not 1-9, '.' or '0'"  # its place in its chunk
    verdicts = [item.verdict_name for item in items if not item.error]
    assert verdicts == ["UNIQUE"] * len(unique) + ["MULTIPLE"] * 20 + ["NONE"] * 5
    assert all(is_solution_of(i.reply.solution, i.board) for i in items if i.verdict_name == "UNIQUE")
    assert chunks[0].counts[:3] == [1, 1, 1] and chunks[0].verdicts[0] == pb.CountReply.UNIQUE


def test_count_many_reads_its_input_only_a_window_of_chunks_ahead(client):
    taken = 0

    def boards():
        nonlocal taken
        for board in puzzles("17_clue") * 20:
            taken += 1
            yield board

    ahead = [taken - c.start for c in client.count_many(boards(), chunk=100, window=3)]
    assert max(ahead) <= 100 * (3 + 1)


def test_a_whole_request_error_reaches_every_board_of_its_chunk(client):
    (chunk,) = client.count_many(puzzles("17_clue")[:5], limit=-1)
    assert sorted(chunk.errors) == [0, 1, 2, 3, 4]
    assert chunk.errors[0].message == "limit: must not be negative, got -1"
    assert [item.verdict_name for item in chunk.items()] == ["ERROR"] * 5


def test_an_unreachable_address_is_unavailable_and_named():
    address = f"127.0.0.1:{free_port()}"
    with Client(address, retry=Retry(attempts=2, base=0.01)) as client:
        with pytest.raises(SudokuError) as err:
            client.count(WIKIPEDIA)
    assert err.value.code == grpc.StatusCode.UNAVAILABLE and err.value.unreachable
    assert err.value.address == address


def test_the_address_comes_from_sudoku_addr(monkeypatch):
    monkeypatch.setenv("SUDOKU_ADDR", "example.invalid:1234")
    with Client() as client:
        assert client.address == "example.invalid:1234"
    with Client("other:1") as client:
        assert client.address == "other:1"
    monkeypatch.delenv("SUDOKU_ADDR")
    with Client() as client:
        assert client.address == "localhost:50051"


def test_the_async_client_does_the_same(service):
    async def main():
        async with AsyncClient(service.address, timeout=30) as client:
            result = await client.solve(WIKIPEDIA)
            assert result.solution == WIKIPEDIA_SOLUTION
            drawing = Drawing()
            stream = client.watch(HARD, duration=1, fps=20)
            seqs = []
            async for frame in stream:
                drawing.apply(frame)
                seqs.append(frame.seq)
                if frame.seq == 3:
                    stream.pause()
                    await asyncio.sleep(0.2)
                    stream.resume()
            assert seqs == list(range(1, len(seqs) + 1))
            assert drawing.text == drawing.solution and is_solution_of(drawing.text, HARD)
            assert (await client.hint(WIKIPEDIA)).kind == pb.HintReply.NEXT_MOVE
            marks = [0x1FF] * 81
            hard = puzzles("norvig_hardest")[10]
            assert (await client.hint(hard, pencil_marks=marks)).kind == pb.HintReply.ELIMINATION
            assert (await client.explain(hard, pencil_marks=marks)).solved
            assert (await client.count(WIKIPEDIA)).verdict == pb.CountReply.UNIQUE
            boards = puzzles("17_clue")[:200] + ["bad"]
            items = [item async for item in client.count_batch(boards, window=16)]
            assert [item.board for item in items] == boards
            assert items[-1].error.code == grpc.StatusCode.INVALID_ARGUMENT

            async def trickle():
                for board in boards:
                    yield board

            for source in (boards, trickle()):
                chunks = [c async for c in client.count_many(source, chunk=50, window=2)]
                assert [item.board for c in chunks for item in c.items()] == boards
                assert [c.start for c in chunks] == list(range(0, len(boards), 50))
                assert chunks[-1].errors[0].code == grpc.StatusCode.INVALID_ARGUMENT
            long = client.watch(LONG, strategy="naive", steps_per_frame=1000)
            await long.__anext__()
            assert await long.cancel()
            last = [frame async for frame in client.attach(long.job_id, after_seq=long.last_seq)][-1]
            assert last.outcome == pb.CANCELLED
            with pytest.raises(SudokuError) as err:
                await client.solve("1" * 82)
            assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT and "82" in err.value.message

    asyncio.run(main())


def test_the_async_client_resumes_when_the_service_restarts(restarting):
    async def main():
        async with AsyncClient(restarting.address, retry=FAST_RETRY) as client:
            frames = []
            async for frame in client.watch(HARD, duration=1.5, fps=20, strategy="naive"):
                frames.append(frame)
                if len(frames) == 5:
                    await asyncio.to_thread(restarting.restart)
            return frames

    frames = asyncio.run(main())
    assert [f.seq for f in frames] == list(range(1, len(frames) + 1))
    assert draw(frames)[-1] == frames[-1].solution


# Counting the empty board to a million solutions keeps a worker busy for a
# good part of a second, so chunks of it are still being counted when the
# service goes away. The services of these tests allow counts ROOMY_MS: on a
# loaded machine (load average 20) the default 10 s ended them at 37-91%.
SLOW = "." * 81
SLOW_LIMIT = 1_000_000
ROOMY_MS = 600_000


class Taken:
    """An input that counts the boards the client has read from it."""

    def __init__(self, boards: list[str]):
        self.boards = boards
        self.taken = 0

    def __iter__(self):
        for board in self.boards:
            self.taken += 1
            yield board


def resent(caplog) -> list[int]:
    """The unanswered requests the client sent again, at each break (its log lines)."""
    found = (re.search(r"sending \w+'s (\d+) unanswered requests again", r.getMessage()) for r in caplog.records)
    return [int(m.group(1)) for m in found if m]


def test_count_many_resumes_from_the_first_unanswered_chunk_when_the_service_restarts(restarting, caplog):
    """The service stops while chunks are being counted: the client sends the
    unanswered ones again to the service that takes the address, then the
    rest of its input; every chunk comes once, in order, counted."""
    caplog.set_level(logging.INFO, "sudoku.client")
    source = Taken([SLOW] * 6)
    chunks = []
    with Client(restarting.address, retry=FAST_RETRY) as client:
        for chunk in client.count_many(source, limit=SLOW_LIMIT, chunk=1, window=2):
            chunks.append(chunk)
            if len(chunks) == 1:
                assert source.taken < 6  # the rest goes to the next service
                restarting.restart()
    assert [c.start for c in chunks] == list(range(6))
    assert [c.counts for c in chunks] == [[SLOW_LIMIT]] * 6 and not any(c.errors for c in chunks)
    assert resent(caplog) and min(resent(caplog)) >= 1


def test_count_batch_resumes_from_the_first_unanswered_board_when_the_service_restarts(restarting, caplog):
    caplog.set_level(logging.INFO, "sudoku.client")
    boards = [SLOW] * 3 + puzzles("17_clue")[:40] + [SLOW] * 3
    items = []
    with Client(restarting.address, retry=FAST_RETRY) as client:
        for item in client.count_batch(Taken(boards), limit=SLOW_LIMIT, window=4):
            items.append(item)
            if len(items) == 1:
                restarting.restart()
    assert [item.index for item in items] == list(range(len(boards)))
    assert [item.board for item in items] == boards and not any(item.error for item in items)
    assert [item.reply.count for item in items] == [SLOW_LIMIT] * 3 + [1] * 40 + [SLOW_LIMIT] * 3
    assert resent(caplog) and min(resent(caplog)) >= 1


def test_the_async_client_resumes_count_many_and_count_batch(restarting, caplog):
    caplog.set_level(logging.INFO, "sudoku.client")

    async def trickle(n: int):
        for _ in range(n):
            yield SLOW

    async def main():
        async with AsyncClient(restarting.address, retry=FAST_RETRY) as client:
            chunks = []
            async for chunk in client.count_many(trickle(5), limit=SLOW_LIMIT, chunk=1, window=2):
                chunks.append(chunk)
                if len(chunks) == 1:
                    await asyncio.to_thread(restarting.restart)
            breaks = len(resent(caplog))
            items = []
            async for item in client.count_batch([SLOW] * 5, limit=SLOW_LIMIT, window=2):
                items.append(item)
                if len(items) == 1:
                    await asyncio.to_thread(restarting.restart)
            return chunks, breaks, items

    chunks, breaks, items = asyncio.run(main())
    assert [c.start for c in chunks] == list(range(5)) and [c.counts for c in chunks] == [[SLOW_LIMIT]] * 5
    assert [i.index for i in items] == list(range(5)) and [i.reply.count for i in items] == [SLOW_LIMIT] * 5
    assert 1 <= breaks < len(resent(caplog)) and min(resent(caplog)) >= 1


def test_count_many_resumes_when_its_server_process_is_killed(redis_url, workers, caplog):
    """SIGKILL of sudoku-server mid-call: the connection drops with no word
    from the server, and the client resumes on the next one at the address."""
    caplog.set_level(logging.INFO, "sudoku.client")
    port = free_port()
    args = ("--listen", f"127.0.0.1:{port}", "--workers", "0", "--max-time-ms", str(ROOMY_MS))
    env = {**os.environ, "REDIS_URL": redis_url}
    first, banner = start_sudoku_server(*args, env=env)
    second = None
    chunks = []
    try:
        assert "listening" in banner, banner
        with Client(f"127.0.0.1:{port}", retry=Retry(attempts=40, base=0.05, cap=0.5)) as client:
            for chunk in client.count_many(Taken([SLOW] * 4), limit=SLOW_LIMIT, chunk=1, window=2):
                chunks.append(chunk)
                if len(chunks) == 1:
                    first.kill()
                    first.wait()
                    second, banner = start_sudoku_server(*args, env=env)
                    assert "listening" in banner, banner
    finally:
        for proc in (first, second):
            if proc is not None:
                reap(proc)
    assert [c.start for c in chunks] == list(range(4)) and [c.counts for c in chunks] == [[SLOW_LIMIT]] * 4
    assert resent(caplog) and min(resent(caplog)) >= 1


def make_certificate(folder) -> tuple[bytes, bytes]:
    """A self-signed certificate for localhost (key, certificate), by openssl."""
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return key.read_bytes(), cert.read_bytes()


class EchoAuthorization(sudoku_pb2_grpc.SudokuServicer):
    """A stand-in service answering Cancel with whether a bearer token came."""

    def Cancel(self, request, context):
        metadata = dict(context.invocation_metadata())
        return pb.CancelReply(cancelled=metadata.get("authorization") == "Bearer s3cret")


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_tls_with_a_ca_file_and_a_bearer_token(tmp_path):
    key, cert = make_certificate(tmp_path)
    server = grpc.server(futures.ThreadPoolExecutor(2))
    sudoku_pb2_grpc.add_SudokuServicer_to_server(EchoAuthorization(), server)
    port = server.add_secure_port("localhost:0", grpc.ssl_server_credentials([(key, cert)]))
    server.start()
    try:
        with Client(f"localhost:{port}", ca_file=str(tmp_path / "cert.pem"), token="s3cret") as client:
            assert client.cancel("0" * 32)
        with Client(f"localhost:{port}", ca_file=str(tmp_path / "cert.pem")) as client:
            assert not client.cancel("0" * 32)
        with Client(f"localhost:{port}", retry=Retry(attempts=0)) as client:  # plaintext to a TLS port
            with pytest.raises(SudokuError) as err:
                client.cancel("0" * 32)
            assert err.value.code == grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop(0)


def test_a_watch_in_runs_hands_out_frames_at_the_frame_rate(client):
    """With runs the service sends about 250 ms of frames a message; the
    stream hands them out one every 1 / fps, like a stream without runs."""
    t0 = time.monotonic()
    frames, handed = [], []
    for frame in client.watch(HARD, duration=1, fps=20, runs=True, strategy="naive"):
        frames.append(frame)
        handed.append(time.monotonic())
    elapsed = time.monotonic() - t0
    assert [f.seq for f in frames] == list(range(1, 22))
    assert not any(f.next_frames for f in frames)
    assert 0.7 < elapsed < 4.0, elapsed  # 20 frames at 20 fps; wide: a behaviour check
    # Frames of one message are not handed out at once: frame k is due 1/20 s
    # after frame k-1 was due, so never before k/20 s after the first (a frame
    # that came late, or a slow reader, only moves the ones after it later;
    # the last frame goes when it comes). Gap by gap is no test: a reader
    # that took its frame late gets the next one sooner, on schedule.
    early = [(k, round(t - handed[0], 3)) for k, t in enumerate(handed[:-1]) if t - handed[0] < k / 20 - 0.005]
    assert not early, early
    assert draw(frames)[-1] == frames[-1].solution
