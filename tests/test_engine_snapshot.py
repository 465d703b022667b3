"""Snapshots of a running search (stepper.h, SNAPSHOTS): export and resume.

The C engine against the Python reference: the same bytes at every step,
the same search after a resume, and the same verdict and message on any
snapshot, valid, truncated, altered or forged. A snapshot is hostile input
(a client holds it), so every fault has a test that builds it, and any
bytes the engine accepts must be a state it writes itself (no crash, no
second encoding of one state).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudoku.engine import Stepper
from tests.puzzles import EMPTY, WIKIPEDIA, all_puzzles, puzzles
from worker import reference

OPTIONS = [
    {"strategy": "naive"},
    {"strategy": "mrv", "tie_break": "first"},
    {"strategy": "mrv", "tie_break": "rotate"},
    {"strategy": "mrv", "tie_break": "random", "seed": 7},
]
HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps
SAMPLES = [puzzle for _, puzzle in all_puzzles()][::6]
STATE = ("status", "steps", "placements", "retractions", "solutions", "cursor", "board")
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def state(stepper) -> dict[str, object]:
    return {name: getattr(stepper, name) for name in STATE}


def snapshot_at(steps: int, board: str = HARD, **options) -> bytes:
    stepper = Stepper(board, **options)
    stepper.skip(steps)
    return stepper.export()


def verdict(resume, data: bytes) -> tuple[str, bytes | str]:
    """("ok", the snapshot exported again) or ("error", the message)."""
    try:
        return "ok", resume(data).export()
    except ValueError as exc:
        return "error", str(exc)


def assert_same_verdict(data: bytes) -> tuple[str, bytes | str]:
    c_side = verdict(Stepper.resume, data)
    assert c_side == verdict(reference.Stepper.resume, data), data.hex()
    return c_side


# ---- a search goes on exactly from its snapshot ----


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_the_snapshot_is_the_same_bytes_in_c_and_in_python_at_every_step(options):
    for board in (HARD, WIKIPEDIA, EMPTY):
        c_side, python = Stepper(board, **options), reference.Stepper(board, **options)
        while python.status == "running" and python.steps < 400:
            assert c_side.export() == python.export(), (board, python.steps)
            assert c_side.run(1) == python.run(1)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_a_resumed_search_takes_the_steps_the_original_takes(options):
    for board in SAMPLES:
        original = Stepper(board, **options)
        for budget in (0, 1, 2, 9, 40, 300):
            if original.status != "running":
                break
            original.skip(budget)
            if original.status != "running":
                break
            snapshot = original.export()
            resumed, python = Stepper.resume(snapshot), reference.Stepper.resume(snapshot)
            assert state(resumed) == state(python) == state(original), board
            going_on = Stepper(board, **options)
            going_on.skip(original.steps)
            events = going_on.run(500)
            assert resumed.run(500) == python.run(500) == events, (board, original.steps)
            assert state(resumed) == state(python) == state(going_on)


def test_the_hardest_naive_search_resumes_at_step_600000_to_its_end():
    snapshot = snapshot_at(600_000, strategy="naive")
    assert len(snapshot) <= 62 + 2 * 81
    resumed = Stepper.resume(snapshot)
    assert (resumed.steps, resumed.status) == (600_000, "running")
    resumed.skip(10**9)
    assert (resumed.steps, resumed.status) == (671_215, "solved")
    whole = Stepper(HARD, strategy="naive")
    whole.skip(10**9)
    assert resumed.solution == whole.solution and state(resumed) == state(whole)


def test_resume_applies_its_own_step_cap():
    snapshot = snapshot_at(1_000, strategy="naive")
    assert Stepper.resume(snapshot, max_steps=1_000).status == "gave_up"
    assert Stepper.resume(snapshot, max_steps=10).status == "gave_up"
    capped = Stepper.resume(snapshot, max_steps=1_005)
    assert len(capped.run(100)) == 10 and capped.status == "gave_up" and capped.steps == 1_005
    python = reference.Stepper.resume(snapshot, max_steps=1_005)
    assert len(python.run(100)) == 10 and python.status == "gave_up"


@pytest.mark.parametrize("make", [Stepper, reference.Stepper], ids=["c", "python"])
def test_only_a_running_search_of_limit_1_has_a_snapshot(make):
    solved = make(WIKIPEDIA)
    solved.skip(10**6)
    conflicting = make("55" + "." * 79)
    for stepper in (solved, conflicting, make(HARD, limit=2), make(HARD, max_steps=0)):
        with pytest.raises(ValueError, match="only a running search of limit 1 has a snapshot"):
            stepper.export()


# ---- what is not a snapshot ----


def test_every_truncation_and_every_extra_byte_is_refused():
    snapshot = snapshot_at(30, strategy="mrv")
    for size in range(len(snapshot)):
        kind, message = assert_same_verdict(snapshot[:size])
        assert kind == "error" and message.startswith(f"snapshot of {size} bytes: "), message
    for extra in (b"\x00", b"\x01\x02"):
        assert assert_same_verdict(snapshot + extra)[0] == "error"
    assert "its size is not 62 bytes" in verdict(Stepper.resume, b"")[1]


def forge(snapshot: bytes, offset: int, value: int) -> bytes:
    data = bytearray(snapshot)
    data[offset] = value
    return bytes(data)


def path_offset(frame: int) -> int:
    return 62 + 2 * frame


def forged() -> dict[str, tuple[bytes, str]]:
    """One snapshot per fault, each made from a real one by changing it."""
    naive = snapshot_at(30, strategy="naive")  # depth >= 2: a frame on the board below the top
    depth = naive[60]
    top_value_on = snapshot_at(29, strategy="naive")
    assert naive[61] in (0, 1) and depth >= 2
    cells = bytearray(naive)
    cells[19] = 0x55  # r1c1 and r1c2 both 5: the givens clash
    return {
        "version": (forge(naive, 0, 2), "it is not a version 1 snapshot"),
        "strategy": (forge(naive, 1, 2), "its strategy or tie-break is not one the engine knows"),
        "tie_break": (forge(naive, 2, 3), "its strategy or tie-break is not one the engine knows"),
        "a nibble above 9": (forge(naive, 25, 0xA0 | (naive[25] & 15)), "a cell holds a value above 9"),
        "the padding nibble": (forge(naive, 59, naive[59] | 0x10), "the last byte's high nibble is not 0"),
        "clashing givens": (bytes(cells), "its fixed cells break a rule"),
        "depth 0": (forge(naive, 60, 0), "its depth is not 1-81"),
        "depth 82": (forge(naive, 60, 82), "its depth is not 1-81"),
        "a depth the bytes lack": (forge(naive, 60, depth + 1), "its size is not 62 bytes"),
        "the top flag": (forge(naive, 61, 2), "its top flag is not 0 or 1"),
        "a cell past r9c9": (forge(naive, path_offset(0), 81), "frame 0: the cell is not one the search decides"),
        "a cell naive does not decide": (forge(naive, path_offset(1), naive[path_offset(1)] + 1),
                                         "frame 1: the cell is not one the search decides"),
        "a value that is not a candidate": (forge(naive, path_offset(0) + 1, 8),
                                            "frame 0: the value is not a candidate"),
        "a value above 9": (forge(naive, path_offset(0) + 1, 200), "frame 0: the value is not a candidate"),
        "a frame below the top off the board": (forge(naive, path_offset(0) + 1, 0),
                                                "frame 0: the value is not a candidate"),
        "nothing left to try on top": (untried_top(), "no value is left to try in the top frame"),
        "a solved board": (solved_board(), "its values fill the board"),
        "steps of the wrong parity": (forge(naive, 11, naive[11] ^ 1), "its step count is below"),
        "fewer steps than the path": (forge(forge(naive, 11, 1), 12, 0), "its step count is below"),
        "the step after, with the top value on the board": (top_value_on, ""),
    }


def untried_top() -> bytes:
    """The first frame off the board with its largest candidate as the last
    value tried: nothing is left to try, and the search pops such a frame."""
    data = snapshot_at(0, strategy="naive")
    assert data[60:62] == bytes([1, 0])
    for value in range(9, 0, -1):
        trial = forge(data, len(data) - 1, value)
        if "not a candidate" not in verdict(Stepper.resume, trial)[1]:
            return trial  # the largest candidate
    raise AssertionError("the first cell has no candidate")


def solved_board() -> bytes:
    """The path of the step before the last of Wikipedia's naive search, with
    the value that step places put on: it fills the board."""
    stepper = Stepper(WIKIPEDIA, strategy="naive")
    stepper.skip(8_364)  # the 8,365th step places the last value
    data = bytearray(stepper.export())
    assert data[61] == 0 and stepper.status == "running"
    solved = Stepper(WIKIPEDIA, strategy="naive")
    solved.skip(10**6)
    data[61] = 1
    data[-1] = int(solved.solution[data[-2]])
    data[11] += 1  # one more value on the board: the parity follows
    return bytes(data)


FORGED = forged()


@pytest.mark.parametrize("fault", sorted(FORGED))
def test_each_forged_snapshot_is_refused_saying_why(fault):
    data, message = FORGED[fault]
    kind, said = assert_same_verdict(data)
    if not message:  # the control: a real snapshot of the step before, top value on the board
        assert kind == "ok" and said == data
        return
    assert kind == "error" and message in said, said


def test_a_naive_dead_end_and_an_exhausted_child_are_both_resting_points():
    """With the top value on the board, the search retracts it next, whether
    the next cell has no candidate or the frame deciding it was used up."""
    for options in OPTIONS:
        stepper = Stepper(HARD, **options)
        seen = 0
        while stepper.status == "running" and stepper.steps < 3_000:
            data = stepper.export()
            if data[61] == 1:
                seen += 1
                assert assert_same_verdict(data) == ("ok", data)
                going = Stepper.resume(data)
                assert going.run(1)[1] == 0 or going.status != "running", "the next step retracts"
            stepper.run(1)
        assert seen > 10, options


def test_every_single_byte_change_is_refused_or_is_a_state_the_engine_writes():
    for data in (snapshot_at(25, strategy="naive"), snapshot_at(40, strategy="mrv", tie_break="random", seed=3)):
        for offset in range(len(data)):
            for value in range(256):
                if value == data[offset]:
                    continue
                changed = forge(data, offset, value)
                try:
                    resumed = Stepper.resume(changed)
                except ValueError:
                    continue
                assert resumed.export() == changed, (offset, value)
                resumed.skip(200)  # runs: the sanitizers would catch a broken state
                assert not resumed.conflicts


@st.composite
def mutated(draw):
    """A real snapshot with a few bytes changed, cut or added; or any bytes."""
    if draw(st.integers(0, 5)) == 0:
        return draw(st.binary(max_size=240))
    options = draw(st.sampled_from(OPTIONS))
    board = draw(st.sampled_from([HARD, WIKIPEDIA, EMPTY, SAMPLES[7], SAMPLES[40]]))
    stepper = Stepper(board, **options)
    stepper.skip(draw(st.integers(0, 400)))
    if stepper.status != "running":
        stepper = Stepper(HARD, **options)
    data = bytearray(stepper.export())
    for _ in range(draw(st.integers(0, 4))):
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        cut = draw(st.integers(0, len(data)))
        data = data[:cut] + draw(st.binary(max_size=4))
    return bytes(data)


@FUZZ
@given(mutated())
def test_any_bytes_get_the_same_verdict_in_c_and_python(data):
    kind, result = assert_same_verdict(data)
    if kind == "ok":
        assert result == data
        c_side, python = Stepper.resume(data), reference.Stepper.resume(data)
        assert c_side.run(60) == python.run(60)
        assert state(c_side) == state(python)


def test_resume_takes_bytes_like_objects_and_only_those():
    data = snapshot_at(10, strategy="naive")
    assert Stepper.resume(bytearray(data)).export() == data
    assert Stepper.resume(memoryview(data)).export() == data
    with pytest.raises(TypeError):
        Stepper.resume(data.hex())
    with pytest.raises(ValueError, match="max_steps must be >= 0"):
        Stepper.resume(data, max_steps=-1)
