"""A pure-Python Norvig-style solver: the baseline bench/engine.py measures against.

After Peter Norvig's "Solving Every Sudoku Puzzle": constraint propagation
(eliminate a value from a cell's peers when the cell is decided; place a
value in a unit's only possible cell) and depth-first search on the cell
with the fewest candidates, over dicts of candidate strings copied at every
guess. Benchmark-only: it is not part of the package.
"""

from __future__ import annotations

DIGITS = "123456789"
ROWS = "ABCDEFGHI"
COLS = DIGITS


def cross(a: str, b: str) -> list[str]:
    return [x + y for x in a for y in b]


SQUARES = cross(ROWS, COLS)
UNITLIST = ([cross(ROWS, c) for c in COLS] + [cross(r, COLS) for r in ROWS]
            + [cross(rs, cs) for rs in ("ABC", "DEF", "GHI") for cs in ("123", "456", "789")])
UNITS = {s: [u for u in UNITLIST if s in u] for s in SQUARES}
PEERS = {s: set(sum(UNITS[s], [])) - {s} for s in SQUARES}

Values = dict[str, str]


def parse_grid(grid: str) -> Values | None:
    """Candidates after propagating the givens; None on a contradiction."""
    values = {s: DIGITS for s in SQUARES}
    for s, d in zip(SQUARES, grid):
        if d in DIGITS and not assign(values, s, d):
            return None
    return values


def assign(values: Values, s: str, d: str) -> Values | None:
    other = values[s].replace(d, "")
    if all(eliminate(values, s, d2) for d2 in other):
        return values
    return None


def eliminate(values: Values, s: str, d: str) -> Values | None:
    if d not in values[s]:
        return values
    values[s] = values[s].replace(d, "")
    if not values[s]:
        return None
    if len(values[s]) == 1:
        d2 = values[s]
        if not all(eliminate(values, s2, d2) for s2 in PEERS[s]):
            return None
    for u in UNITS[s]:
        places = [s2 for s2 in u if d in values[s2]]
        if not places:
            return None
        if len(places) == 1 and not assign(values, places[0], d):
            return None
    return values


def search(values: Values | None, limit: int, found: list[Values]) -> None:
    """Appends solutions to `found` until it holds `limit` of them."""
    if values is None or len(found) >= limit:
        return
    if all(len(values[s]) == 1 for s in SQUARES):
        found.append(values)
        return
    _, s = min((len(values[s]), s) for s in SQUARES if len(values[s]) > 1)
    for d in values[s]:
        search(assign(values.copy(), s, d), limit, found)
        if len(found) >= limit:
            return


def solve(grid: str) -> str | None:
    found: list[Values] = []
    search(parse_grid(grid), 1, found)
    return "".join(found[0][s] for s in SQUARES) if found else None


def count(grid: str, limit: int = 2) -> int:
    found: list[Values] = []
    search(parse_grid(grid), limit, found)
    return len(found)
