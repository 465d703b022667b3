"""Reading puzzles as the command line does (client.boards), and durations
(client.durations): no service needed."""

from __future__ import annotations

import pytest

from client.boards import InputError, entries_of, read_boards, read_one
from client.durations import parse_duration
from sudoku.grid import nine_lines

WIKIPEDIA = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def test_one_line_nine_lines_zeros_spaces_and_comments_read_alike():
    spaced = "\n".join(" ".join(row) + "  # row" for row in nine_lines(WIKIPEDIA).split())
    for text in (WIKIPEDIA, WIKIPEDIA.replace(".", "0") + "\n", nine_lines(WIKIPEDIA), "# a puzzle\n\n" + spaced):
        assert read_one(text).cells == WIKIPEDIA


def test_several_boards_in_any_layout():
    boards = read_boards(nine_lines(WIKIPEDIA) + "\n" + WIKIPEDIA + "\n" + nine_lines(WIKIPEDIA))
    assert [b.cells for b in boards] == [WIKIPEDIA] * 3
    assert [b.line for b in boards] == [1, 11, 12]


@pytest.mark.parametrize(("text", "line", "column", "words"), [
    ("53..7...x" + WIKIPEDIA[9:], 1, 9, "'x' is not a cell"),
    (nine_lines(WIKIPEDIA).replace("6..195...", "6..195....."), 2, 10, "row 2 of the board from line 1 has 11"),
    (nine_lines(WIKIPEDIA).replace("6..195...", "6..19"), 2, 6, "row 2 of the board from line 1 has 5"),
    ("12345\n", 1, 6, "5 cells"),
    (WIKIPEDIA + "1\n", 1, 82, "82 cells"),
    ("".join(nine_lines(WIKIPEDIA).splitlines(keepends=True)[:4]), 5, 1, "ends after 4 rows"),
    ("# nothing\n", 1, 1, "no puzzle"),
    (WIKIPEDIA + "\n" + WIKIPEDIA, 2, 1, "a second board"),
])
def test_mistakes_name_the_line_and_column(text, line, column, words):
    with pytest.raises(InputError) as err:
        read_one(text, "puzzle.txt")
    assert (err.value.line, err.value.column) == (line, column)
    assert words in err.value.message
    assert str(err.value).startswith(f"puzzle.txt, line {line}, column {column}: ")


def test_entries_of_a_board_that_repeats_the_givens():
    player = "534" + WIKIPEDIA[3:]
    assert entries_of(WIKIPEDIA, player) == "..4" + "." * 78
    assert entries_of(WIKIPEDIA, "6" + "." * 80) == "6" + "." * 80  # differs from a given: kept, to be named


@pytest.mark.parametrize(("text", "seconds"), [
    ("10s", 10), ("500ms", 0.5), ("2m", 120), ("1m30s", 90), ("1.5s", 1.5), ("3", 3), ("1h", 3600),
])
def test_durations(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "ten", "10x", "s", "0s", "-1s", "10s5"])
def test_bad_durations(text):
    with pytest.raises(ValueError):
        parse_duration(text)
