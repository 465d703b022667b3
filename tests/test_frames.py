"""How a search is cut into frames (worker/frames.py), and the frames a
solve job writes to its Redis stream (worker/solving.py), read back raw."""

from __future__ import annotations

import uuid

import pytest

from sudoku import engine, keys
from sudoku.specs import SolveSpec
from sudoku.v1 import sudoku_pb2 as pb
from tests.frames_util import draw
from tests.puzzles import puzzles
from tests.stack import started_attempt
from worker.frames import boundaries, net_change
from worker.solving import SolveRun

FRAME_BOUND = 512  # the proto promises this
HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps


def test_boundaries_spread_steps_evenly_over_the_frames():
    ends = boundaries(671_215, frames=300)
    assert len(ends) == 300 and ends[-1] == 671_215
    sizes = [b - a for a, b in zip([0] + ends, ends)]
    assert max(sizes) - min(sizes) <= 1


def test_a_short_search_gets_one_step_per_frame():
    assert boundaries(50, frames=300) == list(range(1, 51))


def test_fixed_steps_per_frame_end_on_the_last_step():
    assert boundaries(10, steps_per_frame=4) == [4, 8, 10]
    assert boundaries(0, frames=30) == []


def test_net_change_lists_each_changed_cell_once():
    before = "12." + "." * 78
    after = ".25" + "." * 78
    assert net_change(before, after) == bytes([0, 0, 2, 5])  # r1c2 kept its 2


def run_job(redis, board: str, **options) -> list[pb.Frame]:
    """Runs a solve job in-process against the real Redis; returns its frames."""
    spec = SolveSpec(
        job_id=uuid.uuid4().hex,
        givens=board,
        entries="." * 81,
        strategy=options.pop("strategy", "naive"),
        tie_break="first",
        seed=0,
        max_steps=options.pop("max_steps", 100_000_000),
        time_limit_ms=60_000,
        view="search",
        **options,
    )
    SolveRun(started_attempt(redis, spec.job_id), spec).execute()
    entries = redis.xrange(keys.frames(spec.job_id))
    return [pb.Frame.FromString(fields[b"f"]) for _, fields in entries]


def boards_at(board: str, ends: list[int], **options) -> list[str]:
    """The board of an uninterrupted run at each of the given step counts."""
    stepper = engine.Stepper(board, tie_break="first", **options)
    out = []
    for end in ends:
        stepper.skip(end - stepper.steps)
        out.append(stepper.board)
    return out


@pytest.mark.parametrize("steps_per_frame", [1, 64, 65, 5_000])
def test_frames_are_bounded_whatever_their_size(redis, steps_per_frame):
    limit = 2_000 * steps_per_frame
    frames = run_job(redis, HARD, steps_per_frame=steps_per_frame, max_steps=limit)
    assert max(f.ByteSize() for f in frames) <= FRAME_BOUND


@pytest.mark.slow
def test_frames_of_the_hardest_naive_searches_stay_bounded(redis):
    for board in puzzles("forum_hardest_1106")[:5] + puzzles("norvig_hardest"):
        frames = run_job(redis, board, duration_ms=10_000, fps=30, max_steps=100_000_000)
        assert max(f.ByteSize() for f in frames) <= FRAME_BOUND
        assert frames[-1].outcome in (pb.SOLVED, pb.GAVE_UP)


def test_drawing_the_frames_reproduces_every_board_at_their_boundaries(redis):
    frames = run_job(redis, HARD, duration_ms=3_000, fps=30)
    drawn = draw(frames, start=HARD)
    ends = [f.last_step for f in frames]
    assert drawn == boards_at(HARD, ends, strategy="naive")
    assert len(frames) == 90  # duration x fps
    assert frames[-1].outcome == pb.SOLVED
    assert drawn[-1] == frames[-1].solution


def test_small_frames_carry_the_steps_themselves(redis):
    frames = run_job(redis, HARD, steps_per_frame=10, max_steps=1_000)
    events = engine.Stepper(HARD, strategy="naive", tie_break="first").run(1_000)
    assert b"".join(f.steps for f in frames) == events
    assert not any(f.changes for f in frames)
    assert frames[-1].outcome == pb.GAVE_UP


def test_keyframes_come_every_k_frames_and_last(redis):
    frames = run_job(redis, HARD, duration_ms=2_000, fps=30, keyframe_every=7)
    with_board = [f.seq for f in frames if f.board]
    assert with_board == [s for s in range(2, frames[-1].seq) if s % 7 == 0] + [frames[-1].seq]


def test_every_frame_knows_the_total_and_the_counters_grow(redis):
    frames = run_job(redis, HARD, duration_ms=1_000, fps=30)
    assert {f.total_steps for f in frames} == {671_215}
    steps = [f.counters.steps for f in frames]
    assert steps == sorted(steps) and steps[-1] == 671_215
    assert all(f.counters.placements + f.counters.retractions == f.counters.steps for f in frames)


def test_a_retried_job_writes_only_the_frames_that_are_missing(redis):
    """A second attempt of the same job (a worker died) continues the stream."""
    spec = SolveSpec(
        job_id=uuid.uuid4().hex, givens=HARD, entries="." * 81, strategy="naive", tie_break="first",
        seed=0, max_steps=100_000_000, time_limit_ms=60_000, view="search", duration_ms=1_000, fps=30,
    )
    SolveRun(started_attempt(redis, spec.job_id), spec).execute()
    whole = redis.xrange(keys.frames(spec.job_id))
    # Pretend the first attempt died after frame 12: drop the rest and retry.
    redis.delete(keys.frames(spec.job_id))
    for entry_id, fields in whole[:11]:
        redis.xadd(keys.frames(spec.job_id), fields, id=entry_id)
    SolveRun(started_attempt(redis, spec.job_id, "another-worker"), spec).execute()
    assert redis.xrange(keys.frames(spec.job_id)) == whole


def test_the_frame_ceiling_makes_frames_bigger_rather_than_cut_a_search():
    assert boundaries(10, steps_per_frame=1, max_frames=4) == [2, 5, 7, 10]
    assert boundaries(10, steps_per_frame=3, max_frames=4) == [3, 6, 9, 10]  # fits: as asked


def test_one_step_per_frame_plays_a_long_search_to_its_end(redis):
    frames = run_job(redis, HARD, steps_per_frame=1, max_frames=1_000)
    assert len(frames) == 1_000
    assert frames[-1].outcome == pb.SOLVED and frames[-1].counters.steps == 671_215
    assert draw(frames, start=HARD)[-1] == frames[-1].solution
