"""worker.logic (the human solver in C, logic.h): every technique's exact step
on a board made for it, every step of whole games checked against the
solution and against the definitions of its pattern, and grades.

Named test_engine_* so `make sanitize` runs it under ASan and UBSan too.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from sudoku import _engine, engine
from sudoku.grid import PEERS, UNITS, cell_name
from sudoku.lanes import CHEAP_GUESSES, CHEAP_LEVEL
from tests.data.make_grades import path_digest
from tests.puzzles import DATA, read
from worker import logic
from worker.grades import grade_board
from worker.hints import NeedsHarder, candidates

ALL = 0x1FF
EMPTY = "." * 81


def cell(name: str) -> int:
    return (int(name[1]) - 1) * 9 + int(name[3]) - 1


def unit(kind: str, index: int) -> int:
    """The unit number (0-8 rows, 9-17 columns, 18-26 boxes) of e.g. ("box", 4)."""
    return {"row": 0, "col": 9, "box": 18}[kind] + index - 1


class Marks:
    """Pencil marks on an empty board: every cell may hold anything until told otherwise,
    so a pattern can be laid down alone, as a textbook draws it."""

    def __init__(self) -> None:
        self.masks = [ALL] * 81

    def only(self, digit: int, kind: str, index: int, *names: str) -> Marks:
        """`digit` can go nowhere in the unit but the named cells."""
        keep = {cell(n) for n in names}
        for c in UNITS[unit(kind, index)].cells:
            if c not in keep:
                self.masks[c] &= ~(1 << (digit - 1))
        return self

    def set(self, name: str, *digits: int) -> Marks:
        self.masks[cell(name)] = sum(1 << (d - 1) for d in digits)
        return self


def names(cells) -> str:
    return " ".join(cell_name(c) for c in sorted(set(cells)))


def removed(step: logic.Step) -> str:
    return " ".join(f"{cell_name(c)}-{d}" for c, d in step.eliminations)


def marked(step: logic.Step, group: int | None = None) -> str:
    """The pattern's candidates, as "r1c1:12 r1c2:12"."""
    per_cell: dict[int, str] = {}
    for g, c, d in step.pattern:
        if group is None or g == group:
            per_cell[c] = per_cell.get(c, "") + str(d)
    return " ".join(f"{cell_name(c)}:{per_cell[c]}" for c in sorted(per_cell))


def line(kind: str, index: int, digit: int, *names: str) -> str:
    """The eliminations of `digit` from a unit's cells other than `names`."""
    keep = {cell(n) for n in names}
    return " ".join(f"{cell_name(c)}-{digit}" for c in UNITS[unit(kind, index)].cells if c not in keep)


# -- Hand-made boards: each technique alone on an empty grid ----------------------------


def test_pointing():
    # Box 1 holds 5 only in row 1, so the rest of row 1 loses it.
    marks = Marks().only(5, "box", 1, "r1c1", "r1c2")
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("POINTING", line("row", 1, 5, "r1c1", "r1c2", "r1c3"))
    assert marked(s) == "r1c1:5 r1c2:5"
    assert s.units == (unit("box", 1), unit("row", 1)) and s.digits == (5,)


def test_claiming():
    marks = Marks().only(5, "row", 1, "r1c1", "r1c2")
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("CLAIMING", line("box", 1, 5, "r1c1", "r1c2", "r1c3"))
    assert s.units == (unit("row", 1), unit("box", 1))


def test_naked_pair_in_a_box():
    marks = Marks().set("r1c1", 1, 2).set("r2c2", 1, 2)
    s = logic.step(EMPTY, marks.masks)
    assert s.name == "NAKED_PAIR" and s.units == (unit("box", 1),)
    others = [c for c in UNITS[unit("box", 1)].cells if c not in (0, 10)]
    assert s.eliminations == tuple((c, d) for c in others for d in (1, 2))
    assert marked(s) == "r1c1:12 r2c2:12"


def test_locked_pair_clears_its_box_and_its_line():
    # r1c1 and r1c2 are a naked pair of box 1 and of row 1 at once.
    marks = Marks().set("r1c1", 1, 2).set("r1c2", 1, 2)
    s = logic.step(EMPTY, marks.masks)
    assert s.name == "LOCKED_PAIR" and s.units == (unit("box", 1), unit("row", 1))
    others = sorted(set(UNITS[unit("box", 1)].cells + UNITS[unit("row", 1)].cells) - {0, 1})
    assert s.eliminations == tuple((c, d) for c in others for d in (1, 2))
    assert marked(s) == "r1c1:12 r1c2:12"


def test_locked_triple():
    marks = Marks().set("r1c1", 1, 2).set("r1c2", 2, 3).set("r1c3", 1, 3)
    s = logic.step(EMPTY, marks.masks)
    assert s.name == "LOCKED_TRIPLE" and s.digits == (1, 2, 3)
    others = sorted(set(UNITS[unit("box", 1)].cells + UNITS[unit("row", 1)].cells) - {0, 1, 2})
    assert s.eliminations == tuple((c, d) for c in others for d in (1, 2, 3))


def test_hidden_pair():
    marks = Marks().only(1, "box", 1, "r1c1", "r2c2").only(2, "box", 1, "r1c1", "r2c2")
    s = logic.step(EMPTY, marks.masks)
    assert s.name == "HIDDEN_PAIR" and s.digits == (1, 2)
    assert s.eliminations == tuple((c, d) for c in (cell("r1c1"), cell("r2c2")) for d in range(3, 10))
    assert marked(s) == "r1c1:12 r2c2:12"


def test_naked_triple_of_three_pairs():
    marks = Marks().set("r1c1", 1, 2).set("r2c2", 2, 3).set("r3c3", 1, 3)
    s = logic.step(EMPTY, marks.masks)
    assert s.name == "NAKED_TRIPLE" and s.digits == (1, 2, 3)
    others = [c for c in UNITS[unit("box", 1)].cells if c not in (0, 10, 20)]
    assert s.eliminations == tuple((c, d) for c in others for d in (1, 2, 3))


def test_hidden_triple():
    marks = Marks()
    for d in (1, 2, 3):
        marks.only(d, "box", 1, "r1c1", "r2c2", "r3c3")
    s = logic.step(EMPTY, marks.masks)
    assert s.name == "HIDDEN_TRIPLE"
    assert s.eliminations == tuple((c, d) for c in (0, 10, 20) for d in range(4, 10))


def test_naked_quad():
    marks = Marks().set("r1c1", 1, 2).set("r1c2", 2, 3).set("r1c3", 3, 4).set("r2c1", 1, 4)
    s = logic.step(EMPTY, marks.masks)
    assert s.name == "NAKED_QUAD" and s.units == (unit("box", 1),)
    others = [c for c in UNITS[unit("box", 1)].cells if c not in (0, 1, 2, 9)]
    assert s.eliminations == tuple((c, d) for c in others for d in (1, 2, 3, 4))


def test_hidden_quad():
    marks = Marks()
    for d in (1, 2, 3, 4):
        marks.only(d, "box", 1, "r1c1", "r1c2", "r2c1", "r2c2")
    s = logic.step(EMPTY, marks.masks)
    assert s.name == "HIDDEN_QUAD" and s.digits == (1, 2, 3, 4)
    assert s.eliminations == tuple((c, d) for c in (0, 1, 9, 10) for d in range(5, 10))


def test_x_wing():
    # Rows 1 and 5 hold 5 only in columns 2 and 7: those columns lose it elsewhere.
    marks = Marks().only(5, "row", 1, "r1c2", "r1c7").only(5, "row", 5, "r5c2", "r5c7")
    s = logic.step(EMPTY, marks.masks)
    assert s.name == "X_WING"
    assert s.units == (unit("row", 1), unit("row", 5), unit("col", 2), unit("col", 7))
    assert s.eliminations == tuple((r * 9 + c, 5) for r in (1, 2, 3, 5, 6, 7, 8) for c in (1, 6))
    assert marked(s) == "r1c2:5 r1c7:5 r5c2:5 r5c7:5"


def test_swordfish():
    marks = (Marks().only(5, "row", 1, "r1c1", "r1c5").only(5, "row", 5, "r5c5", "r5c9")
             .only(5, "row", 9, "r9c1", "r9c9"))
    s = logic.step(EMPTY, marks.masks)
    assert s.name == "SWORDFISH"
    assert s.units == tuple(unit("row", r) for r in (1, 5, 9)) + tuple(unit("col", c) for c in (1, 5, 9))
    assert s.eliminations == tuple((r * 9 + c, 5) for r in (1, 2, 3, 5, 6, 7) for c in (0, 4, 8))


def test_skyscraper():
    # Columns 1 and 4 hold 5 twice each, both in row 8; r2c1 or r3c4 is 5.
    marks = Marks().only(5, "col", 1, "r2c1", "r8c1").only(5, "col", 4, "r3c4", "r8c4")
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("SKYSCRAPER", "r2c5-5 r2c6-5 r3c2-5 r3c3-5")
    assert [(cell_name(n.cell), n.on) for n in s.chain] == [
        ("r2c1", False), ("r8c1", True), ("r8c4", False), ("r3c4", True)]


def test_two_string_kite():
    marks = Marks().only(5, "row", 1, "r1c2", "r1c7").only(5, "col", 1, "r3c1", "r6c1")
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("TWO_STRING_KITE", "r6c7-5")
    assert s.units == (unit("row", 1), unit("col", 1), unit("box", 1))


def test_xy_wing():
    marks = Marks().set("r5c5", 1, 2).set("r5c1", 1, 3).set("r2c5", 2, 3)
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("XY_WING", "r2c1-3")
    assert (marked(s, 0), marked(s, 1)) == ("r2c5:23 r5c1:13", "r5c5:12")


def test_xyz_wing():
    marks = Marks().set("r5c5", 1, 2, 3).set("r5c1", 1, 3).set("r4c5", 2, 3)
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("XYZ_WING", "r5c4-3 r5c6-3")
    assert marked(s, 1) == "r5c5:123"


def test_w_wing():
    # r1c1 and r5c9 are {1,2}; row 3's only 1s see one each, so one of them is 2.
    marks = Marks().set("r1c1", 1, 2).set("r5c9", 1, 2).only(1, "row", 3, "r3c2", "r3c9")
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("W_WING", "r1c9-2 r5c1-2")
    assert marked(s, 1) == "r3c2:1 r3c9:1" and s.units == (unit("row", 3),)


def test_finned_x_wing():
    # Rows 1 and 5 would be an X-wing on columns 2 and 7 but for the fin r5c8.
    marks = Marks().only(5, "row", 1, "r1c2", "r1c7").only(5, "row", 5, "r5c2", "r5c7", "r5c8")
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("FINNED_X_WING", "r4c7-5 r6c7-5")
    assert marked(s, 1) == "r5c8:5"


def test_turbot_fish_through_a_box():
    # Box 1 holds 5 only in r1c1 and r3c2, row 7 only in r7c2 and r7c6; r3c2 sees r7c2.
    marks = Marks().only(5, "box", 1, "r1c1", "r3c2").only(5, "row", 7, "r7c2", "r7c6")
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("TURBOT_FISH", "r1c6-5")
    assert s.units == (unit("row", 7), unit("box", 1))
    assert [(cell_name(n.cell), n.on) for n in s.chain] == [
        ("r7c6", False), ("r7c2", True), ("r3c2", False), ("r1c1", True)]


def test_empty_rectangle():
    # Box 1 holds 5 in row 1 or column 2 only; row 7 holds it in r7c2 or r7c6. Were r1c6 5,
    # r7c6 would not be, r7c2 would, and box 1 would have no place for 5.
    marks = Marks().only(5, "box", 1, "r1c1", "r1c3", "r3c2").only(5, "row", 7, "r7c2", "r7c6")
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("EMPTY_RECTANGLE", "r1c6-5")
    assert (marked(s, 0), marked(s, 1)) == ("r1c1:5 r1c3:5 r3c2:5", "r7c2:5 r7c6:5")
    assert s.units == (unit("box", 1), unit("row", 1), unit("col", 2), unit("row", 7))


def test_remote_pair():
    # r1c1, r2c3, r8c3, r8c7 hold {1,2}, each seeing the next: r1c1 and r8c7 differ.
    marks = Marks()
    for name in ("r1c1", "r2c3", "r8c3", "r8c7"):
        marks.set(name, 1, 2)
    for d in (1, 2):  # their naked pairs already cleared their units
        marks.only(d, "box", 1, "r1c1", "r2c3").only(d, "col", 3, "r2c3", "r8c3").only(d, "row", 8, "r8c3", "r8c7")
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("REMOTE_PAIR", "r1c7-1 r1c7-2")
    assert [(cell_name(n.cell), n.digit, n.on) for n in s.chain][::2] == [
        ("r1c1", 1, False), ("r2c3", 2, False), ("r8c3", 1, False), ("r8c7", 2, False)]


def unique_rectangle_marks() -> Marks:
    marks = Marks().set("r1c1", 1, 2).set("r1c4", 1, 2).set("r2c1", 1, 2).set("r2c4", 1, 2, 3)
    for d in (1, 2):  # the floor's pairs are locked, with nothing left to remove
        marks.only(d, "row", 1, "r1c1", "r1c4").only(d, "col", 1, "r1c1", "r2c1")
        marks.only(d, "box", 1, "r1c1", "r2c1")
    return marks


def test_unique_rectangle_type_1_only_for_a_unique_puzzle():
    marks = unique_rectangle_marks()
    s = logic.step(EMPTY, marks.masks, unique=True)
    assert (s.name, s.variant, removed(s)) == ("UNIQUE_RECTANGLE", 1, "r2c4-1 r2c4-2")
    assert marked(s, 0) == "r1c1:12 r1c4:12 r2c1:12 r2c4:12" and marked(s, 1) == "r2c4:3"
    assert logic.step(EMPTY, marks.masks) is None  # an empty grid is far from unique


def test_unique_rectangle_type_1_with_a_corner_missing_a_digit():
    # r2c4 lost 1 already; were it 2, the rectangle would still be 1, 2, 2, 1 round.
    marks = unique_rectangle_marks().set("r2c4", 2, 3)
    s = logic.step(EMPTY, marks.masks, unique=True)
    assert (s.name, s.variant, removed(s)) == ("UNIQUE_RECTANGLE", 1, "r2c4-2")
    assert marked(s, 0) == "r1c1:12 r1c4:12 r2c1:12 r2c4:2"


def test_unique_rectangle_type_3():
    # The roof's extras 3 and 4 with r2c7 {3,4} are a naked pair of row 2.
    marks = Marks().set("r1c1", 1, 2).set("r1c4", 1, 2).set("r2c1", 1, 2, 3).set("r2c4", 1, 2, 4).set("r2c7", 3, 4)
    for d in (1, 2):
        marks.only(d, "row", 1, "r1c1", "r1c4")
    s = logic.step(EMPTY, marks.masks, unique=True)
    assert (s.name, s.variant, s.units) == ("UNIQUE_RECTANGLE", 3, (unit("row", 2),))
    assert s.eliminations == tuple((cell(f"r2c{c}"), d) for c in (2, 3, 5, 6, 8, 9) for d in (3, 4))
    assert marked(s, 2) == "r2c7:34"


def test_unique_rectangle_type_6():
    # r1c1 and r2c4 hold {1,2} only; rows 1 and 2 hold 1 only in the rectangle.
    marks = Marks().set("r1c1", 1, 2).set("r2c4", 1, 2).set("r1c4", 1, 2, 5).set("r2c1", 1, 2, 6)
    marks.only(1, "row", 1, "r1c1", "r1c4").only(1, "row", 2, "r2c1", "r2c4")
    marks.only(1, "col", 1, "r1c1", "r2c1").only(1, "col", 4, "r1c4", "r2c4")  # the X-wing cleared its columns
    marks.only(1, "box", 1, "r1c1", "r2c1").only(1, "box", 2, "r1c4", "r2c4")  # and claiming its boxes
    s = logic.step(EMPTY, marks.masks, unique=True)
    assert (s.name, s.variant, removed(s)) == ("UNIQUE_RECTANGLE", 6, "r1c4-1 r2c1-1")
    assert s.units == (unit("row", 1), unit("row", 2))


def test_hidden_rectangle():
    # r1c1 holds {1,2} only; row 2 and column 4, through the opposite corner r2c4, hold 1
    # only in the rectangle. Were r2c4 2, r2c1 and r1c4 would be 1 and r1c1 2: two solutions.
    marks = (Marks().set("r1c1", 1, 2).only(1, "row", 2, "r2c1", "r2c4").only(1, "col", 4, "r1c4", "r2c4")
             .only(1, "box", 2, "r1c4", "r2c4"))
    s = logic.step(EMPTY, marks.masks, unique=True)
    assert (s.name, removed(s)) == ("HIDDEN_RECTANGLE", "r2c4-2")
    assert marked(s, 0) == "r1c1:12 r1c4:12 r2c1:12 r2c4:12"
    assert s.units == (unit("row", 2), unit("col", 4))
    assert logic.step(EMPTY, marks.masks) is None  # not without uniqueness


def placed(**values: int) -> str:
    """An empty board with values placed (not givens: the tests pass givens=EMPTY)."""
    board = list(EMPTY)
    for name, value in values.items():
        board[cell(name)] = str(value)
    return "".join(board)


def test_avoidable_rectangle_type_1_only_with_the_corners_placed_not_given():
    # r1c1, r1c4 and r2c1 were placed as 1, 2, 2; were r2c4 1, swapping 1 and 2 in the
    # four would give the givens a second solution.
    board = placed(r1c1=1, r1c4=2, r2c1=2)
    s = logic.step(board, unique=True, givens=EMPTY)
    assert (s.name, s.variant, removed(s)) == ("AVOIDABLE_RECTANGLE", 1, "r2c4-1")
    assert marked(s, 0) == "r1c1:1 r1c4:2 r2c1:2 r2c4:1" and s.digits == (1, 2) and s.units == ()
    assert logic.step(board, unique=True) is None  # the three as givens: no second solution to avoid
    assert logic.step(board, unique=True, givens=placed(r1c4=2)) is None  # one of them a given
    assert logic.step(board, givens=EMPTY) is None  # not without uniqueness


def test_avoidable_rectangle_type_2():
    # r1c1 and r1c4 were placed as 1 and 2; r2c1 holds {2,3} and r2c4 {1,3}: were neither 3,
    # they would be 2 and 1, so one of them is 3, and row 2 loses 3 elsewhere.
    marks = Marks().set("r2c1", 2, 3).set("r2c4", 1, 3)
    s = logic.step(placed(r1c1=1, r1c4=2), marks.masks, unique=True, givens=EMPTY)
    assert (s.name, s.variant, removed(s)) == ("AVOIDABLE_RECTANGLE", 2, line("row", 2, 3, "r2c1", "r2c4"))
    assert (marked(s, 0), marked(s, 1)) == ("r1c1:1 r1c4:2 r2c1:2 r2c4:1", "r2c1:3 r2c4:3")


def only(digit: int, *names: str) -> Marks:
    """An empty grid's marks with `digit` nowhere but the named cells."""
    marks = Marks()
    keep = {cell(n) for n in names}
    for c in range(81):
        if c not in keep:
            marks.masks[c] &= ~(1 << (digit - 1))
    return marks


def test_finned_franken_swordfish():
    # Base row 2, row 7 and box 1; cover column 2, column 8 and box 2; fins r1c3 and
    # r7c6, in two boxes: r1c6 sees both and lies in box 2, off the base.
    marks = only(5, "r1c3", "r1c6", "r1c7", "r1c9", "r2c5", "r2c8", "r3c2", "r3c4", "r3c9", "r4c3", "r4c5", "r4c8",
                 "r5c1", "r5c4", "r6c6", "r6c7", "r7c2", "r7c6", "r7c8", "r8c1", "r8c2", "r8c3", "r8c4", "r9c4",
                 "r9c6", "r9c9")
    s = logic.step(EMPTY, marks.masks)
    assert (s.name, removed(s)) == ("FINNED_FRANKEN_SWORDFISH", "r1c6-5")
    assert s.units == (unit("row", 2), unit("row", 7), unit("box", 1), unit("col", 2), unit("col", 8), unit("box", 2))
    assert (marked(s, 0), marked(s, 1)) == ("r2c5:5 r2c8:5 r3c2:5 r7c2:5 r7c8:5", "r1c3:5 r7c6:5")


# -- Boards from the shared sets: the first time a game by steps meets each technique ---

# (file, line, steps before it, technique, variant, placement or eliminations,
#  pattern cells, units), read off the engine and checked below against the
#  solution and the definitions (check_pattern).
# Puzzles of the full sets that are not in tests/data's sample, by (file, line):
# the first where the ladder meets the technique, when no sampled one does.
PICKED = {
    ('qqwing_expert', 658): '........9.4...62..2..835....913....8..3...1.4..5.12.63.....86.5...2......3.......',
    ('magictour_top1465', 228): '6..9..4...4..5..3...8..6..55..7..3...7..2......2..5..41..6.........3..8...6..2..1',
}
FROM_SETS = [
    ('magictour_top1465', 61, 25, 'NAKED_QUAD', 0, 'r5c1-6 r5c2-6', 'r5c5 r5c7 r5c8 r5c9', (4,)),
    ('qqwing_expert', 14, 17, 'SASHIMI_X_WING', 0, 'r9c6-3', 'r4c2 r4c6 r8c2 r8c4 r8c5', (3, 7, 10, 14)),
    ('qqwing_expert', 3, 28, 'UNIQUE_RECTANGLE', 1, 'r7c3-1 r7c3-3', 'r7c3 r7c4 r9c3 r9c4', ()),
    ('qqwing_expert', 15, 11, 'UNIQUE_RECTANGLE', 2, 'r4c2-5', 'r1c2 r1c3 r5c2 r5c3', ()),
    ('magictour_top1465', 18, 34, 'UNIQUE_RECTANGLE', 3, 'r5c5-3 r5c5-9', 'r1c4 r1c6 r5c2 r5c4 r5c6', (4,)),
    ('qqwing_expert', 10, 42, 'UNIQUE_RECTANGLE', 4, 'r1c4-8', 'r1c4 r1c5 r6c4 r6c5', (0,)),
    ('magictour_top1465', 12, 44, 'UNIQUE_RECTANGLE', 6, 'r1c1-3 r4c2-3', 'r1c1 r1c2 r4c1 r4c2', (0, 3)),
    ('magictour_top1465', 26, 42, 'SIMPLE_COLORING', 1, 'r7c3-1', 'r4c4 r5c1 r5c5 r8c3 r8c4 r9c1', ()),
    ('qqwing_expert', 23, 44, 'BUG_PLUS_ONE', 0, 'r7c7=2', 'r7c7', ()),
    ('qqwing_expert', 1, 28, 'JELLYFISH', 0, 'r1c6-3 r1c8-3 r2c6-3 r2c9-3 r4c8-3 r7c3-3 r7c6-3',
     'r3c6 r3c8 r6c3 r6c9 r8c3 r8c6 r8c8 r8c9 r9c3 r9c8 r9c9', (2, 5, 7, 8, 11, 14, 16, 17)),
    ('qqwing_expert', 18, 27, 'FINNED_SWORDFISH', 0, 'r6c7-9',
     'r1c5 r1c9 r4c5 r4c8 r4c9 r9c5 r9c7 r9c9', (0, 3, 8, 13, 15, 17)),
    ('qqwing_expert', 18, 54, 'SASHIMI_SWORDFISH', 0, 'r9c1-4',
     'r2c6 r2c7 r6c1 r6c7 r7c2 r7c3 r7c6', (1, 5, 6, 9, 14, 15)),
    ('norvig_top95', 15, 25, 'FINNED_JELLYFISH', 0, 'r5c9-5',
     'r3c5 r3c9 r4c1 r4c5 r4c6 r4c9 r6c1 r6c5 r6c6 r6c7 r6c8 r7c1 r7c5 r7c6 r7c9', (2, 3, 5, 6, 9, 13, 14, 17)),
    ('forum_hardest_1106', 1, 84, 'SASHIMI_JELLYFISH', 0, 'r6c1-5',
     'r2c1 r2c5 r2c6 r3c1 r3c9 r4c3 r4c5 r7c6 r7c9', (1, 2, 3, 6, 9, 13, 14, 17)),
    ('qqwing_expert', 12, 18, 'X_CHAIN', 0, 'r9c2-1', 'r2c9 r3c7 r4c2 r6c1 r6c7 r9c9', ()),
    ('qqwing_expert', 3, 29, 'XY_CHAIN', 0, 'r1c5-9', 'r1c1 r4c1 r4c5 r4c6', ()),
    ('qqwing_expert', 7, 22, 'AIC', 0, 'r8c6-7', 'r3c6 r8c1 r9c1 r9c6', ()),
    ('magictour_top1465', 14, 36, 'NICE_LOOP', 1, 'r2c4-2 r2c6-2 r6c7-1 r6c7-4 r9c5-3',
     'r2c5 r2c7 r4c1 r4c7 r6c7 r8c1 r8c5', ()),
    ('magictour_top1465', 1, 25, 'ALS_XZ', 0, 'r2c6-4', 'r2c3 r2c5 r7c2 r7c3 r7c5 r7c6 r7c7', (1, 6)),
    ('magictour_top1465', 11, 7, 'ALS_XY_WING', 0, 'r6c3-6',
     'r2c1 r3c1 r4c2 r5c1 r5c3 r6c1 r6c2 r7c3 r8c1 r9c1', (6, 21, 9)),
    ('magictour_top1465', 11, 3, 'FORCING_NET', 1, 'r6c4-2', 'r6c4 r7c3 r8c1 r8c3', (24,)),
    ('forum_hardest_1106', 23, 7, 'FORCING_NET', 3, 'r8c7-9', 'r6c2', ()),
    ('norvig_hardest', 1, 5, 'NESTED_FORCING', 1, 'r1c7-4', 'r1c7', ()),
    ('forum_hardest_1106', 0, 9, 'TRIAL', 2, 'r9c4-3', 'r9c4', ()),
    ('magictour_top1465', 14, 7, 'SUE_DE_COQ', 0, 'r1c4-2 r1c4-6 r2c7-3 r2c7-4',
     'r1c6 r2c2 r2c4 r2c5 r2c6 r3c6', (19, 1)),
    ('magictour_top1465', 16, 14, 'MULTI_COLORING', 1, 'r8c7-2 r8c9-2', 'r1c2 r1c5 r3c3 r3c4 r8c4 r9c2 r9c9', ()),
    ('qqwing_expert', 10, 26, 'MULTI_COLORING', 2, 'r2c7-3 r9c8-3', 'r2c2 r2c7 r3c3 r6c1 r7c7 r8c3 r9c1 r9c8', ()),
    ('qqwing_expert', 17, 33, 'GROUPED_AIC', 0, 'r6c5-7', 'r6c3 r6c5 r7c3 r8c3 r9c1 r9c5', ()),
    ('magictour_top1465', 11, 23, 'ALS_XY_CHAIN', 5, 'r8c4-9 r8c6-9',
     'r6c1 r6c2 r6c3 r6c7 r6c8 r7c3 r7c5 r7c6 r7c9 r8c1 r8c3 r8c7 r9c1 r9c2', (7, 5, 24, 6, 6)),
    ('qqwing_expert', 0, 28, 'REMOTE_PAIR', 0, 'r4c1-2 r4c1-3', 'r1c8 r3c1 r3c9 r4c8', ()),
    ('qqwing_expert', 10, 25, 'TURBOT_FISH', 0, 'r3c5-3', 'r2c2 r3c3 r4c2 r4c5', (3, 18)),
    ('qqwing_expert', 13, 25, 'EMPTY_RECTANGLE', 0, 'r8c1-8', 'r4c1 r4c2 r4c5 r5c1 r8c5', (21, 3, 9, 13)),
    ('qqwing_expert', 10, 34, 'HIDDEN_RECTANGLE', 0, 'r1c5-8', 'r1c4 r1c5 r6c4 r6c5', (0, 13)),
    ('magictour_top1465', 0, 2, 'LOCKED_TRIPLE', 0,
     'r1c1-2 r1c1-5 r1c1-7 r5c2-5 r5c3-5 r5c3-7 r8c1-2 r8c1-5 r9c1-2 r9c1-5',
     'r4c1 r5c1 r6c1', (21, 9)),
    ('qqwing_expert', 658, 34, 'SIMPLE_COLORING', 2, 'r1c6-7 r2c9-7 r3c2-7 r7c4-7 r8c5-7 r9c3-7',
     'r1c3 r1c6 r2c5 r2c9 r3c2 r6c4 r7c2 r7c4 r8c5 r8c9 r9c3', ()),
    ('magictour_top1465', 228, 25, 'GROUPED_NICE_LOOP', 2, 'r1c2=5',
     'r1c2 r1c8 r1c9 r2c1 r3c1 r3c8 r4c3 r4c8 r5c1 r8c1', ()),
    ('magictour_top1465', 23, 26, 'FINNED_FRANKEN_SWORDFISH', 0, 'r4c9-1',
     'r1c6 r1c8 r2c9 r4c6 r4c7 r5c7 r9c6 r9c7', (14, 15, 20, 0, 3, 8)),
    ('magictour_top1465', 56, 40, 'AVOIDABLE_RECTANGLE', 1, 'r7c8-6', 'r7c5 r7c8 r9c5 r9c8', ()),
]


@pytest.mark.parametrize(("name", "line_no", "before", "technique", "variant", "effect", "cells", "units"),
                         FROM_SETS, ids=[f"{t}-{v}" for _, _, _, t, v, *_ in FROM_SETS])
def test_techniques_met_in_the_sets(name, line_no, before, technique, variant, effect, cells, units):
    puzzle = PICKED.get((name, line_no)) or read(DATA / f"{name}.txt")[line_no]
    game = Game(puzzle)
    steps = logic.path(puzzle, unique=True)
    for s in steps[:before]:
        game.play(s)
    s = game.step()
    assert s == steps[before]  # the path is the steps one at a time, from pencil marks
    assert (s.name, s.variant, s.units) == (technique, variant, units)
    effect_now = f"{cell_name(s.cell)}={s.digit}" if s.is_placement else removed(s)
    assert (effect_now, names(c for _, c, _ in s.pattern)) == (effect, cells)
    game.check(s)


# -- Whole games -------------------------------------------------------------------------


class Game:
    """A board and its candidates, played step by step, each step checked against the
    solution and, for the patterns below, against the technique's definition."""

    def __init__(self, puzzle: str, masks: list[int] | None = None):
        self.puzzle = puzzle  # the givens: the cells placed since are not
        self.cells = list(engine.parse_board(puzzle))
        self.masks = list(masks) if masks is not None else candidates(bytes(self.cells))
        self.solution = engine.parse_board(engine.solve(puzzle))
        self.givens = [bool(v) for v in self.cells]

    def board(self) -> str:
        return "".join(str(v) if v else "." for v in self.cells)

    def has(self, c: int, d: int) -> bool:
        return bool(self.masks[c] >> (d - 1) & 1)

    def step(self) -> logic.Step | None:
        return logic.step(self.board(), self.masks, unique=True, givens=self.puzzle)

    def check(self, s: logic.Step) -> None:
        where = f"{s.name} {s}"
        if s.is_placement:
            assert not s.eliminations, where
            assert self.has(s.cell, s.digit) and self.solution[s.cell] == s.digit, where
        else:
            assert s.eliminations, where
            for c, d in s.eliminations:
                assert self.has(c, d) and self.solution[c] != d, where
        check_pattern(self, s)

    def play(self, s: logic.Step) -> None:
        if s.is_placement:
            self.cells[s.cell] = s.digit
            self.masks[s.cell] = 0
            for p in PEERS[s.cell]:
                self.masks[p] &= ~(1 << (s.digit - 1))
        for c, d in s.eliminations:
            self.masks[c] &= ~(1 << (d - 1))


def check_pattern(game: Game, s: logic.Step) -> None:
    """What a step's pattern must be, by the definitions (not by the C code's way)."""
    for _, c, d in s.pattern:
        placed = s.name == "AVOIDABLE_RECTANGLE" and game.cells[c] == d and not game.givens[c]
        assert game.has(c, d) or placed, f"{s.name}: the pattern holds {cell_name(c)}-{d}, not a candidate"
    if s.name == "AVOIDABLE_RECTANGLE":
        check_avoidable_rectangle(game, s)
    if s.name == "REMOTE_PAIR":
        check_remote_pair(game, s)
    elif s.chain and s.name not in ("FORCING_CHAIN", "FORCING_NET", "NESTED_FORCING"):
        check_chain(game, s)
    if "X_WING" in s.name or "SWORDFISH" in s.name or "JELLYFISH" in s.name:
        check_fish(game, s)
    if s.name.startswith("ALS"):
        # an ALS-XY-chain's middle ALSs share group 2; its ends are groups 0 and 1
        for group in (0, 1) if s.name == "ALS_XY_CHAIN" else (0, 1, 2):
            cells = {c for g, c, _ in s.pattern if g == group}
            if cells:
                digits = {d for c in cells for d in range(1, 10) if game.has(c, d)}
                assert len(digits) == len(cells) + 1, f"{s.name}: group {group} is no ALS"
                assert any(cells <= set(u.cells) for u in UNITS), f"{s.name}: group {group} spans units"


Node = tuple[frozenset, int]  # a chain node: its cells (one, or a group's) and its digit


def strong(game: Game, a: Node, b: Node) -> bool:
    (ca, da), (cb, db) = a, b
    if ca == cb:
        return len(ca) == 1 and da != db and bin(game.masks[next(iter(ca))]).count("1") == 2
    return da == db and not ca & cb and any(
        ca | cb <= set(u.cells) and {c for c in u.cells if game.has(c, da)} == ca | cb for u in UNITS)


def weak(a: Node, b: Node) -> bool:
    (ca, da), (cb, db) = a, b
    if ca == cb:
        return len(ca) == 1 and da != db
    return da == db and all(y in PEERS[x] for x in ca for y in cb)


def grouped(s: logic.Step) -> list[tuple[Node, bool]]:
    """The chain's nodes, a group's cells (consecutive, same digit, same `on`) as one."""
    out: list[tuple[Node, bool]] = []
    for n in s.chain:
        if out and out[-1][0][1] == n.digit and out[-1][1] == n.on:
            out[-1] = ((out[-1][0][0] | {n.cell}, n.digit), n.on)
        else:
            out.append(((frozenset({n.cell}), n.digit), n.on))
    return out


def check_chain(game: Game, s: logic.Step) -> None:
    """Links alternate strong (from an off node) and weak (from an on node); the
    eliminated candidates are weakly linked to both ends (or the loop's links).
    Groups only in the grouped techniques, each a digit's cells of one box and one line."""
    chain = grouped(s)
    nodes = [node for node, _ in chain]
    for node, _ in chain:
        cells, _ = node
        if len(cells) > 1:
            assert s.name.startswith("GROUPED"), f"{s.name}: a group in a chain without groups"
            assert any(cells <= set(u.cells) for u in UNITS[:18]) and any(cells <= set(u.cells) for u in UNITS[18:])
    for i, (a, b) in enumerate(zip(nodes, nodes[1:])):
        on = chain[i][1]
        assert on == (i % 2 == 1), f"{s.name}: node {i} should be {'on' if i % 2 else 'off'}"
        if on:
            assert weak(a, b), f"{s.name}: {a} -> {b} is no weak link"
        else:
            assert strong(game, a, b), f"{s.name}: {a} -> {b} is no strong link"
    first, last = nodes[0], nodes[-1]
    assert chain[-1][1]
    if s.is_placement:
        assert first == last == (frozenset({s.cell}), s.digit), s.name
        return
    loop = s.name == "NICE_LOOP" and weak(last, first)
    for c, d in s.eliminations:
        target = (frozenset({c}), d)
        if loop and not (weak(target, first) and weak(target, last)):
            # a continuous loop: one of the two ends of every weak link is true
            assert any(weak(target, a) and weak(target, b) and target not in (a, b)
                       for i, (a, b) in enumerate(zip(nodes + [first], nodes[1:] + [first]))
                       if chain[i][1] or i == len(nodes) - 1), f"{s.name}: {target}"
        else:
            assert weak(target, first) and weak(target, last), f"{s.name}: {target} not seen by both ends"


def check_remote_pair(game: Game, s: logic.Step) -> None:
    """Cells of one pair, each seeing the next, an even number of them; what sees both
    ends loses both digits."""
    cells = [n.cell for n in s.chain][::2]
    pair = {d for d in range(1, 10) if game.has(cells[0], d)}
    assert len(pair) == 2 and len(cells) % 2 == 0 and len(cells) >= 4, s.name
    assert all({d for d in range(1, 10) if game.has(c, d)} == pair for c in cells), s.name
    assert all(b in PEERS[a] for a, b in zip(cells, cells[1:])), s.name
    for c, d in s.eliminations:
        assert d in pair and cells[0] in PEERS[c] and cells[-1] in PEERS[c], s.name


def check_fish(game: Game, s: logic.Step) -> None:
    """n base units, n cover units; the base units share no candidate; the base
    candidates off the fins lie in the cover units; eliminations are in the cover
    units, off the base units, and see every fin. Basic fish: lines only, fins in one
    box. Franken: base rows (or columns) and boxes, cover columns (rows) and boxes,
    a box among them."""
    (d,) = s.digits
    n = len(s.units) // 2
    base, cover = s.units[:n], s.units[n:]
    held = [{c for c in UNITS[u].cells if game.has(c, d)} for u in base]
    assert sum(map(len, held)) == len(set().union(*held)), f"{s.name}: base units share a candidate"
    base_cells = {c for u in base for c in UNITS[u].cells}
    cover_cells = {c for u in cover for c in UNITS[u].cells}
    fins = {c for g, c, _ in s.pattern if g == 1}
    body = {c for g, c, _ in s.pattern if g == 0}
    assert body | fins == set().union(*held), s.name
    assert body <= cover_cells and not fins & cover_cells, s.name
    kinds = [{UNITS[u].kind for u in units} for units in (base, cover)]
    if "FRANKEN" in s.name:
        assert "box" in kinds[0] | kinds[1], s.name
        assert kinds[0] - {"box"} in ({"row"}, {"column"}, set()), s.name
        assert not (kinds[0] - {"box"}) & kinds[1], s.name
    else:
        assert len(kinds[0]) == len(kinds[1]) == 1 and kinds[0] != kinds[1] and "box" not in kinds[0] | kinds[1]
        assert len({c // 27 * 3 + c % 9 // 3 for c in fins}) <= 1, s.name
    assert bool(fins) == ("FINNED" in s.name or "SASHIMI" in s.name), s.name
    for c, _ in s.eliminations:
        assert c in cover_cells and c not in base_cells, s.name
        assert all(c in PEERS[f] for f in fins), s.name


def check_avoidable_rectangle(game: Game, s: logic.Step) -> None:
    """Four cells of two rows, two columns and two boxes, none a given, whose values
    (placed) and candidates could make them a, b, a, b round: type 1, three were
    placed so and the fourth loses the value that would close it; type 2, two were
    placed and the others hold the value that would close it and one same extra
    value, which what sees both loses."""
    corners = sorted({c for g, c, _ in s.pattern if g == 0})
    assert len(corners) == 4 and len({c // 9 for c in corners}) == len({c % 9 for c in corners}) == 2, s.name
    assert len({c // 27 * 3 + c % 9 // 3 for c in corners}) == 2 and not any(game.givens[c] for c in corners)
    want = {c: d for g, c, d in s.pattern if g == 0}
    a, b = s.digits
    for c in corners:  # diagonal corners want the same value
        across = next(o for o in corners if o // 9 != c // 9 and o % 9 != c % 9)
        assert want[c] == want[across] and want[c] in (a, b), s.name
        assert game.cells[c] in (0, want[c]), s.name
    placed = [c for c in corners if game.cells[c]]
    if s.variant == 1:
        ((c, d),) = s.eliminations
        assert len(placed) == 3 and c in corners and d == want[c], s.name
    else:
        assert s.variant == 2 and len(placed) == 2, s.name
        (x,) = {d for g, _, d in s.pattern if g == 1}
        open_ = [c for c in corners if not game.cells[c]]
        for c in open_:
            assert game.masks[c] == (1 << (want[c] - 1)) | (1 << (x - 1)), s.name
        for c, d in s.eliminations:
            assert d == x and all(c in PEERS[o] for o in open_), s.name


def play_whole_game(puzzle: str, masks: list[int] | None = None) -> int:
    """Plays a unique puzzle by steps to the end, checking each; returns the steps."""
    game = Game(puzzle, masks)
    steps = 0
    while (s := game.step()) is not None:
        game.check(s)
        game.play(s)
        steps += 1
    assert all(game.cells), f"stuck after {steps} steps: {game.board()}"
    return steps


UNIQUE_SETS = ["17_clue", "forum_hardest_1106", "forum_hardest_1905_11plus", "magictour_top1465",
               "msolve_hardest_to_solve", "msolve_hardest_to_verify", "norvig_hardest", "norvig_top95",
               "qqwing_easy", "qqwing_expert", "qqwing_intermediate"]
# The hardest sets take a tenth of a second and more a game; a sample keeps the suite quick.
SAMPLE = {"forum_hardest_1905_11plus": 8, "forum_hardest_1106": 8, "msolve_hardest_to_solve": 6,
          "msolve_hardest_to_verify": 6, "magictour_top1465": 30, "17_clue": 30}


@pytest.mark.parametrize("name", UNIQUE_SETS)
def test_whole_games_by_steps_need_no_solution(name):
    puzzles = read(DATA / f"{name}.txt")[: SAMPLE.get(name)]
    assert sum(play_whole_game(p) for p in puzzles) > len(puzzles)


def test_whole_games_from_a_players_pencil_marks():
    """A player's own pencil marks, right but with some wrong candidates crossed
    out already, or not: the steps go on from them to the end."""
    rng = random.Random(14)
    for puzzle in read(DATA / "magictour_top1465.txt")[30:45] + read(DATA / "qqwing_expert.txt")[:15]:
        solution = engine.parse_board(engine.solve(puzzle))
        masks = candidates(engine.parse_board(puzzle))
        for c in range(81):
            for d in range(1, 10):
                if masks[c] >> (d - 1) & 1 and d != solution[c] and rng.random() < 0.3:
                    masks[c] &= ~(1 << (d - 1))
        play_whole_game(puzzle, masks)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SUDOKU_PUZZLES"), reason="SUDOKU_PUZZLES names the full sets")
@pytest.mark.parametrize("name", UNIQUE_SETS)
def test_whole_games_on_a_sample_of_the_full_sets(name):
    # 12 a set: a forum-hardest game takes most of a second, and the sets'
    # first puzzles are played whole above already.
    puzzles = read(Path(os.environ["SUDOKU_PUZZLES"]) / f"{name}.txt")
    for puzzle in random.Random(name).sample(puzzles, min(len(puzzles), 12)):
        play_whole_game(puzzle)


# -- Levels and grades -------------------------------------------------------------------


# Each technique at HoDoKu's level (its easy, medium, hard, unfair as our expert, extreme),
# as docs/hints.md's ladder table lists them.
LEVEL_OF = {
    "easy": "FULL_HOUSE NAKED_SINGLE HIDDEN_SINGLE",
    "medium": "LOCKED_PAIR LOCKED_TRIPLE POINTING CLAIMING NAKED_PAIR NAKED_TRIPLE HIDDEN_PAIR HIDDEN_TRIPLE",
    "hard": "NAKED_QUAD HIDDEN_QUAD X_WING SWORDFISH JELLYFISH REMOTE_PAIR BUG_PLUS_ONE SKYSCRAPER TWO_STRING_KITE "
            "TURBOT_FISH EMPTY_RECTANGLE W_WING XY_WING XYZ_WING UNIQUE_RECTANGLE HIDDEN_RECTANGLE FINNED_X_WING "
            "SASHIMI_X_WING SIMPLE_COLORING MULTI_COLORING AVOIDABLE_RECTANGLE",
    "expert": "FINNED_SWORDFISH SASHIMI_SWORDFISH FINNED_JELLYFISH SASHIMI_JELLYFISH SUE_DE_COQ X_CHAIN XY_CHAIN "
              "AIC NICE_LOOP GROUPED_AIC GROUPED_NICE_LOOP ALS_XZ ALS_XY_WING ALS_XY_CHAIN "
              "FINNED_FRANKEN_SWORDFISH",
    "extreme": "FORCING_CHAIN FORCING_NET NESTED_FORCING TRIAL",
}


def test_the_levels_and_weights_cover_every_technique():
    assert logic.TECHNIQUES[0] == "NONE" and len(set(logic.TECHNIQUES)) == len(logic.TECHNIQUES)
    assert logic.LEVELS[0] == 0 and logic.WEIGHTS[0] == 0
    listed = {t: level for level, names in LEVEL_OF.items() for t in names.split()}
    assert listed == {t: logic.LEVEL_NAMES[logic.LEVELS[i]] for i, t in enumerate(logic.TECHNIQUES) if i}
    assert all(logic.WEIGHTS[1:])


def test_a_technique_above_max_level_is_not_used():
    puzzle = read(DATA / "magictour_top1465.txt")[0]
    for level in range(1, 6):
        assert all(logic.LEVELS[s.technique] <= level for s in logic.path(puzzle, unique=True, max_level=level))


def test_grade_is_the_path_summed_and_grade_many_agrees():
    puzzles = read(DATA / "qqwing_expert.txt")[:5] + read(DATA / "magictour_top1465.txt")[:5]
    grades = logic.grade_many("".join(puzzles))
    for puzzle, g in zip(puzzles, grades):
        steps = logic.path(puzzle, unique=True)
        assert g == logic.grade(puzzle)
        assert (g.solutions, g.solved, g.steps) == (1, True, len(steps))
        assert g.score == sum(logic.WEIGHTS[s.technique] for s in steps)
        assert g.counts == tuple(sum(s.technique == t for s in steps) for t in range(len(logic.TECHNIQUES)))
        assert g.level == max(logic.LEVELS[s.technique] for s in steps)


def recorded_grades() -> list[tuple[str, tuple]]:
    """tests/data/grades.tsv: (puzzle, (level, hardest, steps, score, counts)), made
    by tests/data/make_grades.py (see tests/data/README.md)."""
    rows = []
    for line in (DATA / "grades.tsv").read_text().splitlines():
        if line.startswith("#"):
            continue
        puzzle, level, hardest, steps, score, used = line.split("\t")
        counts = [0] * len(logic.TECHNIQUES)
        for item in used.split(","):
            name, n = item.split("=")
            counts[logic.TECHNIQUES.index(name)] = int(n)
        rows.append((puzzle, (level, hardest, int(steps), int(score), tuple(counts))))
    return rows


def test_a_bounded_grade_is_the_full_one_or_needs_harder():
    # The cheap lane grades within CHEAP_LEVEL and CHEAP_GUESSES (worker/grades.py):
    # where the bounds reach, the grade is the full one, else NeedsHarder and the
    # heavy lane's full grade is extreme, unsolved or its count cut short.
    puzzles = [puzzle for puzzle, _ in recorded_grades()] + read(DATA / "multi_solution_16_clue.txt")[:10]
    answered = 0
    for puzzle in puzzles:
        full = grade_board(puzzle)
        try:
            bounded = grade_board(puzzle, CHEAP_LEVEL, CHEAP_GUESSES)
        except NeedsHarder:
            assert full.get("level") == "EXTREME" or not full.get("solved"), puzzle
            continue
        assert bounded == full, puzzle
        answered += 1
    assert 0 < answered < len(puzzles)


def test_a_count_cut_short_needs_harder_and_bad_bounds_are_refused():
    puzzle = read(DATA / "magictour_top1465.txt")[0]
    assert logic.grade(puzzle, max_guesses=1).solutions == -1
    with pytest.raises(NeedsHarder):
        grade_board(puzzle, logic.MAX_LEVEL, 1)
    for bounds, message in (({"max_level": 0}, "max_level"), ({"max_level": 6}, "max_level"),
                            ({"max_guesses": 0}, "max_guesses")):
        with pytest.raises(ValueError, match=message):
            _engine.grade(puzzle, **bounds)
    with pytest.raises(TypeError):
        _engine.grade(puzzle, 4)  # the bounds are keywords


def test_grades_are_the_recorded_ones():
    # A faster grader may not change a grade: every level, score and count of
    # steps is what the recorded grader gave (the calibration on qqwing's sets
    # rests on them); a change meant to change grades remakes the file.
    rows = recorded_grades()
    assert len(rows) == 663 and {level for _, (level, *_) in rows} == set(logic.LEVEL_NAMES[1:])
    grades = logic.grade_many("".join(puzzle for puzzle, _ in rows))
    for (puzzle, expected), g in zip(rows, grades):
        got = (g.level_name, logic.TECHNIQUES[g.hardest], g.steps, g.score, g.counts)
        assert got == expected, puzzle


def test_paths_are_the_recorded_ones():
    # A faster grader may not change a step either: every step of each
    # recorded puzzle's logical solution, each field of it, is what the
    # recorded grader took (tests/data/paths.tsv, make_grades.py).
    lines = [line.split("\t") for line in (DATA / "paths.tsv").read_text().splitlines() if not line.startswith("#")]
    assert [puzzle for puzzle, _ in lines] == [puzzle for puzzle, _ in recorded_grades()]
    for puzzle, digest in lines:
        assert path_digest(puzzle) == digest, puzzle


def test_a_grade_is_its_path_on_the_hardest_recorded_puzzles():
    # grade() solves with what it remembers between steps; path() looks for
    # every step afresh: the two must take the same steps.
    hardest = [puzzle for puzzle, (level, *_) in recorded_grades() if level in ("expert", "extreme")]
    for puzzle in random.Random(14).sample(hardest, 40):
        steps = logic.path(puzzle, unique=True)
        assert logic.grade(puzzle).counts == tuple(
            sum(s.technique == t for s in steps) for t in range(len(logic.TECHNIQUES)))


def test_grades_of_boards_with_no_or_many_solutions():
    none = read(DATA / "invalid_no_solution.txt")[0]
    many = read(DATA / "multi_solution_16_clue.txt")[0]
    assert logic.grade(none)[:2] == (0, False) and logic.grade(none).level_name == "unsolved"
    g = logic.grade(many)
    assert g.solutions == 2 and not g.solved and g.counts[logic.TECHNIQUES.index("UNIQUE_RECTANGLE")] == 0


def test_a_solved_board_has_no_step_and_grades_with_none():
    solution = engine.solve(read(DATA / "qqwing_easy.txt")[0])
    assert logic.step(solution) is None and logic.path(solution) == []
    assert logic.grade(solution)[:4] == (1, True, 0, 0)


def test_bad_boards_and_pencil_marks_are_named():
    with pytest.raises(ValueError, match=r"cell r1c1: 'x'"):
        logic.step("x" + "." * 80)
    with pytest.raises(ValueError, match="expected 81 masks, got 80"):
        logic.step(EMPTY, [ALL] * 80)
    with pytest.raises(ValueError, match=r"pencil_marks: cell r1c3: not a mask"):
        logic.step(EMPTY, [ALL, ALL, 512] + [ALL] * 78)
    with pytest.raises(ValueError, match=r"pencil_marks: cell r1c1: not a mask"):
        logic.step(EMPTY, ["x"] + [ALL] * 80)
    with pytest.raises(TypeError):
        logic.step(EMPTY, 5)
    with pytest.raises(ValueError, match="max_level must be 1-5"):
        logic.step(EMPTY, max_level=6)
    with pytest.raises(ValueError, match="board 1: cell r1c1"):
        logic.grade_many("." * 81 + "x" + "." * 80)
    with pytest.raises(ValueError, match="whole number"):
        logic.grade_many("." * 80)


def test_marks_that_leave_a_cell_nothing_give_no_step():
    assert logic.step(EMPTY, [0] + [ALL] * 80) is None
    assert logic.path(EMPTY, [0] + [ALL] * 80) == []
