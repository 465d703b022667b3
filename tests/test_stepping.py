"""Step (service/streams/stepping.py, worker/stepping.py) against the real thing:
Redis, worker processes and a service on loopback, over the gRPC port and
the HTTP port (Connect, binary and JSON, as the page calls it).

A learner's search: the first 30 steps of a hard puzzle one Step at a time,
each board, cursor and counter the Python reference's after as many steps;
then 10,000 steps in one call; then on to the end. Every new field's bad
values, and positions that were cut, altered, forged or signed under a key
the service no longer has.
"""

from __future__ import annotations

import pytest
from connectrpc.compat import google_protobuf_json_codec
from connectrpc.errors import ConnectError

from client.frames import Drawing, pairs
from sudoku import keys, positions
from sudoku.engine import Stepper
from sudoku.names import STRATEGIES
from sudoku.v1 import sudoku_pb2 as pb
from tests.puzzles import ENDLESS, WIKIPEDIA, is_completion, puzzles
from tests.test_web import Api, base_url
from worker import reference

HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps; mrv: 1,675
KNOWN_STEPS = {"naive": 671_215, "mrv": 1_675}  # docs/client.md's and docs/stepping.md's figures for this puzzle
TIMEOUT = 60
CONFLICTING = "55" + "." * 79


class Port:
    """One Step call through the gRPC port or the HTTP one; errors as (code name, message)."""

    def __init__(self, name: str, service):
        self.name = name
        if name == "grpc":
            self.channel, self.stub = service.stub()
        else:
            codec = google_protobuf_json_codec() if name == "http-json" else None
            self.api = Api(base_url(service), codec=codec)

    def step(self, request: pb.StepRequest) -> pb.StepReply:
        if self.name == "grpc":
            return self.stub.Step(request, timeout=TIMEOUT)
        return self.api.call("Step", request)

    def error(self, request: pb.StepRequest) -> tuple[str, str]:
        import grpc

        try:
            self.step(request)
        except grpc.RpcError as err:
            return err.code().name, err.details()
        except ConnectError as err:
            return err.code.name, err.message
        raise AssertionError(f"{request} was answered")

    def close(self) -> None:
        if self.name == "grpc":
            self.channel.close()
        else:
            self.api.close()


@pytest.fixture(params=["grpc", "http", "http-json"])
def port(request, service):
    opened = Port(request.param, service)
    yield opened
    opened.close()


def start(board: str = HARD, strategy: str = "naive", **fields) -> pb.StepRequest:
    return pb.StepRequest(board=board, strategy=STRATEGIES[strategy], **fields)


def the_end(board: str, strategy: str) -> Stepper:
    whole = Stepper(board, strategy=strategy)
    whole.skip(10**9)
    return whole


def same_as(drawing: Drawing, python: reference.Stepper) -> None:
    c = drawing.counters
    assert (drawing.text, drawing.cursor, c.steps, c.placements, c.retractions) == (
        python.board, python.cursor, python.steps, python.placements, python.retractions), python.steps
    assert drawing.depth == python.placements - python.retractions


@pytest.mark.parametrize("strategy", ["naive", "mrv"])
def test_a_learner_steps_30_runs_10000_then_plays_to_the_end(port, strategy):
    python = reference.Stepper(HARD, strategy=strategy)
    drawing = Drawing(HARD)
    reply = port.step(start(strategy=strategy))
    for step in range(1, 31):
        if step > 1:
            reply = port.step(pb.StepRequest(position=reply.position))
        assert (reply.first_step, reply.last_step, len(reply.steps)) == (step - 1, step, 2)
        assert reply.steps == python.run(1)
        drawing.steps(reply)
        same_as(drawing, python)
        assert reply.board == python.board and reply.position and len(reply.position) <= 256
    run = port.step(pb.StepRequest(position=reply.position, steps=10_000))
    events = python.run(10_000)
    assert run.steps == events and run.first_step == 30 and not run.adjustments
    if strategy == "naive":
        assert run.last_step == 10_030 and not run.first_board
    drawing.steps(run)
    same_as(drawing, python)
    while not run.outcome:
        run = port.step(pb.StepRequest(position=run.position, steps=10_000))
        drawing.steps(run)
    whole = the_end(HARD, strategy)
    assert run.outcome == pb.SOLVED and run.solution == whole.solution and is_completion(HARD, run.solution)
    assert drawing.text == run.solution == run.board and drawing.cursor == run.cursor == -1
    assert run.counters.steps == whole.steps == KNOWN_STEPS[strategy] and run.counters.solutions == 1
    assert run.position == b""


def test_every_step_of_a_run_has_the_references_cursor_and_counters(port):
    python = reference.Stepper(WIKIPEDIA, strategy="naive")
    drawing = Drawing(WIKIPEDIA)
    reply = port.step(start(WIKIPEDIA, steps=500))
    drawing.steps(reply, each=lambda d: (python.run(1), same_as(d, python)))
    assert python.steps == 500


def test_step_600000_is_reached_by_skipping_and_goes_on_from_there(port):
    reply = port.step(start(skip=599_999))
    assert (reply.first_step, reply.last_step) == (599_999, 600_000)
    engine = Stepper(HARD, strategy="naive")
    engine.skip(599_999)
    assert reply.first_board == engine.board
    assert reply.steps == engine.run(1) and reply.board == engine.board
    after = port.step(pb.StepRequest(position=reply.position, steps=5))
    assert after.steps == engine.run(5) and after.counters.steps == 600_005 and not after.first_board
    drawing = Drawing()
    drawing.steps(reply)
    drawing.steps(after)
    assert drawing.text == engine.board and drawing.cursor == engine.cursor


def test_the_same_request_gets_the_same_reply(port):
    first = port.step(start(strategy="mrv", steps=40))
    again = port.step(start(strategy="mrv", steps=40))
    assert first == again
    on = pb.StepRequest(position=first.position, steps=3)
    assert port.step(on) == port.step(on)


def test_a_search_that_cannot_start_ends_at_step_0(port):
    clash = port.step(start(CONFLICTING))
    assert clash.outcome == pb.EXHAUSTED and list(clash.conflicts) == [0, 1]
    assert (clash.last_step, clash.steps, clash.position, clash.cursor) == (0, b"", b"", -1)
    solved = the_end(WIKIPEDIA, "mrv").solution
    full = port.step(start(solved, strategy="mrv"))
    assert full.outcome == pb.SOLVED and full.solution == solved and full.position == b""


def test_entries_are_fixed_like_givens(port):
    solution = the_end(HARD, "mrv").solution
    entries = "".join(solution[i] if i in (2, 3) and HARD[i] == "." else "." for i in range(81))
    reply = port.step(start(entries=entries, steps=10_000, strategy="mrv"))
    assert reply.first_board[2:4] == solution[2:4]
    assert all(cell not in (2, 3) for cell, _ in pairs(reply.steps))


def test_ceilings_are_clamped_and_said(port, service):
    settings = service.settings
    reply = port.step(start(ENDLESS, steps=settings.max_step_count + 5, skip=settings.max_step_skip + 7))
    assert list(reply.adjustments) == [
        f"steps clamped from {settings.max_step_count + 5} to {settings.max_step_count}",
        f"skip clamped from {settings.max_step_skip + 7} to {settings.max_step_skip}",
    ]
    assert reply.first_step == settings.max_step_skip and len(reply.steps) == 2 * settings.max_step_count


def test_get_limits_tells_the_step_ceilings(service):
    channel, stub = service.stub()
    with channel:
        limits = stub.GetLimits(pb.GetLimitsRequest(), timeout=TIMEOUT)
    assert (limits.max_step_count, limits.max_step_skip) == (
        service.settings.max_step_count, service.settings.max_step_skip)


def positioned(port) -> bytes:
    return port.step(start(steps=20)).position


BAD_STARTS = {
    "no board": (pb.StepRequest(), "board: required to start a search"),
    "a bad board": (start("x" + HARD[1:]), "board: cell r1c1: 'x' is not 1-9, '.' or '0'"),
    "a short board": (start(HARD[:80]), "board: expected 81 cells, got 80"),
    "a bad entry": (start(entries="x" * 81), "entries: cell r1c1: 'x' is not 1-9"),
    "an entry on a given": (start(entries="9" + "." * 80), "entries: cell r1c1"),
    "a strategy": (pb.StepRequest(board=HARD, strategy=7), "strategy: unknown value 7; use one of STRATEGY_MRV"),
    "a tie-break": (pb.StepRequest(board=HARD, tie_break=9), "tie_break: unknown value 9; use one of"),
    "negative steps": (start(steps=-1), "steps: must not be negative, got -1"),
    "negative skip": (start(skip=-5), "skip: must not be negative, got -5"),
}


@pytest.mark.parametrize("case", sorted(BAD_STARTS))
def test_a_bad_field_is_invalid_argument_naming_it(port, case):
    request, message = BAD_STARTS[case]
    code, said = port.error(request)
    assert code == "INVALID_ARGUMENT" and said.startswith(message), said


@pytest.mark.parametrize("field", ["board", "entries", "strategy", "tie_break", "seed"])
def test_a_position_comes_without_the_fields_that_start_a_search(port, field):
    request = pb.StepRequest(position=positioned(port))
    setattr(request, field, {"board": HARD, "entries": "." * 81, "seed": 3}.get(field, 1))
    code, said = port.error(request)
    assert code == "INVALID_ARGUMENT" and said.startswith(f"{field}: the position holds"), said


def altered(position: bytes, offset: int, xor: int = 1) -> bytes:
    data = bytearray(position)
    data[offset] ^= xor
    return bytes(data)


def test_a_position_cut_altered_or_forged_is_invalid_argument(port):
    position = positioned(port)
    cases = [position[:-1], position[:30], position + b"\0", altered(position, 0), altered(position, 15),
             altered(position, 40), altered(position, len(position) - 1), b"x" * 300, b"\x02" * 80]
    for bad in cases:
        code, said = port.error(pb.StepRequest(position=bad))
        assert code == "INVALID_ARGUMENT" and said.startswith("position: "), (bad, said)
    # A key id this service does not know is taken for a key it lost: the
    # client starts over (from its own step; the one in the message is the bytes').
    for unknown in (altered(position, 2), b"\x01" * len(position)):
        code, said = port.error(pb.StepRequest(position=unknown))
        assert code == "NOT_FOUND" and said.startswith("position: signed under a key"), said
    forged = position[:5] + Stepper(HARD).export() + position[-16:]  # a real snapshot, not signed
    code, said = port.error(pb.StepRequest(position=forged))
    assert code == "INVALID_ARGUMENT" and said.startswith("position: altered, or not made by this service")


def test_another_instance_on_the_same_redis_goes_on_from_a_position(service, custom_service):
    other = custom_service()
    here, there = Port("grpc", service), Port("http", other)
    try:
        reply = here.step(start(strategy="mrv", steps=100))
        on = there.step(pb.StepRequest(position=reply.position, steps=100))
        assert on.first_step == 100
        engine = Stepper(HARD, strategy="mrv")
        engine.skip(100)
        assert on.steps == engine.run(100)
    finally:
        here.close()
        there.close()


def test_a_position_under_a_lost_key_is_not_found_and_skip_reaches_it_again(service, custom_service, redis):
    """The key went (Redis restarted with no service process left that had
    it) and a new instance started: the position is NOT_FOUND, naming its
    step, and the same search skipped to it is the same position again."""
    old = Port("grpc", service)
    reply = old.step(start(steps=1_234))
    redis.set(keys.POSITION_KEY, b"a key of after the loss")
    new = Port("http", custom_service())
    try:
        code, said = new.error(pb.StepRequest(position=reply.position, steps=7))
        assert code == "NOT_FOUND" and said.startswith("position: signed under a key this service no longer has")
        assert "skip = 1234" in said
        again = new.step(start(skip=1_233))
        assert again.board == reply.board and again.cursor == reply.cursor and again.counters == reply.counters
        assert again.position[1:5] == positions.key_id(b"a key of after the loss")
        on_old = old.step(pb.StepRequest(position=reply.position, steps=7))  # an instance that kept the old key
        on_new = new.step(pb.StepRequest(position=again.position, steps=7))
        assert on_old.steps == on_new.steps and on_old.board == on_new.board
    finally:
        old.close()
        new.close()


def test_a_signed_snapshot_the_engine_refuses_is_invalid_argument(service):
    """The engine checks even what the service signed (a snapshot of another version, say)."""
    key = service.call(service.app.servicer.stepping.positions.key())
    sealed = positions.seal(key, b"\x02" + Stepper(HARD).export()[1:])
    port = Port("grpc", service)
    try:
        code, said = port.error(pb.StepRequest(position=sealed))
    finally:
        port.close()
    assert code == "INVALID_ARGUMENT" and said == "position: snapshot of 64 bytes: it is not a version 1 snapshot"
