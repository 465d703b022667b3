"""Every RPC end to end: a real gRPC channel on loopback, the service, RQ on
a real Redis and worker processes running the C engine."""

from __future__ import annotations

import time
import uuid

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from rq.job import Job

from client.frames import split
from sudoku import engine, keys
from sudoku.grid import is_solution_of
from sudoku.v1 import sudoku_pb2 as pb
from tests.frames_util import attached, draw
from tests.puzzles import ENDLESS, WIKIPEDIA, WIKIPEDIA_SOLUTION, puzzles
from tests.stack import until
from worker.hints import candidates

HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps
TIMEOUT = 30


def solve(stub, board=WIKIPEDIA, **fields) -> list[pb.Frame]:
    return list(stub.Solve(pb.SolveRequest(board=board, **fields), timeout=TIMEOUT))


def search(**pacing) -> dict:
    return {"view": pb.VIEW_SEARCH, "pacing": pb.Pacing(unpaced=True, **pacing)}


def reference_run(board: str, strategy: str = "mrv", tie_break: str = "rotate", max_steps=None):
    stepper = engine.Stepper(board, strategy=strategy, tie_break=tie_break, max_steps=max_steps)
    stepper.skip(10**12)
    return stepper


def test_unwatched_solve_sends_the_job_id_then_the_outcome(stub):
    frames = solve(stub)
    assert [f.seq for f in frames] == [1, 2]
    first, last = frames
    assert first.job_id and first.job_id == last.job_id
    assert first.job.givens == WIKIPEDIA.replace("0", ".")
    assert last.outcome == pb.SOLVED
    assert last.solution == WIKIPEDIA_SOLUTION
    assert draw(frames)[-1] == WIKIPEDIA_SOLUTION


def test_a_watched_solve_of_a_hard_puzzle_draws_the_workers_search(stub):
    expected = reference_run(HARD)
    frames = solve(stub, HARD, **search(duration_ms=2_000, fps=30))
    boards = draw(frames)
    last = frames[-1]
    assert last.outcome == pb.SOLVED
    assert boards[-1] == last.solution == expected.solution
    assert is_solution_of(last.solution, HARD)
    assert last.counters.steps == expected.steps
    assert last.counters.retractions == expected.retractions
    assert len(frames) - 1 == min(60, expected.steps)  # frame 1 + duration x fps frames
    assert all(f.total_steps == expected.steps for f in frames[1:])


def test_every_step_of_a_search_arrives_with_one_step_per_frame(stub):
    expected_events = engine.Stepper(WIKIPEDIA, strategy="naive").run(100_000)
    frames = solve(stub, WIKIPEDIA, strategy=pb.STRATEGY_NAIVE, **search(steps_per_frame=1))
    assert b"".join(f.steps for f in frames) == expected_events
    assert [f.last_step - f.first_step for f in frames[1:]] == [1] * (len(frames) - 1)
    assert draw(frames)[-1] == WIKIPEDIA_SOLUTION


def test_contradictory_givens_are_exhausted_with_the_conflicts(stub):
    board = "55" + "." * 79
    last = solve(stub, board)[-1]
    assert last.outcome == pb.EXHAUSTED
    assert sorted(last.conflicts) == [0, 1]
    assert last.counters.steps == 0


def test_a_puzzle_without_solution_is_exhausted_after_a_search(stub):
    board = puzzles("invalid_no_solution")[0]
    last = solve(stub, board)[-1]
    assert last.outcome == pb.EXHAUSTED
    assert last.counters.steps > 0
    assert not last.solution


def test_the_step_cap_gives_up_at_exactly_that_step(stub):
    last = solve(stub, HARD, strategy=pb.STRATEGY_NAIVE, max_steps=1_000)[-1]
    assert last.outcome == pb.GAVE_UP
    assert last.counters.steps == 1_000


def test_the_first_frame_reports_clamped_ceilings(stub, service):
    first = solve(stub, max_steps=10**15)[0]
    assert first.job.max_steps == service.settings.max_steps
    assert any("max_steps clamped" in note for note in first.job.adjustments)


def test_entries_are_fixed_like_givens_and_reported_apart(stub):
    entries = "." * 2 + "4" + "." * 78  # r1c3 is 4 in the solution
    frames = solve(stub, WIKIPEDIA, entries=entries)
    assert frames[0].job.entries == entries
    assert frames[0].board[2] == "4"
    assert frames[-1].solution == WIKIPEDIA_SOLUTION


def test_watch_after_a_dropped_connection_continues_without_gaps(service):
    channel, stub = service.stub()
    call = stub.Solve(pb.SolveRequest(board=HARD, **search(duration_ms=1_000, fps=30)), timeout=TIMEOUT)
    seen = [next(call) for _ in range(7)]
    call.cancel()
    channel.close()  # the client goes away mid-stream
    job_id = seen[0].job_id

    channel, stub = service.stub()
    rest = list(stub.Watch(pb.WatchRequest(job_id=job_id, after_seq=seen[-1].seq), timeout=TIMEOUT))
    everything = list(stub.Watch(pb.WatchRequest(job_id=job_id), timeout=TIMEOUT))
    channel.close()
    assert seen + rest[1:] == everything[:7] + everything[8:]
    assert rest == attached(everything, seen[-1].seq)  # the first made one to draw from
    assert rest[-1].outcome == pb.SOLVED
    draw(seen + rest)


def test_frames_arrive_at_the_requested_rate(stub):
    t0 = time.monotonic()
    frames = solve(stub, HARD, view=pb.VIEW_SEARCH, pacing=pb.Pacing(duration_ms=1_000, fps=10))
    elapsed = time.monotonic() - t0
    assert len(frames) == 11
    assert 0.8 < elapsed < 3.0  # 10 frames at 10 fps, a behaviour check with a wide margin


def test_watch_of_an_unpaced_job_delivers_at_once(stub):
    frames = solve(stub, HARD, **search(duration_ms=10_000, fps=30))
    t0 = time.monotonic()
    watched = list(stub.Watch(pb.WatchRequest(job_id=frames[0].job_id), timeout=TIMEOUT))
    assert watched == frames
    assert time.monotonic() - t0 < 2.0


def test_cancel_ends_a_running_search_within_a_second(stub, redis):
    call = stub.Solve(pb.SolveRequest(board=ENDLESS, strategy=pb.STRATEGY_NAIVE), timeout=TIMEOUT)
    first = next(call)
    until(lambda: redis.hget(Job.key_for(first.job_id), "status") == b"started", "a worker started it", TIMEOUT)
    t0 = time.monotonic()
    assert stub.Cancel(pb.CancelRequest(job_id=first.job_id), timeout=TIMEOUT).cancelled
    last = list(call)[-1]
    assert time.monotonic() - t0 < 1.0
    assert last.outcome == pb.CANCELLED
    assert not stub.Cancel(pb.CancelRequest(job_id=first.job_id), timeout=TIMEOUT).cancelled


def test_a_retried_request_id_attaches_to_the_same_job(stub, redis):
    request_id = f"retry-{uuid.uuid4().hex}"
    first = solve(stub, HARD, request_id=request_id)
    again = solve(stub, HARD, request_id=request_id)
    assert first == again  # same job, same frames
    with pytest.raises(grpc.RpcError) as err:
        solve(stub, WIKIPEDIA, request_id=request_id)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "request_id" in err.value.details()


def test_a_request_id_whose_job_has_no_stream_starts_a_fresh_job(stub, redis):
    """The id's key names a job whose stream is gone: the stream expired
    (SUDOKU_STREAM_TTL_S after the job ended, while the key lives longer),
    or the claim was written by a script whose reply the service never
    read (a Redis stall). A retry must not wait on a stream that will never
    exist: it starts a fresh job at once."""
    request_id = f"orphan-{uuid.uuid4().hex}"
    request = pb.SolveRequest(board=WIKIPEDIA, request_id=request_id)
    first = list(stub.Solve(request, timeout=TIMEOUT))
    redis.delete(keys.frames(first[0].job_id))  # as its expiry would
    t0 = time.monotonic()
    again = list(stub.Solve(request, timeout=TIMEOUT))
    assert time.monotonic() - t0 < 5
    assert again[0].job_id != first[0].job_id and again[-1].outcome == pb.SOLVED
    assert list(stub.Solve(request, timeout=TIMEOUT))[0].job_id == again[0].job_id  # the fresh job is the id's now


def test_frames_nobody_reads_expire_sooner(stub, redis, service):
    """A watched solve's frames stay SUDOKU_STREAM_TTL_S after it ends; those
    of a solve whose client left before the end, only SUDOKU_UNWATCHED_TTL_S,
    until a Watch attaches again."""
    settings = service.settings
    request = pb.SolveRequest(board=HARD, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                              pacing=pb.Pacing(steps_per_frame=1, unpaced=True))
    read = list(stub.Solve(request, timeout=TIMEOUT))
    assert read[-1].outcome == pb.GAVE_UP or read[-1].outcome == pb.SOLVED
    assert settings.unwatched_ttl_s < redis.ttl(keys.frames(read[0].job_id)) <= settings.stream_ttl_s
    call = stub.Solve(request, timeout=TIMEOUT)
    job_id = next(call).job_id
    call.cancel()  # gone before the worker ends the stream
    until(lambda: redis.ttl(keys.frames(job_id)) <= settings.unwatched_ttl_s, "the unwatched stream took the short expiry",
          timeout=20, every=0.1)
    watched = list(stub.Watch(pb.WatchRequest(job_id=job_id, unpaced=True), timeout=TIMEOUT))
    assert watched[-1].outcome
    assert redis.ttl(keys.frames(job_id)) > settings.unwatched_ttl_s  # watched again: the long expiry


def test_hint_names_a_next_move(stub):
    reply = stub.Hint(pb.HintRequest(givens=WIKIPEDIA), timeout=TIMEOUT)
    assert reply.kind == pb.HintReply.NEXT_MOVE
    assert WIKIPEDIA_SOLUTION[reply.move.cell] == str(reply.move.value)
    assert reply.reason


NO_SINGLE = puzzles("norvig_hardest")[10]  # no single at the start: eliminations come first


def test_hint_continues_from_pencil_marks(stub):
    marks = candidates(engine.parse_board(NO_SINGLE))
    reply = stub.Hint(pb.HintRequest(givens=NO_SINGLE, pencil_marks=marks), timeout=TIMEOUT)
    assert reply.kind == pb.HintReply.ELIMINATION and not reply.HasField("move")
    assert reply.step.technique == pb.Step.POINTING and reply.step.level == pb.MEDIUM
    assert [(e.cell, e.value) for e in reply.step.eliminations] == [(0, 6), (1, 6), (2, 6)]
    assert [reply.step.units[0].kind, reply.step.units[1].kind] == [pb.Unit.BOX, pb.Unit.ROW]
    assert reply.reason == reply.step.reason
    without = stub.Hint(pb.HintRequest(givens=NO_SINGLE), timeout=TIMEOUT)
    assert without.kind == pb.HintReply.NEXT_MOVE and without.before[0] == reply.step
    assert (without.move.cell, without.move.technique) == (0, pb.Move.NAKED_SINGLE)


def test_bad_pencil_marks_are_invalid_argument_naming_the_cell(stub):
    for marks, message in (([1, 2], "pencil_marks: expected 81 masks (one per cell), got 2"),
                           ([511] * 80 + [600], "pencil_marks: cell r9c9: 600 is not a mask of values 1-9")):
        with pytest.raises(grpc.RpcError) as err:
            stub.Hint(pb.HintRequest(givens=WIKIPEDIA, pencil_marks=marks), timeout=TIMEOUT)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert err.value.details().startswith(message)


def test_explain_gives_the_whole_logical_solution(stub):
    reply = stub.Explain(pb.ExplainRequest(board=NO_SINGLE), timeout=TIMEOUT)
    assert reply.solved and reply.verdict == pb.CountReply.UNIQUE
    assert sum(s.HasField("placement") for s in reply.steps) == NO_SINGLE.count(".")
    assert all(s.reason for s in reply.steps)
    with pytest.raises(grpc.RpcError) as err:
        stub.Explain(pb.ExplainRequest(board="x"), timeout=TIMEOUT)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and err.value.details().startswith("board:")


def test_count_says_unique_multiple_and_none(stub):
    count = lambda board: stub.CountSolutions(pb.CountRequest(board=board), timeout=TIMEOUT)  # noqa: E731
    unique = count(WIKIPEDIA)
    assert (unique.count, unique.complete, unique.verdict) == (1, True, pb.CountReply.UNIQUE)
    multiple = count(puzzles("multi_solution_16_clue")[0])
    assert (multiple.count, multiple.verdict) == (2, pb.CountReply.MULTIPLE)
    none = count(puzzles("invalid_no_solution")[0])
    assert (none.count, none.complete, none.verdict) == (0, True, pb.CountReply.NONE)


def test_health_and_reflection_are_served(service):
    channel = grpc.insecure_channel(service.address)
    health = health_pb2_grpc.HealthStub(channel)
    for name in ("", "sudoku.v1.Sudoku"):
        status = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=TIMEOUT).status
        assert status == health_pb2.HealthCheckResponse.SERVING
    reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
    replies = reflect.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    names = {s.name for s in next(replies).list_services_response.service}
    channel.close()
    assert {"sudoku.v1.Sudoku", "grpc.health.v1.Health"} <= names


INT64_MAX = 2**63 - 1


@pytest.mark.parametrize("pacing", [
    pb.Pacing(duration_ms=INT64_MAX, fps=2**31 - 1, unpaced=True, runs=True),
    pb.Pacing(steps_per_frame=INT64_MAX, fps=2**31 - 1, runs=True),
    pb.Pacing(duration_ms=10**6, fps=120, runs=True),
])
def test_the_largest_first_frames_keep_the_size_promise(stub, pacing):
    """Every clamp at once, entries on every free cell, the largest seed:
    the first frame a stream sends is at most 1,024 bytes, every other frame
    at most 512 (the proto's promise), for Solve and for a Watch whose first
    frame is the last one."""
    solution = reference_run(WIKIPEDIA).solution
    entries = "".join("." if g != "." else s for g, s in zip(WIKIPEDIA.replace("0", "."), solution))
    request = pb.SolveRequest(
        board=WIKIPEDIA, entries=entries, strategy=pb.STRATEGY_MRV, tie_break=pb.TIE_BREAK_RANDOM, seed=2**64 - 1,
        max_steps=INT64_MAX, time_limit_ms=INT64_MAX, view=pb.VIEW_SEARCH, pacing=pacing,
        request_id="r" * 96 + uuid.uuid4().hex, cancel_on_disconnect=True,
    )
    messages = list(stub.Solve(request, timeout=TIMEOUT))
    frames = [f for m in messages for f in split(m)]
    assert len(frames[0].job.adjustments) >= 3
    assert frames[0].ByteSize() <= 1024
    assert max(f.ByteSize() for f in frames[1:]) <= 512
    last_seq = frames[-1].seq
    tail = list(stub.Watch(pb.WatchRequest(job_id=frames[0].job_id, after_seq=last_seq - 1, runs=True), timeout=TIMEOUT))
    assert len(tail) == 1 and tail[0].job.adjustments == frames[0].job.adjustments and tail[0].outcome
    assert tail[0].ByteSize() <= 1024


def test_get_limits_tells_the_ceilings(stub, service):
    limits = stub.GetLimits(pb.GetLimitsRequest(), timeout=TIMEOUT)
    settings = service.settings
    assert (limits.max_steps, limits.max_time_ms, limits.max_fps, limits.max_frames) == (
        settings.max_steps, settings.max_time_ms, settings.max_fps, settings.max_frames)
    assert limits.max_count_limit == settings.max_count_limit and limits.run_ms == settings.run_ms
    assert limits.max_steps < 2**53


def test_get_limits_has_every_ceiling_and_nothing_else(stub, service):
    """Each setting marked a ceiling (sudoku/config.py) is a field of
    Limits with its value, and each field of Limits is one of them (or the
    bound of small requests): a ceiling added to one and not the other fails."""
    import dataclasses

    from service.rpc.server import LIMITS_RENAMED

    limits = stub.GetLimits(pb.GetLimitsRequest(), timeout=TIMEOUT)
    expected = {"max_request_bytes": limits.max_request_bytes}
    for f in dataclasses.fields(service.settings):
        if f.metadata.get("ceiling"):
            name, scale = LIMITS_RENAMED.get(f.name, (f.name, 1))
            expected[name] = getattr(service.settings, f.name) * scale
    assert {f.name for f in pb.Limits.DESCRIPTOR.fields} == set(expected)
    assert {name: getattr(limits, name) for name in expected} == expected
    assert limits.max_request_bytes > 0


def test_reflection_v1_describes_the_service_to_a_v1_client(service):
    """grpcio-reflection's own client (a descriptor database, as tools
    build on), made to speak only grpc.reflection.v1 as newer grpcurl and
    Postman do: it lists the services, resolves a method, and the method
    built from what it fetched is called."""
    from types import SimpleNamespace

    from google.protobuf import descriptor_pool, message_factory
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    channel = grpc.insecure_channel(service.address)
    database = ProtoReflectionDescriptorDatabase(channel)
    database._stub = SimpleNamespace(ServerReflectionInfo=channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,  # the same messages as v1's
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    ))
    assert {"sudoku.v1.Sudoku", "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection"} <= set(database.get_services())
    pool = descriptor_pool.DescriptorPool(database)
    method = pool.FindServiceByName("sudoku.v1.Sudoku").methods_by_name["GetLimits"]
    request_class = message_factory.GetMessageClass(method.input_type)
    reply_class = message_factory.GetMessageClass(method.output_type)
    call = channel.unary_unary("/sudoku.v1.Sudoku/GetLimits", request_serializer=request_class.SerializeToString,
                               response_deserializer=reply_class.FromString)
    assert call(request_class(), timeout=TIMEOUT).max_fps == service.settings.max_fps
    assert pool.FindServiceByName("grpc.reflection.v1.ServerReflection").methods_by_name["ServerReflectionInfo"]
    channel.close()


def test_a_players_whole_grid_is_accepted_as_entries(stub):
    """A game sends its grid as it is, givens included: a given's cell
    holding its given is not an entry; another value there is the error."""
    givens = WIKIPEDIA.replace("0", ".")
    reply = stub.Hint(pb.HintRequest(givens=givens, entries=WIKIPEDIA_SOLUTION), timeout=TIMEOUT)
    assert reply.kind == pb.HintReply.SOLVED
    grid = WIKIPEDIA_SOLUTION[:2] + "." + WIKIPEDIA_SOLUTION[3:]  # r1c3 left for the search
    first = solve(stub, givens, entries=grid)[0]
    assert first.job.entries == "".join("." if g != "." or c == 2 else s
                                        for c, (g, s) in enumerate(zip(givens, WIKIPEDIA_SOLUTION)))
    with pytest.raises(grpc.RpcError) as err:
        stub.Hint(pb.HintRequest(givens=givens, entries="6" + WIKIPEDIA_SOLUTION[1:]), timeout=TIMEOUT)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "cell r1c1 holds the given 5, not 6" in err.value.details()
