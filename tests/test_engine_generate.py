"""worker.generate (generate.h in C): puzzles of each level, unique, graded,
with their solution; the same seed gives the same puzzle; symmetry and
kept givens hold. Named test_engine_* so `make sanitize` runs it too."""

from __future__ import annotations

import hashlib

import pytest

from sudoku import _engine, engine
from sudoku.grid import is_solution_of
from sudoku.seeds import puzzle_seed
from tests.puzzles import puzzles
from worker import logic
from worker.generate import NoPuzzle, generate

LEVELS = {"EASY": 1, "MEDIUM": 2, "HARD": 3, "EXPERT": 4, "EXTREME": 5}


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
def test_each_puzzle_is_unique_of_its_level_with_its_solution(level):
    for i in range(4 if level < 5 else 2):
        made = generate(puzzle_seed(level, i), level)
        puzzle, solution = made["puzzle"], made["solution"]
        assert engine.count(puzzle) == (1, True)
        assert engine.solve(puzzle) == solution and is_solution_of(solution, puzzle)
        g = logic.grade(puzzle)
        assert g.level == level == LEVELS[made["grade"]["level"]]
        assert made["grade"]["score"] == g.score and made["grade"]["hardest"] == logic.TECHNIQUES[g.hardest]


@pytest.mark.parametrize("seed", [8159428425992391467, 16901556327502500978, 11286510046143296201])
def test_hard_puzzles_are_hard_by_the_whole_ladder(seed):
    # The ladder is HoDoKu's order: Sue de Coq and the finned swordfish (expert)
    # come before the colourings (hard). These seeds once made puzzles that a
    # solve up to hard finished with a colouring, but the full grade, taking
    # the expert rung first, put at expert.
    made = generate(seed, 3)
    assert logic.grade(made["puzzle"]).level == 3 == LEVELS[made["grade"]["level"]]


@pytest.mark.parametrize(("level", "symmetry", "orbit"), [
    (4, "none", lambda c: {c}), (4, "rotational", lambda c: {c, 80 - c}),
    (5, "mirror", lambda c: {c, c // 9 * 9 + 8 - c % 9})])
def test_expert_and_extreme_puzzles_are_minimal(level, symmetry, orbit):
    # From the expert level digging stops only when every given (orbit of
    # givens, with symmetry) is needed: emptying any gives a second solution.
    # Uniqueness is tested above; this fails if the generator's check said
    # "not unique" of a puzzle that was.
    for i in range(2):
        puzzle = generate(puzzle_seed(100 + level, i), level, symmetry)["puzzle"]
        for c in (c for c in range(81) if puzzle[c] != "."):
            emptied = "".join("." if k in orbit(c) else v for k, v in enumerate(puzzle))
            assert engine.count(emptied)[0] == 2, (puzzle, c)


@pytest.mark.parametrize(("symmetry", "orbit"), [
    ("none", lambda c: {c}), ("rotational", lambda c: {c, 80 - c}), ("mirror", lambda c: {c, c // 9 * 9 + 8 - c % 9})])
def test_a_removal_is_refused_only_when_it_gives_a_second_solution(symmetry, orbit):
    # Digging refuses a removal without a search when it would leave one of
    # the grid's unavoidable sets (cells whose values can be rearranged into
    # another solution) without a given; a set that was not one would leave
    # a given that is not needed. Expert puzzles are dug until every given is
    # needed, so each is checked here, with kept givens too.
    keep = "." * 40 + "7" + "." * 40
    for i in range(12):
        puzzle = generate(puzzle_seed(300, i), 4, symmetry, keep if i % 2 else None)["puzzle"]
        kept = {40} if i % 2 else set()
        for c in (c for c in range(81) if puzzle[c] != "." and not orbit(c) & kept):
            emptied = "".join("." if k in orbit(c) else v for k, v in enumerate(puzzle))
            assert engine.count(emptied)[0] == 2, (puzzle, c)


def test_the_same_seeds_give_the_puzzles_they_always_gave():
    # A change meant only to make generating faster may not change what is
    # generated: these puzzles, of every level and symmetry, some with a
    # kept given, are those the generator of a5ec7b1 made. A change meant to
    # change them updates the digest and says why in its commit.
    keep = "." * 40 + "7" + "." * 40
    made = []
    for level, n in ((1, 6), (2, 6), (3, 6), (4, 6), (5, 3)):
        for i in range(n):
            symmetry = ("none", "rotational", "mirror")[i % 3]
            made.append(generate(puzzle_seed(26_000 + level, i), level, symmetry, keep if i % 2 else None)["puzzle"])
    assert hashlib.sha256("".join(made).encode()).hexdigest()[:16] == "90cccfcf194bf493"


def test_the_same_seed_gives_the_same_puzzle_and_another_seed_another():
    assert generate(42, 3) == generate(42, 3)
    assert generate(42, 3)["puzzle"] != generate(43, 3)["puzzle"]
    assert [puzzle_seed(42, i) for i in range(3)][0] == 42 and len({puzzle_seed(42, i) for i in range(50)}) == 50


@pytest.mark.parametrize(("symmetry", "mirror"), [("rotational", lambda c: 80 - c),
                                                  ("mirror", lambda c: c // 9 * 9 + 8 - c % 9)])
def test_symmetry_of_the_givens(symmetry, mirror):
    for seed in range(3):
        puzzle = generate(seed, 2, symmetry)["puzzle"]
        assert all((puzzle[c] == ".") == (puzzle[mirror(c)] == ".") for c in range(81))


def test_kept_givens_stay_in_every_puzzle():
    keep = puzzles("qqwing_easy")[0]
    keep = "".join(ch if i < 18 else "." for i, ch in enumerate(keep))  # its first two rows
    for seed in range(3):
        made = generate(seed, 2, "none", keep)
        assert all(k == "." or made["puzzle"][i] == k for i, k in enumerate(keep))


def test_kept_givens_without_a_solution_and_levels_out_of_reach():
    with pytest.raises(ValueError, match="no solution"):
        generate(1, 1, "none", puzzles("invalid_no_solution")[0])
    almost = engine.solve(puzzles("qqwing_easy")[0])[:-5] + "....."  # only singles are left to do
    with pytest.raises(NoPuzzle, match="no extreme puzzle found in 5000 grids keeping these givens"):
        generate(1, 5, "none", almost)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="level must be 1-5"):
        _engine.generate(1, 6)
    with pytest.raises(ValueError, match="level must be >= 1"):
        _engine.generate(1, 0)
    with pytest.raises(ValueError, match="unknown symmetry 'spiral'"):
        _engine.generate(1, 1, "spiral")
    with pytest.raises(ValueError, match="seed must be in 0..2"):
        _engine.generate(-1, 1)
    with pytest.raises(ValueError, match="cell r1c1"):
        _engine.generate(1, 1, "none", "x" * 81)
    assert _engine.generate(2**64 - 1, 1)[0]
