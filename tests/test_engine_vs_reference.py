"""The C stepper against the Python reference: the same events and counters.

Every option set runs on every sample puzzle (621, from easy to the hardest,
multi-solution and no-solution ones included), capped so the Python side
stays quick; multi-solution puzzles also run with limit > 1, and searches
short enough to finish run uncapped.
"""

from __future__ import annotations

import pytest

from sudoku.engine import Stepper
from tests.puzzles import EMPTY, WIKIPEDIA, all_puzzles
from worker import reference

OPTIONS = [
    {"strategy": "naive"},
    {"strategy": "mrv", "tie_break": "first"},
    {"strategy": "mrv", "tie_break": "rotate"},
    {"strategy": "mrv", "tie_break": "random", "seed": 0},
    {"strategy": "mrv", "tie_break": "random", "seed": 7},
    {"strategy": "mrv", "tie_break": "random", "seed": 2**64 - 1},
]
STATE = ("status", "steps", "placements", "retractions", "solutions", "cursor",
         "board", "solution", "conflicts")
SAMPLES = all_puzzles()
MULTI = [puzzle for stem, puzzle in SAMPLES if "multi" in stem or "serg" in stem]
CAP = 100  # steps: 95% of the searches backtrack before it
SLICE = 37  # compare the state between slices too, not only at the end
CONFLICTING = "5...5" + "." * 65 + "7" + "." * 9 + "7"


def state(stepper) -> dict[str, object]:
    return {name: getattr(stepper, name) for name in STATE}


def assert_same_search(puzzle: str, **options) -> None:
    c_side = Stepper(puzzle, **options)
    python = reference.Stepper(puzzle, **options)
    assert state(c_side) == state(python), (puzzle, options)
    while python.status == "running":
        assert c_side.run(SLICE) == python.run(SLICE), (puzzle, options, python.steps)
        assert state(c_side) == state(python), (puzzle, options)
    assert c_side.run(SLICE) == b""


def test_the_sample_is_large_enough():
    assert len(SAMPLES) >= 500 and len(MULTI) >= 50


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_every_sample_puzzle_gives_the_same_search(options):
    for _, puzzle in SAMPLES:
        assert_same_search(puzzle, max_steps=CAP, **options)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_multi_solution_puzzles_give_the_same_search_past_solutions(options):
    for puzzle in MULTI:
        assert_same_search(puzzle, max_steps=300, limit=3, **options)


def short_searches(options: dict, most: int) -> list[str]:
    """Sample puzzles whose whole search takes at most `most` steps in C."""
    found = []
    for _, puzzle in SAMPLES:
        stepper = Stepper(puzzle, limit=2, max_steps=most, **options)
        stepper.skip(most)
        if stepper.status != "gave_up":
            found.append(puzzle)
    return found


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_whole_searches_are_the_same(options):
    short = short_searches(options, 1500)
    puzzles = [EMPTY, WIKIPEDIA, CONFLICTING] + short[::max(1, len(short) // 12)]
    assert len(puzzles) >= 5
    for puzzle in puzzles:
        assert_same_search(puzzle, limit=2, **options)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("limit", [1, 5, 40])
def test_the_empty_board_gives_the_same_search_to_any_limit(options, limit):
    assert_same_search(EMPTY, limit=limit, **options)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_skip_is_run_without_events_on_both_sides(options):
    c_side = Stepper(EMPTY, limit=1000, **options)
    python = reference.Stepper(EMPTY, limit=1000, **options)
    assert c_side.skip(123) == python.skip(123) == 123
    assert state(c_side) == state(python)
    assert c_side.run(100) == python.run(100)
