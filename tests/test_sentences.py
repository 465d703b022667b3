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
