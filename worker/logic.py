"""The human solver: logical steps, whole logical solutions, and grades.

Everything runs in C (sudoku/csrc/logic.c, a file per technique family in
sudoku/csrc/logic/, contract in logic.h); this module gives its tuples names. Boards are as in sudoku.engine (81 cells, '1'-'9',
'.' or '0'); pencil marks are 81 masks, bit v-1 for value v, the candidates
the player kept in each blank cell (masks of filled cells are ignored).

Steps
    `step(board, pencil_marks, unique=..., max_level=...)` is the easiest step
    on the ladder (logic.h's technique order): a placement (`cell`, `digit`)
    or `eliminations`, with the technique and the pattern a reader needs.
    Every step is sound when the board and pencil marks agree with the
    solution; uniqueness techniques are used only with `unique=True`, which
    says the puzzle (`givens`, a board of the puzzle's givens; by default
    every filled cell of `board`) has one solution. The filled cells that
    are not givens were placed since: avoidable rectangles rest on them.
    `path(...)` is every step to the end: the logical solution.

Grades
    `grade(board)` counts the solutions (to 2) and solves by steps; the level
    is the highest level of a technique used (1 easy .. 5 extreme), the score
    the sum of the steps' weights. `grade_many(boards)` grades many boards
    given as one str or bytes of 81-cell boards, in one C call. HoDoKu (the
    reference human solver, whose techniques' levels and weights these are)
    also raises a puzzle's level while its score is over the level's most:
    `Grade.hodoku_level`.
"""

from __future__ import annotations

from typing import NamedTuple

from sudoku import _engine

TECHNIQUES: tuple[str, ...] = _engine.TECHNIQUES  # name by technique number
LEVELS: tuple[int, ...] = _engine.LEVELS  # level (1-5) by technique number
WEIGHTS: tuple[int, ...] = _engine.WEIGHTS  # score of one step by technique number
LEVEL_NAMES = ("", "easy", "medium", "hard", "expert", "extreme")
MAX_LEVEL = 5
# HoDoKu's most score for each level below extreme (its easy, medium, hard
# and unfair): a puzzle scoring more rates one level higher, again and again.
HODOKU_MAX_SCORE = {1: 800, 2: 1000, 3: 1600, 4: 1800}

# Step.variant values (logic.h).
COLOR_TRAP, COLOR_WRAP = 1, 2
LOOP_CONTINUOUS, LOOP_DISCONTINUOUS = 1, 2
FORCING_CONTRADICTION, FORCING_VERITY, FORCING_CELL, FORCING_UNIT, FORCING_EITHER = 1, 2, 3, 4, 5


class Node(NamedTuple):
    """A chain's candidate; `strong`: the link to the next node is strong."""

    cell: int
    digit: int
    strong: bool
    on: bool  # the chain makes it true
    branch: int  # forcing chains: whose premise's branch


class Step(NamedTuple):
    technique: int
    variant: int
    cell: int  # the placement's cell, or -1
    digit: int  # the placement's digit, or 0
    eliminations: tuple[tuple[int, int], ...]  # (cell, digit), cells then digits ascending
    pattern: tuple[tuple[int, int, int], ...]  # (group, cell, digit): see logic.h
    units: tuple[int, ...]  # 0-8 rows, 9-17 columns, 18-26 boxes
    digits: tuple[int, ...]
    chain: tuple[Node, ...]

    @property
    def name(self) -> str:
        return TECHNIQUES[self.technique]

    @property
    def is_placement(self) -> bool:
        return self.cell >= 0


class Grade(NamedTuple):
    solutions: int  # 0, 1, 2 (two or more), -1 when the count was cut short
    solved: bool  # the logical solution filled the board
    hardest: int  # technique number (0 when no step was needed)
    steps: int
    score: int
    counts: tuple[int, ...]  # steps by technique number

    @property
    def level(self) -> int:
        """1 easy .. 5 extreme; 0 for a board that needed no step or was not solved."""
        return LEVELS[self.hardest] if self.solved else 0

    @property
    def level_name(self) -> str:
        return LEVEL_NAMES[self.level] if self.level else "unsolved"

    @property
    def hodoku_level(self) -> int:
        """The level, raised one at a time while the score is over its HoDoKu most."""
        return hodoku_level(self.level, self.score)


def hodoku_level(level: int, score: int) -> int:
    """`level` (0 for none) as HoDoKu raises it for a puzzle of `score`."""
    while level in HODOKU_MAX_SCORE and score > HODOKU_MAX_SCORE[level]:
        level += 1
    return level


def _step(raw: tuple) -> Step:
    technique, variant, cell, digit, eliminations, pattern, units, digits, chain = raw
    nodes = tuple(Node(c, d, bool(s), bool(o), b) for c, d, s, o, b in chain)
    return Step(technique, variant, cell, digit, eliminations, pattern, units, digits, nodes)


def step(
    board: str,
    pencil_marks: list[int] | None = None,
    *,
    unique: bool = False,
    max_level: int = MAX_LEVEL,
    givens: str | None = None,
) -> Step | None:
    """The easiest step, or None (board full, broken, or nothing up to max_level applies)."""
    raw = _engine.logic_step(board, pencil_marks, unique=unique, max_level=max_level, givens=givens)
    return None if raw is None else _step(raw)


def path(
    board: str,
    pencil_marks: list[int] | None = None,
    *,
    unique: bool = False,
    max_level: int = MAX_LEVEL,
    givens: str | None = None,
    until_placement: bool = False,
) -> list[Step]:
    """Every step, each applied before the next is looked for, until none is
    found; with `until_placement`, until the first placement (the last step)."""
    raw = _engine.logic_path(board, pencil_marks, unique=unique, max_level=max_level, givens=givens,
                             until_placement=until_placement)
    return [_step(r) for r in raw]


def grade(board: str, max_level: int = MAX_LEVEL, max_guesses: int | None = None) -> Grade:
    """The board's grade, with techniques up to `max_level` and its count
    within `max_guesses` (the engine's cap when None)."""
    if max_guesses is None:
        return Grade(*_engine.grade(board, max_level=max_level))
    return Grade(*_engine.grade(board, max_level=max_level, max_guesses=max_guesses))


def grade_many(boards: str | bytes) -> list[Grade]:
    return [Grade(*raw) for raw in _engine.grade_many(boards)]
