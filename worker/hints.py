"""Hints for a player's board: the next move and why, or which entry is wrong.

Contract
--------
``hint(givens, entries="", include_candidates=False) -> dict`` takes two
boards in the API format (81 cells, '1'-'9', '.' or '0' for a blank,
whitespace ignored; ``entries`` may be empty for none) and returns a
``sudoku.v1.HintReply`` in protobuf JSON form, for
``json_format.ParseDict(reply, HintReply())``: proto field names, enums by
name, and only the fields that apply (no ``not_unique: false``, no
``should_be: 0``). ``move`` always has ``cell``, even 0 (r1c1), which
protobuf's own printer would leave out; nothing else differs from
``MessageToDict(..., preserving_proto_field_name=True)``.

Bad input raises ValueError with a message naming the field and the cell:
``"givens: cell r3c7: ..."`` (the engine's parse message behind the field
name) or ``"entries: cell r1c2 holds the given 7, not 3"`` (`check_entries`;
the service checks the same before queueing). A player's whole grid may be
sent as the entries: a given's cell holding its own given is not an entry.

The reply, checked in this order
--------------------------------
1. Givens that break a rule: NO_SOLUTION, ``conflicts`` = every given in a
   clash (reading order), the reason names the first clash (rows, then
   columns, then boxes).
2. An entry that breaks a rule (with another entry or a given): WRONG_ENTRY,
   ``wrong.cells`` = the two cells, ``wrong.unit`` = the unit they share. Of
   several, the clash of the first entry in reading order; of its units, row
   before column before box.
3. Givens with no solution (the engine's count): NO_SOLUTION, no conflicts.
4. An entry that breaks no rule but no solution keeps: WRONG_ENTRY with
   ``should_be``. Unique puzzle: the first entry in reading order that
   differs from the solution. Several solutions: the first entry, in reading
   order, that no solution keeping the entries before it allows (found by
   bisecting on the entries kept); ``should_be`` is its value in a solution
   that keeps those earlier entries. For a unique puzzle the two rules pick
   the same entry.
5. A full board: SOLVED.
6. Otherwise NEXT_MOVE: the naked single of lowest cell index; else a hidden
   single, units searched box 1-9, then row 1-9, then column 1-9 (the box is
   what a person scans first), lowest value first within a unit, with
   ``move.unit``; else FROM_SOLUTION at the cell with the fewest candidates
   (lowest index on a tie), which narrows the board most.

``not_unique`` is set on the replies of steps 4-6 when the givens have two
or more solutions; the solution used is then the engine's first solution of
givens plus entries. Steps 1-2 are rule checks and do not count solutions.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sudoku.grid import BOXES, COLUMNS, ROWS, UNITS, UNITS_OF, Unit, cell_name, to_string
from worker import engine

ALL_VALUES = 0x1FF  # bit v-1 set means value v may go in the cell

# The indices into UNITS of each cell's row, column and box, for mask lookups.
_UNIT_IDS = tuple(tuple(UNITS.index(u) for u in UNITS_OF[c]) for c in range(81))

# Hidden singles are looked for in boxes first: see the module docstring.
_HIDDEN_SINGLE_ORDER = BOXES + ROWS + COLUMNS

FROM_SOLUTION_REASON = "no single is available; from the solution"
NO_SOLUTION_REASON = "the givens have no solution, though no two of them break a rule"


class Clash(NamedTuple):
    """Two filled cells holding the same value in one unit (first < second)."""

    first: int
    second: int
    value: int
    unit: Unit


def hint(givens: str, entries: str = "", include_candidates: bool = False) -> dict[str, Any]:
    """The HintReply, in protobuf JSON form, for a player's board (see the module docstring)."""
    given_cells = _parse("givens", givens)
    entry_cells = _parse("entries", entries) if entries.strip() else bytes(81)
    entry_cells = check_entries(given_cells, entry_cells)
    board = given_cells
    if any(entry_cells):
        board = bytes(g or e for g, e in zip(given_cells, entry_cells))
    held, broken = _held(board)
    if broken:
        reply = _judge_clashes(_clashes(board), given_cells)
    else:
        reply = _judge_search(givens, given_cells, entry_cells, board, held)
    if include_candidates:
        reply["candidates"] = _candidates(board, held)
    return reply


def check_entries(given_cells: bytes, entry_cells: bytes) -> bytes:
    """The entries without the givens' cells: a game's whole grid (givens
    included) is accepted where each given's cell holds its given. Raise
    ValueError naming the first cell, in reading order, holding another value."""
    for cell, (g, e) in enumerate(zip(given_cells, entry_cells)):
        if g and e and g != e:
            # Worded as service/validate.py words it, so a client sees one message either way.
            raise ValueError(f"entries: cell {cell_name(cell)} holds the given {g}, not {e}")
    return bytes(0 if g else e for g, e in zip(given_cells, entry_cells))


def candidates(cells: bytes) -> list[int]:
    """81 masks: the values each blank cell may take by the rules (bit v-1 for v); 0 if filled."""
    return _candidates(cells, _held(cells)[0])


def _parse(field: str, board: str) -> bytes:
    try:
        return engine.parse_board(board)
    except ValueError as e:
        raise ValueError(f"{field}: {e}") from e


def _held(cells: bytes) -> tuple[list[int], bool]:
    """Each unit's mask of the values it holds (UNITS order); whether a value repeats in a unit."""
    held = [0] * 27
    broken = False
    for cell, value in enumerate(cells):
        if value:
            bit = 1 << (value - 1)
            row, column, box = _UNIT_IDS[cell]
            broken = broken or bool((held[row] | held[column] | held[box]) & bit)
            held[row] |= bit
            held[column] |= bit
            held[box] |= bit
    return held, broken


def _clashes(cells: bytes) -> list[Clash]:
    """Every clash: units in UNITS order (rows, columns, boxes), then cells in reading order."""
    clashes = []
    for unit in UNITS:
        first_holder: dict[int, int] = {}
        for cell in unit.cells:
            value = cells[cell]
            if value in first_holder:
                clashes.append(Clash(first_holder[value], cell, value, unit))
            elif value:
                first_holder[value] = cell
    return clashes


def _candidates(cells: bytes, held: list[int]) -> list[int]:
    return [
        0 if cells[c] else ALL_VALUES & ~(held[row] | held[column] | held[box])
        for c, (row, column, box) in enumerate(_UNIT_IDS)
    ]


def _judge_clashes(clashes: list[Clash], given_cells: bytes) -> dict[str, Any]:
    """Steps 1 and 2: a rule broken by the givens, else by an entry."""
    among_givens = [x for x in clashes if given_cells[x.first] and given_cells[x.second]]
    if among_givens:
        cells = sorted({c for x in among_givens for c in (x.first, x.second)})
        reason = f"the givens break the rules: {_clash_text(among_givens[0], given_cells)}"
        return {"kind": "NO_SOLUTION", "conflicts": cells, "reason": reason}
    # min() keeps the first of equal keys, so ties go row, column, box.
    clash = min(clashes, key=lambda x: x.first if not given_cells[x.first] else x.second)
    return {
        "kind": "WRONG_ENTRY",
        "wrong": {"cells": [clash.first, clash.second], "unit": _unit_json(clash.unit)},
        "reason": _clash_text(clash, given_cells),
    }


def _clash_text(clash: Clash, given_cells: bytes) -> str:
    a, b = cell_name(clash.first), cell_name(clash.second)
    text = f"{a} and {b} both hold {clash.value} in {clash.unit}"
    givens = [cell_name(c) for c in (clash.first, clash.second) if given_cells[c]]
    if len(givens) == 1:
        text += f"; {givens[0]} is a given"
    return text


def _judge_search(
    givens: str, given_cells: bytes, entry_cells: bytes, board: bytes, held: list[int]
) -> dict[str, Any]:
    """Steps 3-6, which need the engine: no solution, a wrong entry, solved, the next move."""
    # The givens' own text goes to the engine: parsing it again takes under a µs,
    # building a new string from given_cells about 10 µs.
    found, _ = engine.count(givens, limit=2)
    if found == 0:
        return {"kind": "NO_SOLUTION", "reason": NO_SOLUTION_REASON}
    if found == 1:
        solution = _values(engine.solve(givens))
        return _wrong_against(solution, entry_cells) or _progress(board, held, solution)
    agreeing = engine.solve(to_string(board))
    if agreeing is None:
        reply = _wrong_without_agreeing(given_cells, entry_cells)
    else:
        reply = _progress(board, held, _values(agreeing))
    reply["not_unique"] = True
    return reply


def _values(solution: str | None) -> bytes:
    if solution is None:  # a bug in the engine, not in the player's board
        raise RuntimeError("the engine counted a solution but solve found none")
    return engine.parse_board(solution)


def _wrong_against(solution: bytes, entry_cells: bytes) -> dict[str, Any] | None:
    """Step 4 for a unique puzzle: the first entry that differs from its solution."""
    for cell, value in enumerate(entry_cells):
        if value and value != solution[cell]:
            reason = (
                f"{cell_name(cell)} is wrong: {value} breaks no rule yet, "
                f"but the solution has {solution[cell]} there"
            )
            return _wrong_entry(cell, solution[cell], reason)
    return None


def _wrong_without_agreeing(given_cells: bytes, entry_cells: bytes) -> dict[str, Any]:
    """Step 4 with several solutions and none keeping every entry (see the module docstring).

    The givens with the first k entries (reading order) have a solution for
    k = 0 and none for every entry; adding entries never brings a solution
    back, so bisection finds the first entry that cannot be kept in about
    log2(entries) solves.
    """
    entered = [c for c in range(81) if entry_cells[c]]
    kept, lost = 0, len(entered)  # keeping `kept` entries has a solution; `lost` has none
    solution = engine.solve(to_string(given_cells))
    while lost - kept > 1:
        mid = (kept + lost) // 2
        attempt = engine.solve(_with_entries(given_cells, entry_cells, entered[:mid]))
        if attempt is None:
            lost = mid
        else:
            kept, solution = mid, attempt
    cell = entered[kept]
    should_be = _values(solution)[cell]
    reason = (
        f"{cell_name(cell)} is wrong: the puzzle has more than one solution, but none keeps "
        f"{entry_cells[cell]} there along with your entries before it; "
        f"one that keeps those has {should_be}"
    )
    return _wrong_entry(cell, should_be, reason)


def _with_entries(given_cells: bytes, entry_cells: bytes, cells: list[int]) -> str:
    """The board string of the givens and the entries at `cells`."""
    board = bytearray(given_cells)
    for c in cells:
        board[c] = entry_cells[c]
    return to_string(board)


def _wrong_entry(cell: int, should_be: int, reason: str) -> dict[str, Any]:
    wrong = {"cells": [cell], "should_be": should_be}
    return {"kind": "WRONG_ENTRY", "wrong": wrong, "reason": reason}


def _progress(board: bytes, held: list[int], solution: bytes) -> dict[str, Any]:
    """Steps 5 and 6, for a board that breaks no rule and agrees with `solution`."""
    if all(board):
        return {"kind": "SOLVED", "reason": "the board is complete and right"}
    masks = _candidates(board, held)
    return _naked_single(masks) or _hidden_single(masks) or _from_solution(masks, solution)


def _naked_single(masks: list[int]) -> dict[str, Any] | None:
    for cell, mask in enumerate(masks):
        if mask and not mask & (mask - 1):
            value = mask.bit_length()
            reason = (
                f"{cell_name(cell)} can only be {value}: "
                "its row, column and box hold the other eight values"
            )
            return _move(cell, value, "NAKED_SINGLE", reason)
    return None


def _hidden_single(masks: list[int]) -> dict[str, Any] | None:
    for unit in _HIDDEN_SINGLE_ORDER:
        once = twice = 0
        for cell in unit.cells:
            twice |= once & masks[cell]
            once |= masks[cell]
        only_one_place = once & ~twice
        if only_one_place:
            bit = only_one_place & -only_one_place  # the lowest such value
            cell = next(c for c in unit.cells if masks[c] & bit)
            value = bit.bit_length()
            reason = f"in {unit}, only {cell_name(cell)} can hold {value}"
            move = _move(cell, value, "HIDDEN_SINGLE", reason)
            move["move"]["unit"] = _unit_json(unit)
            return move
    return None


def _from_solution(masks: list[int], solution: bytes) -> dict[str, Any]:
    cell = min((c for c in range(81) if masks[c]), key=lambda c: (masks[c].bit_count(), c))
    return _move(cell, solution[cell], "FROM_SOLUTION", FROM_SOLUTION_REASON)


def _move(cell: int, value: int, technique: str, reason: str) -> dict[str, Any]:
    move = {"cell": cell, "value": value, "technique": technique}
    return {"kind": "NEXT_MOVE", "move": move, "reason": reason}


def _unit_json(unit: Unit) -> dict[str, Any]:
    return {"kind": unit.kind.upper(), "index": unit.index}
