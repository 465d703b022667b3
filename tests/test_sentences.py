"""worker.sentences: a sentence for every technique the ladder meets, naming the
technique and saying what the step does."""

from __future__ import annotations

import pytest

from tests.test_engine_logic import DATA, FROM_SETS, PICKED, read
from worker import logic
from worker.sentences import effect, reason, title


@pytest.mark.parametrize(("name", "line_no", "before", "technique", "variant"),
                         [row[:5] for row in FROM_SETS], ids=[f"{t}-{v}" for _, _, _, t, v, *_ in FROM_SETS])
def test_every_technique_met_in_the_sets_has_its_sentence(name, line_no, before, technique, variant):
    puzzle = PICKED.get((name, line_no)) or read(DATA / f"{name}.txt")[line_no]
    s = logic.path(puzzle, unique=True)[before]
    assert (s.name, s.variant) == (technique, variant)
    text = reason(s)
    assert title(s).lower().split()[-1] in text.lower() and effect(s) in text, text


def test_a_group_in_a_chain_reads_as_one_node():
    name, line_no, before, *_ = next(row for row in FROM_SETS if row[3] == "GROUPED_AIC")
    s = logic.path(read(DATA / f"{name}.txt")[line_no], unique=True)[before]
    assert reason(s) == ("Grouped alternating inference chain: (7)r6c3 = (7)r78c3 - (7)r9c1 = (1)r9c1 - "
                         "(1)r9c5 = (1)r6c5: one end is true, so 7 is not in r6c5")


def test_an_avoidable_rectangle_says_which_cells_were_placed():
    from tests.test_engine_logic import EMPTY, Marks, placed
    s = logic.step(placed(r1c1=1, r1c4=2), Marks().set("r2c1", 2, 3).set("r2c4", 1, 3).masks, unique=True,
                   givens=EMPTY)
    assert reason(s) == (
        "Avoidable rectangle: r1c1 and r1c4 were filled in as 1 and 2; were neither r2c1 (2 or 3) nor r2c4 "
        "(1 or 3) 3, they would be 2 and 1 and swapping 1 and 2 in the four would give a second solution (none "
        "of them is a given), so one of them is 3: 3 is not in r2c2, r2c3, r2c5, r2c6, r2c7, r2c8 or r2c9")


def test_a_franken_fish_names_its_base_and_cover_units_and_its_fins():
    name, line_no, before, *_ = next(row for row in FROM_SETS if row[3] == "FINNED_FRANKEN_SWORDFISH")
    s = logic.path(read(DATA / f"{name}.txt")[line_no], unique=True)[before]
    assert reason(s) == ("Finned Franken swordfish on 1: column 6, column 7 and box 3 hold 1 only in rows 1, 4 and "
                         "9, or in the fins r2c9 and r5c7; either way 1 is not in r4c9, which sees every fin")
