"""The grid's vocabulary, shared by the worker, the service and the client.

Glossary: a *cell* is 0..80 in reading order and is named ``r1c1``..``r9c9``
in messages; a *value* is 1..9; a *unit* is a row, a column or a box (each
numbered 1..9, boxes in reading order); *givens* are the puzzle's values,
*entries* the player's, *candidates* the values a blank cell may still take.
A *board* in transit is an 81-character string with '.' for a blank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

UnitKind = Literal["row", "column", "box"]


@dataclass(frozen=True)
class Unit:
    kind: UnitKind
    index: int  # 1..9
    cells: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.kind} {self.index}"


def row_of(cell: int) -> int:
    return cell // 9


def col_of(cell: int) -> int:
    return cell % 9


def box_of(cell: int) -> int:
    return (cell // 27) * 3 + (cell % 9) // 3


def cell_name(cell: int) -> str:
    return f"r{cell // 9 + 1}c{cell % 9 + 1}"


def _build_units() -> tuple[Unit, ...]:
    units = []
    for i in range(9):
        units.append(Unit("row", i + 1, tuple(c for c in range(81) if row_of(c) == i)))
    for i in range(9):
        units.append(Unit("column", i + 1, tuple(c for c in range(81) if col_of(c) == i)))
    for i in range(9):
        units.append(Unit("box", i + 1, tuple(c for c in range(81) if box_of(c) == i)))
    return tuple(units)


UNITS: tuple[Unit, ...] = _build_units()
ROWS, COLUMNS, BOXES = UNITS[0:9], UNITS[9:18], UNITS[18:27]

# The three units of each cell: (row, column, box).
UNITS_OF: tuple[tuple[Unit, Unit, Unit], ...] = tuple(
    (ROWS[row_of(c)], COLUMNS[col_of(c)], BOXES[box_of(c)]) for c in range(81)
)

# The 20 other cells that share a unit with each cell.
PEERS: tuple[frozenset[int], ...] = tuple(
    frozenset(x for u in UNITS_OF[c] for x in u.cells) - {c} for c in range(81)
)

EMPTY = "." * 81
ALL_VALUES = 0x1FF  # a pencil mask: bit v-1 set means value v may go in the cell


# Byte tables between a cell's value (0 for a blank) and its character:
# a board is turned either way in one pass of C, not 81 steps of Python.
_SHOWN = bytes.maketrans(bytes(range(10)), b".123456789")
_VALUES = bytes.maketrans(b".123456789", bytes(range(10)))
_FILLED = bytes.maketrans(bytes(range(10)), b"\x00" + b"\xff" * 9)  # a value's cell -> all ones


def to_string(cells: bytes | list[int]) -> str:
    """81 values (0 = blank) as a board string with '.' for blanks."""
    return bytes(cells).translate(_SHOWN).decode()


def to_values(board: str) -> list[int]:
    """A normalised board string (81 chars of '1'-'9' and '.') as 81 ints."""
    return list(board.encode().translate(_VALUES))


def nine_lines(board: str) -> str:
    """The board as nine lines of nine characters, newline-terminated."""
    return "".join(board[r * 9 : r * 9 + 9] + "\n" for r in range(9))


def is_solution_of(solution: str, puzzle: str) -> bool:
    """True when `solution` is a complete valid grid that keeps every value of `puzzle`."""
    if len(solution) != 81 or len(puzzle) != 81:
        return False
    if any(p != "." and p != s for p, s in zip(puzzle, solution)):
        return False
    digits = set("123456789")
    return all({solution[c] for c in u.cells} == digits for u in UNITS)


# The checks of a player's board that the service makes before it queues a
# Hint or Explain, and the worker makes again (worker/hints.py): one home,
# so a client sees one message either way.
def check_entries(given_cells: bytes, entry_cells: bytes) -> bytes:
    """The entries without the givens' cells: a game's whole grid (givens
    included) is accepted where each given's cell holds its given. Raise
    ValueError naming the first cell, in reading order, holding another value."""
    # Byte-wise, as 81-byte integers: `both` is all ones where a given's
    # cell holds an entry too; those cells must hold the same value.
    given, entry = int.from_bytes(given_cells, "big"), int.from_bytes(entry_cells, "big")
    given_mask = int.from_bytes(given_cells.translate(_FILLED), "big")
    both = given_mask & int.from_bytes(entry_cells.translate(_FILLED), "big")
    if given & both != entry & both:
        for cell, (g, e) in enumerate(zip(given_cells, entry_cells)):
            if g and e and g != e:
                raise ValueError(f"entries: cell {cell_name(cell)} holds the given {g}, not {e}")
    return (entry & ~given_mask).to_bytes(len(entry_cells), "big")


def check_pencil_marks(masks: list[int]) -> None:
    """Raise ValueError unless `masks` is 81 masks of values 1-9 (ints 0-511)."""
    if len(masks) != 81:
        raise ValueError(f"pencil_marks: expected 81 masks (one per cell), got {len(masks)}")
    for cell, mask in enumerate(masks):
        if not 0 <= mask <= ALL_VALUES:
            raise ValueError(
                f"pencil_marks: cell {cell_name(cell)}: {mask} is not a mask of values 1-9 (0-511)"
            )
