"""Hints for a player's board: the next move and why, or which entry is wrong.

Contract
--------
``hint(givens, entries="", include_candidates=False, pencil_marks=None) -> dict``
takes two boards in the API format (81 cells, '1'-'9', '.' or '0' for a
blank, whitespace ignored; ``entries`` may be empty for none) and optionally
the player's pencil marks (81 masks, bit v-1 for value v), and returns a
``sudoku.v1.HintReply`` in protobuf JSON form, for
``json_format.ParseDict(reply, HintReply())``: proto field names, enums by
name, and only the fields that apply (no ``not_unique: false``, no
``should_be: 0``, no ``cell: 0`` in a step). ``move`` always has ``cell``,
even 0 (r1c1), which protobuf's own printer would leave out; nothing else
differs from ``MessageToDict(..., preserving_proto_field_name=True)``.

Bad input raises ValueError with a message naming the field and the cell:
``"givens: cell r3c7: ..."`` (the engine's parse message behind the field
name) or ``"entries: cell r1c2 holds the given 7, not 3"`` (`sudoku.grid.check_entries`;
the service checks the same before queueing; a player's whole grid may be
sent as the entries: a given's cell holding its own given is not an entry),
or ``"pencil_marks: ..."`` (`sudoku.grid.check_pencil_marks`, likewise).

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
5. Pencil marks (unique puzzle only) that leave out a blank cell's value in
   the solution: WRONG_ENTRY with ``wrong.pencil_marks``, the first such
   cell in reading order, ``should_be`` its value.
6. A full board: SOLVED.
7. Otherwise the easiest logical step (worker.logic; uniqueness techniques
   only for a unique puzzle), with ``step`` (technique, pattern, effect and
   its sentence, which is also ``reason``). With pencil marks it is the next
   step on them: NEXT_MOVE for a placement, ELIMINATION for eliminations.
   Without, the steps are followed from the rules' candidates up to the
   first placement, NEXT_MOVE, the eliminations before it in ``before``.
   ``move.technique`` is NAKED_SINGLE for a naked single or full house,
   HIDDEN_SINGLE (with ``move.unit``) for a hidden single, LOGICAL_STEP
   otherwise. When no step is found (a puzzle with several solutions),
   FROM_SOLUTION at the cell with the fewest candidates (lowest index on a
   tie), which narrows the board most.

``not_unique`` is set on the replies of steps 4-7 when the givens have two
or more solutions; the solution used is then the engine's first solution of
givens plus entries. Steps 1-2 are rule checks and do not count solutions.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sudoku import engine
from sudoku.grid import ALL_VALUES, UNITS, UNITS_OF, Unit, cell_name, check_entries, check_pencil_marks, to_string
from worker import logic
from worker.sentences import reason as step_reason

# The indices into UNITS of each cell's row, column and box, for mask lookups.
_UNIT_IDS = tuple(tuple(UNITS.index(u) for u in UNITS_OF[c]) for c in range(81))

FROM_SOLUTION_REASON = "no logical step is available (the puzzle has several solutions); from the solution"
NO_SOLUTION_REASON = "the givens have no solution, though no two of them break a rule"


class NeedsHarder(Exception):
    """No step was found within the `max_level` asked for, below the top of
    the ladder: the call goes on with the whole ladder (sudoku/lanes.py
    runs it in the heavy lane)."""


class Clash(NamedTuple):
    """Two filled cells holding the same value in one unit (first < second)."""

    first: int
    second: int
    value: int
    unit: Unit


def hint(
    givens: str, entries: str = "", include_candidates: bool = False, pencil_marks: list[int] | None = None,
    max_level: int = logic.MAX_LEVEL,
) -> dict[str, Any]:
    """The HintReply, in protobuf JSON form, for a player's board (see the
    module docstring); with `max_level` below the top, raises NeedsHarder
    where only a harder technique would find the step."""
    given_cells = _parse("givens", givens)
    entry_cells = _parse("entries", entries) if entries.strip() else bytes(81)
    entry_cells = check_entries(given_cells, entry_cells)
    if pencil_marks is not None:
        check_pencil_marks(pencil_marks)
    board = given_cells
    if any(entry_cells):
        board = bytes(g or e for g, e in zip(given_cells, entry_cells))
    held, broken = _held(board)
    if broken:
        reply = _judge_clashes(_clashes(board), given_cells)
    else:
        reply = _judge_search(givens, given_cells, entry_cells, board, held, pencil_marks, max_level)
    if include_candidates:
        masks = _candidates(board, held)
        if pencil_marks is not None:
            masks = [m & p for m, p in zip(masks, pencil_marks)]
        reply["candidates"] = masks
    return reply


def explain(board: str, pencil_marks: list[int] | None = None, max_level: int = logic.MAX_LEVEL,
            max_guesses: int | None = None) -> dict[str, Any]:
    """An ExplainReply in protobuf JSON form: every logical step of the board's
    solution, each with its sentence. Uniqueness techniques only for a board
    with one solution; the steps stop where no technique applies. With
    `max_level` below the top (or `max_guesses` for its count), raises
    NeedsHarder where the steps stop short of the end, or the count of it."""
    cells = _parse("board", board)
    if pencil_marks is not None:
        check_pencil_marks(pencil_marks)
    found, complete = engine.count(board, limit=2, max_steps=max_guesses)
    if not complete and found < 2 and max_guesses is not None:
        raise NeedsHarder()
    verdict = "MULTIPLE" if found >= 2 else ("UNIQUE" if found else "NONE") if complete else "UNKNOWN"
    steps = logic.path(board, pencil_marks, unique=verdict == "UNIQUE", max_level=max_level) if found else []
    filled = sum(1 for s in steps if s.is_placement)
    if found and filled != cells.count(0) and max_level < logic.MAX_LEVEL:
        raise NeedsHarder()
    out: list[dict[str, Any]] = []
    eliminated = pencil_marks is not None  # until then the candidates are the rules'
    for s in steps:
        out.append(step_json(s, by_rules=not eliminated))
        eliminated = eliminated or not s.is_placement
    reply: dict[str, Any] = {"steps": out, "verdict": verdict}
    if found and filled == cells.count(0):
        reply["solved"] = True
    return reply


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
    givens: str, given_cells: bytes, entry_cells: bytes, board: bytes, held: list[int],
    pencil_marks: list[int] | None, max_level: int,
) -> dict[str, Any]:
    """Steps 3-7, which need the engine: no solution, a wrong entry, solved, the next step."""
    # The givens' own text goes to the engine: parsing it again costs less
    # than building a new string from given_cells.
    found, _ = engine.count(givens, limit=2)
    if found == 0:
        return {"kind": "NO_SOLUTION", "reason": NO_SOLUTION_REASON}
    if found == 1:
        solution = _values(engine.solve(givens))
        wrong = _wrong_against(solution, entry_cells) or _wrong_marks(solution, board, pencil_marks)
        return wrong or _progress(board, held, solution, pencil_marks, True, max_level, given_cells)
    agreeing = engine.solve(to_string(board))
    if agreeing is None:
        reply = _wrong_without_agreeing(given_cells, entry_cells)
    else:
        reply = _progress(board, held, _values(agreeing), pencil_marks, False, max_level)
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


def _wrong_marks(solution: bytes, board: bytes, pencil_marks: list[int] | None) -> dict[str, Any] | None:
    """Step 5: the first blank cell whose pencil marks leave out its value in the solution."""
    if pencil_marks is None:
        return None
    for cell, mask in enumerate(pencil_marks):
        value = solution[cell]
        if not board[cell] and not mask >> (value - 1) & 1:
            reason = f"the pencil marks of {cell_name(cell)} leave out {value}, which the solution has there"
            reply = _wrong_entry(cell, value, reason)
            reply["wrong"]["pencil_marks"] = True
            return reply
    return None


def _progress(
    board: bytes, held: list[int], solution: bytes, pencil_marks: list[int] | None, unique: bool, max_level: int,
    given_cells: bytes | None = None,
) -> dict[str, Any]:
    """Steps 6 and 7, for a board that breaks no rule and agrees with `solution`.
    `given_cells` (a unique puzzle's) tells the player's entries from the
    givens, for the avoidable rectangles; None when every filled cell is one."""
    if all(board):
        return {"kind": "SOLVED", "reason": "the board is complete and right"}
    text = to_string(board)
    givens = to_string(given_cells) if given_cells is not None and given_cells != board else None
    if pencil_marks is not None:
        step = logic.step(text, pencil_marks, unique=unique, max_level=max_level, givens=givens)
        steps = [] if step is None else [step]
    else:
        steps = logic.path(text, unique=unique, max_level=max_level, givens=givens, until_placement=True)
        if steps and not steps[-1].is_placement:
            steps = []  # the steps ran out before a placement
    if not steps:
        if max_level < logic.MAX_LEVEL:
            raise NeedsHarder()
        return _from_solution(_candidates(board, held), solution)
    step = steps[-1]
    by_rules = step.is_placement and _candidates(board, held)[step.cell] == 1 << (step.digit - 1)
    reply = {"kind": "NEXT_MOVE" if step.is_placement else "ELIMINATION", "step": step_json(step, by_rules)}
    reply["reason"] = reply["step"]["reason"]
    if step.is_placement:
        reply["move"] = _move_of(step)
    if len(steps) > 1:
        reply["before"] = [step_json(s) for s in steps[:-1]]
        reply["reason"] = f"after {_count(len(steps) - 1, 'elimination step')} ({_list_before(steps)}): {reply['reason']}"
    return reply


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _list_before(steps: list[logic.Step]) -> str:
    names = [s.name.replace("_", " ").lower() for s in steps[:-1]]
    return ", ".join(names) if len(names) <= 4 else f"{', '.join(names[:3])}, ... {names[-1]}"


MOVE_TECHNIQUES = {"FULL_HOUSE": "NAKED_SINGLE", "NAKED_SINGLE": "NAKED_SINGLE", "HIDDEN_SINGLE": "HIDDEN_SINGLE"}


def _move_of(step: logic.Step) -> dict[str, Any]:
    move = {"cell": step.cell, "value": step.digit, "technique": MOVE_TECHNIQUES.get(step.name, "LOGICAL_STEP")}
    if step.name == "HIDDEN_SINGLE":
        move["unit"] = _unit_json(UNITS[step.units[0]])
    return move


def step_json(step: logic.Step, by_rules: bool = False) -> dict[str, Any]:
    """A sudoku.v1.Step in protobuf JSON form (proto field names, enums by name);
    `by_rules` as worker.sentences.reason takes it."""
    out: dict[str, Any] = {
        "technique": step.name,
        "level": logic.LEVEL_NAMES[logic.LEVELS[step.technique]].upper(),
        "reason": step_reason(step, by_rules),
    }
    if step.is_placement:
        out["placement"] = _set({"cell": step.cell, "value": step.digit})
    if step.eliminations:
        out["eliminations"] = [_set({"cell": c, "value": d}) for c, d in step.eliminations]
    if step.pattern:
        out["pattern"] = [_set({"cell": c, "value": d, "group": g}) for g, c, d in step.pattern]
    if step.units:
        out["units"] = [_unit_json(UNITS[u]) for u in step.units]
    if step.digits:
        out["digits"] = list(step.digits)
    if step.chain:
        out["chain"] = [
            _set({"cell": n.cell, "value": n.digit, "on": n.on, "strong": n.strong, "branch": n.branch})
            for n in step.chain
        ]
    if step.variant:
        out["variant"] = step.variant
    return out


def _set(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields that are not zero or false, as protobuf's JSON printer leaves them."""
    return {k: v for k, v in fields.items() if v}


def _from_solution(masks: list[int], solution: bytes) -> dict[str, Any]:
    cell = min((c for c in range(81) if masks[c]), key=lambda c: (masks[c].bit_count(), c))
    return _move(cell, solution[cell], "FROM_SOLUTION", FROM_SOLUTION_REASON)


def _move(cell: int, value: int, technique: str, reason: str) -> dict[str, Any]:
    move = {"cell": cell, "value": value, "technique": technique}
    return {"kind": "NEXT_MOVE", "move": move, "reason": reason}


def _unit_json(unit: Unit) -> dict[str, Any]:
    return {"kind": unit.kind.upper(), "index": unit.index}
