"""Reading puzzles from files the way the command line accepts them.

A file holds one or more boards. A board is one line of 81 cells, or nine
lines of nine cells. A cell is '1'-'9', or '.' or '0' for a blank. Spaces
and tabs inside a line are ignored, so "5 3 . | . 7 ." style rows work if
the bars are left out; blank lines and anything after '#' are skipped.
Anything else is an InputError naming the line and the column, because
that is where a person has to look.
"""

from __future__ import annotations

from dataclasses import dataclass

CELLS = frozenset("1234567890.")
SKIPPED = frozenset(" \t\r")
# The commands' puzzle argument (client/cli.py's read_text).
PUZZLE_HELP = "the puzzle: a FILE, or its 81 cells as one argument (default: stdin)"


class InputError(ValueError):
    """Bad input, at a line and column (both 1-based) of a named source."""

    def __init__(self, source: str, line: int, column: int, message: str):
        super().__init__(source, line, column, message)
        self.source, self.line, self.column, self.message = source, line, column, message

    def __str__(self) -> str:
        return f"{self.source}, line {self.line}, column {self.column}: {self.message}"


@dataclass(frozen=True)
class Board:
    """A board read from a file: 81 chars of '1'-'9' and '.', and where it began."""

    cells: str
    line: int


def _cells(text: str, source: str, number: int) -> tuple[str, list[int]]:
    """The cells of one line (comments and spaces dropped) and their columns."""
    cells, columns = [], []
    for column, ch in enumerate(text, 1):
        if ch == "#":
            break
        if ch in SKIPPED:
            continue
        if ch not in CELLS:
            raise InputError(source, number, column, f"{ch!r} is not a cell: use 1-9, or '.' or '0' for a blank")
        cells.append("." if ch == "0" else ch)
        columns.append(column)
    return "".join(cells), columns


def read_boards(text: str, source: str = "stdin") -> list[Board]:
    """Every board in `text`, in order; InputError at the first mistake."""
    boards: list[Board] = []
    rows: list[str] = []
    start = 0
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        cells, columns = _cells(line, source, number)
        n = len(cells)
        if n == 0:
            continue
        end = (columns[-1] + 1) if columns else 1
        if n == 9:
            start = start if rows else number
            rows.append(cells)
            if len(rows) == 9:
                boards.append(Board("".join(rows), start))
                rows = []
        elif n == 81 and not rows:
            boards.append(Board(cells, number))
        elif rows:
            at = columns[9] if n > 9 else end
            raise InputError(source, number, at,
                             f"row {len(rows) + 1} of the board from line {start} has {n} cells; expected 9")
        elif n > 81:
            raise InputError(source, number, columns[81], f"{n} cells on one line; a board has 81")
        else:
            raise InputError(source, number, end,
                             f"{n} cells; a line holds a row of 9 cells or a whole board of 81")
    if rows:
        raise InputError(source, len(lines) + 1, 1,
                         f"the board from line {start} ends after {len(rows)} rows; expected 9")
    return boards


def read_one(text: str, source: str = "stdin") -> Board:
    """The one board of `text`."""
    boards = read_boards(text, source)
    if not boards:
        raise InputError(source, 1, 1, "no puzzle: expected nine lines of nine cells or one line of 81")
    if len(boards) > 1:
        raise InputError(source, boards[1].line, 1, "a second board; expected one puzzle")
    return boards[0]


def entries_of(givens: str, board: str) -> str:
    """The player's entries from a board that may repeat the givens.

    A cell equal to its given is the given, not an entry; a cell that
    differs from its given is kept, so the service can name it.
    """
    return "".join("." if g != "." and g == b else b for g, b in zip(givens, board))
