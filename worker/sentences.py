"""One sentence a player can follow for each logical step (worker.logic).

``reason(step)`` names the technique, says what the pattern is in the
player's terms (cells as r1c1, units as "row 5", "box 4") and what follows,
e.g. "Pointing: in box 4, 7 can only go in row 5, so 7 is not in r5c7 or
r5c9". Everything comes from the step itself; nothing is looked up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sudoku.grid import UNITS, cell_name
from worker import logic
from worker.logic import Step

# The singles keep the words hints always had; a naked single whose other
# candidates went by eliminations (or the player's marks) says so instead.
NAKED_SINGLE_TEXT = "{cell} can only be {value}: its row, column and box hold the other eight values"
NAKED_AFTER_MARKS_TEXT = "Naked single: {cell} has no candidate left but {value}"
HIDDEN_SINGLE_TEXT = "in {unit}, only {cell} can hold {value}"

TITLES = {
    "TWO_STRING_KITE": "Two-string kite",
    "XY_WING": "XY-wing",
    "XYZ_WING": "XYZ-wing",
    "W_WING": "W-wing",
    "X_WING": "X-wing",
    "FINNED_X_WING": "Finned X-wing",
    "SASHIMI_X_WING": "Sashimi X-wing",
    "SIMPLE_COLORING": "Simple colouring",
    "BUG_PLUS_ONE": "BUG+1",
    "X_CHAIN": "X-chain",
    "XY_CHAIN": "XY-chain",
    "AIC": "Alternating inference chain",
    "ALS_XZ": "ALS-XZ",
    "ALS_XY_WING": "ALS-XY-wing",
    "MULTI_COLORING": "Multi-colouring",
    "GROUPED_AIC": "Grouped alternating inference chain",
    "ALS_XY_CHAIN": "ALS-XY-chain",
    "FINNED_FRANKEN_SWORDFISH": "Finned Franken swordfish",
}


def title(step: Step) -> str:
    """The technique as a player reads it: "Naked pair", "X-wing"."""
    return TITLES.get(step.name, step.name.replace("_", " ").capitalize())


def and_list(items: Iterable[str], word: str = "and") -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def cells_text(cells: Iterable[int], word: str = "and") -> str:
    return and_list([cell_name(c) for c in sorted(set(cells))], word)


def digits_text(digits: Iterable[int], word: str = "and") -> str:
    return and_list([str(d) for d in sorted(set(digits))], word)


def unit_text(u: int) -> str:
    return str(UNITS[u])


def units_text(units: Iterable[int]) -> str:
    """Units of one kind as "rows 1 and 5"; mixed kinds listed one by one."""
    units = list(units)
    kinds = {UNITS[u].kind for u in units}
    if len(kinds) == 1 and len(units) > 1:
        kind = UNITS[units[0]].kind
        return f"{kind}s " + and_list([str(UNITS[u].index) for u in units])
    return and_list([unit_text(u) for u in units])


def effect(step: Step) -> str:
    """What the step changes: "r4c7 is 3", "7 is not in r5c7 or r5c9",
    "r1c3 is not 1 or 2, r2c1 is not 1"."""
    if step.is_placement:
        return f"{cell_name(step.cell)} is {step.digit}"
    by_digit: dict[int, list[int]] = {}
    by_cell: dict[int, list[int]] = {}
    for c, d in step.eliminations:
        by_digit.setdefault(d, []).append(c)
        by_cell.setdefault(c, []).append(d)
    if len(by_digit) == 1:
        ((d, cells),) = by_digit.items()
        return f"{d} is not in {cells_text(cells, 'or')}"
    if len(by_cell) == 1:
        ((c, digits),) = by_cell.items()
        return f"{cell_name(c)} is not {digits_text(digits, 'or')}"
    return "; ".join(f"{cell_name(c)} is not {digits_text(ds, 'or')}" for c, ds in by_cell.items())


def group_cells(step: Step, group: int) -> list[int]:
    return sorted({c for g, c, _ in step.pattern if g == group})


def cell_digits(step: Step, c: int, group: int | None = None) -> list[int]:
    return sorted({d for g, cc, d in step.pattern if cc == c and (group is None or g == group)})


def node_text(cells: list[int], digit: int) -> str:
    """A chain node: (5)r1c1, or a group of cells in one row (5)r1c12 or column (5)r12c1."""
    if len(cells) == 1:
        return f"({digit}){cell_name(cells[0])}"
    rows = sorted({c // 9 + 1 for c in cells})
    cols = sorted({c % 9 + 1 for c in cells})
    return f"({digit})r{''.join(map(str, rows))}c{''.join(map(str, cols))}"


def chain_nodes(step: Step) -> list[tuple[list[int], int, bool, bool]]:
    """The chain's nodes as (cells, digit, on, strong): a group's cells (consecutive
    nodes with the same digit and the same `on`) as one node."""
    out: list[tuple[list[int], int, bool, bool]] = []
    for n in step.chain:
        if out and out[-1][1] == n.digit and out[-1][2] == n.on:
            out[-1] = (out[-1][0] + [n.cell], n.digit, n.on, n.strong)
        else:
            out.append(([n.cell], n.digit, n.on, n.strong))
    return out


def chain_text(step: Step) -> str:
    """A chain in the usual notation: (5)r1c1 = (5)r1c4 - (5)r7c4 = (5)r8c5."""
    nodes = chain_nodes(step)
    parts = []
    for i, (cells, digit, _, strong) in enumerate(nodes):
        parts.append(node_text(cells, digit))
        if i + 1 < len(nodes):
            parts.append("=" if strong else "-")
    return " ".join(parts)


def implications(step: Step, branch: int, limit: int = 6) -> str:
    """A forcing chain branch's placements, as "r1c1=5, r2c3=4, ..."."""
    nodes = [n for n in step.chain if n.branch == branch][1:]
    text = ", ".join(f"{cell_name(n.cell)}={n.digit}" for n in nodes[:limit])
    if len(nodes) > limit:
        text += f" and {len(nodes) - limit} more"
    return text


# ---- Per technique ----


def _singles(step: Step) -> str:
    cell, value = cell_name(step.cell), step.digit
    if step.name == "FULL_HOUSE":
        return f"Full house: {cell} is the last empty cell of {unit_text(step.units[0])}, so it is {value}"
    if step.name == "NAKED_SINGLE":
        return NAKED_AFTER_MARKS_TEXT.format(cell=cell, value=value)
    return HIDDEN_SINGLE_TEXT.format(unit=unit_text(step.units[0]), cell=cell, value=value)


def _locked(step: Step) -> str:
    (d,) = step.digits
    first, second = step.units
    return f"{title(step)}: in {unit_text(first)}, {d} can only go in {unit_text(second)}, so {effect(step)}"


def _naked_subset(step: Step) -> str:
    cells = group_cells(step, 0)
    return (f"{title(step)}: in {unit_text(step.units[0])}, {cells_text(cells)} hold only "
            f"{digits_text(step.digits)} between them, so {effect(step)}")


def _hidden_subset(step: Step) -> str:
    cells = group_cells(step, 0)
    return (f"{title(step)}: in {unit_text(step.units[0])}, {digits_text(step.digits)} can only go in "
            f"{cells_text(cells)}, so those cells hold nothing else: {effect(step)}")


def _fish(step: Step) -> str:
    (d,) = step.digits
    n = len(step.units) // 2
    base, cover = step.units[:n], step.units[n:]
    fins = group_cells(step, 1)
    text = f"{title(step)} on {d}: {units_text(base)} hold {d} only in {units_text(cover)}"
    kinds = {UNITS[u].kind for u in cover}
    those = f"those {kinds.pop()}s" if len(kinds) == 1 else "those units"
    if not fins:
        return f"{text}, so {effect(step)} (elsewhere in {those})"
    return (f"{text}, or in the fin{'s' if len(fins) > 1 else ''} {cells_text(fins)}; "
            f"either way {effect(step)}, which see{'s' if len(step.eliminations) == 1 else ''} "
            f"{'every fin' if len(fins) > 1 else 'the fin'}")


def _two_links(step: Step) -> str:
    d = step.digits[0]
    ends = (step.chain[0].cell, step.chain[-1].cell)
    links = and_list(unit_text(u) for u in step.units[:2])
    joined = unit_text(step.units[2])
    return (f"{title(step)} on {d}: {links} each hold {d} twice, joined in {joined} "
            f"({chain_text(step)}), so {cells_text(ends, 'or')} is {d}, and {effect(step)}")


def _xy_wing(step: Step) -> str:
    (pivot,) = group_cells(step, 1)
    pincers = group_cells(step, 0)
    z = step.eliminations[0][1]
    described = and_list(f"{cell_name(c)} ({digits_text(cell_digits(step, c), 'or')})" for c in pincers)
    which = "one of the pincers" if step.name == "XY_WING" else "one of the three"
    return (f"{title(step)}: {cell_name(pivot)} is {digits_text(cell_digits(step, pivot), 'or')}, and with "
            f"{described} {which} is {z}, so {effect(step)}")


def _w_wing(step: Step) -> str:
    a, b = group_cells(step, 0)
    x = step.chain[1].digit
    y = step.chain[0].digit
    ends = group_cells(step, 1)
    return (f"W-wing: {cell_name(a)} and {cell_name(b)} are both {digits_text(step.digits, 'or')}, and "
            f"the {x} of {unit_text(step.units[0])} is in {cells_text(ends, 'or')}, which see one each, "
            f"so one of them is {y}: {effect(step)}")


def _coloring(step: Step) -> str:
    (d,) = step.digits
    a, b = group_cells(step, 0), group_cells(step, 1)
    names_a, names_b = (", ".join(cell_name(c) for c in side) for side in (a, b))
    text = (f"Simple colouring on {d}: its strong links split its cells into two colours, "
            f"{names_a} against {names_b}; one colour is {d}")
    if step.variant == logic.COLOR_WRAP:
        return f"{text}, but two cells of the first see each other, so it is false: {effect(step)}"
    return f"{text}, so a cell seeing both colours is not: {effect(step)}"


def _rectangle(step: Step) -> str:
    corners = group_cells(step, 0)
    x, y = step.digits
    text = f"Unique rectangle: {cells_text(corners)} must not all end up {x} or {y} (two solutions)"
    if step.variant == 1:
        return f"{text}, so {effect(step)}"
    if step.variant == 2:
        z = step.eliminations[0][1]
        return f"{text}, so one of the two corners that can also be {z} is {z}: {effect(step)}"
    if step.variant == 3:
        extra = sorted({d for g, c, d in step.pattern if g == 1})
        others = group_cells(step, 2)
        return (f"{text}, so one of the corners with more holds {digits_text(extra, 'or')}; with "
                f"{cells_text(others)} that makes a naked subset of {unit_text(step.units[0])}: {effect(step)}")
    if step.variant == 6:
        (z,) = {d for _, d in step.eliminations}
        return (f"{text}; in {units_text(step.units)}, {z} can only go in the rectangle, so the two corners "
                f"holding more than the pair are not {z}: {effect(step)}")
    return f"{text}; in {unit_text(step.units[0])} one of the pair can only go in the rectangle, so {effect(step)}"


def _avoidable_rectangle(step: Step) -> str:
    want = {c: d for g, c, d in step.pattern if g == 0}
    corners = sorted(want)
    a, b = step.digits
    placed = [c for c in corners if _is_placed(step, c)]
    swap = f"swapping {a} and {b} in the four would give a second solution (none of them is a given)"
    if step.variant == 1:
        ((c, d),) = step.eliminations
        return (f"Avoidable rectangle: {cells_text(placed)} were filled in as "
                f"{and_list(str(want[k]) for k in placed)}; were {cell_name(c)} {d}, {swap}, so {effect(step)}")
    (x,) = sorted({d for g, _, d in step.pattern if g == 1})
    open_ = group_cells(step, 1)
    described = " nor ".join(f"{cell_name(c)} ({digits_text(cell_digits(step, c), 'or')})" for c in open_)
    return (f"Avoidable rectangle: {cells_text(placed)} were filled in as {and_list(str(want[k]) for k in placed)}; "
            f"were neither {described} {x}, they would be {and_list(str(want[k]) for k in open_)} and {swap}, "
            f"so one of them is {x}: {effect(step)}")


def _is_placed(step: Step, c: int) -> bool:
    """A corner of an avoidable rectangle that holds its value (only the open corners
    have a second group, type 2's extra value, or lose the value, type 1)."""
    if step.variant == 2:
        return not cell_digits(step, c, 1)
    return all(e[0] != c for e in step.eliminations)


def _bug(step: Step) -> str:
    return (f"BUG+1: every empty cell but {cell_name(step.cell)} has two candidates; unless it is "
            f"{step.digit} the puzzle would have two solutions, so {effect(step)}")


def _hidden_rectangle(step: Step) -> str:
    corners = group_cells(step, 0)
    (c, y), = step.eliminations
    x = next(d for d in step.digits if d != y)
    alone = next(k for k in corners if not cell_digits(step, k, 1))
    return (f"Hidden rectangle: {cell_name(alone)} holds only {x} and {y}, and in {units_text(step.units)} {x} can "
            f"only go in the rectangle {cells_text(corners)}; were {cell_name(c)} {y}, the rectangle would be "
            f"{x}, {y}, {x}, {y} round it (two solutions), so {effect(step)}")


def _locked_subset(step: Step) -> str:
    box, line = step.units
    return (f"{title(step)}: {cells_text(group_cells(step, 0))} hold only {digits_text(step.digits)} between them "
            f"and lie in {unit_text(box)} and {unit_text(line)} at once, so {effect(step)}")


def _remote_pair(step: Step) -> str:
    cells = [n.cell for n in step.chain][::2]
    return (f"Remote pair: {cells_text(cells)} hold only {digits_text(step.digits)}, each seeing the next, so "
            f"they alternate and {cell_name(cells[0])} and {cell_name(cells[-1])} hold "
            f"{digits_text(step.digits)} between them: {effect(step)}")


def _turbot(step: Step) -> str:
    d = step.digits[0]
    ends = (step.chain[0].cell, step.chain[-1].cell)
    return (f"Turbot fish on {d}: {and_list(unit_text(u) for u in step.units)} each hold {d} twice, joined by "
            f"a weak link ({chain_text(step)}), so {cells_text(ends, 'or')} is {d}, and {effect(step)}")


def _empty_rectangle(step: Step) -> str:
    (d,) = step.digits
    box, row, column, link = step.units
    (t, _), = step.eliminations
    ends = group_cells(step, 1)
    near = next(c for c in ends if c in UNITS[row].cells or c in UNITS[column].cells)
    far = next(c for c in ends if c != near)
    return (f"Empty rectangle on {d}: in {unit_text(box)}, {d} can only be in {unit_text(row)} or "
            f"{unit_text(column)}, and {unit_text(link)} holds {d} only in {cells_text(ends)}; were "
            f"{cell_name(t)} {d}, {cell_name(far)} would not be, {cell_name(near)} would, and "
            f"{unit_text(box)} would have no place for {d}: {effect(step)}")


def _sue_de_coq(step: Step) -> str:
    box, line = step.units
    core, in_line, in_box = (group_cells(step, g) for g in range(3))
    digits = sorted({d for g, c, d in step.pattern if g == 0})
    return (f"Sue de Coq: where {unit_text(box)} meets {unit_text(line)}, {cells_text(core)} hold "
            f"{digits_text(digits)}; with {cells_text(in_line)} of the {UNITS[line].kind} and {cells_text(in_box)} "
            f"of the box they are as many cells as digits, no digit shared between the two sides, so each "
            f"digit is there once: {effect(step)}")


def _multi_coloring(step: Step) -> str:
    (d,) = step.digits
    text = f"Multi-colouring on {d}: two clusters of its strong links, each in two colours"
    if step.variant == 2:
        gone = sorted(c for c, _ in step.eliminations)
        return (f"{text}; {cells_text(gone)}, of one colour, see{'s' if len(gone) == 1 else ''} both colours of "
                f"the other cluster, one of which is {d}, so that colour is not: {effect(step)}")
    return (f"{text}; a cell of one sees a cell of the other, so those two colours are not both {d}, and one of "
            f"the other two ({cells_text(group_cells(step, 1))}) is: {effect(step)}")


def _chain(step: Step) -> str:
    loop = "Grouped nice loop" if step.name == "GROUPED_NICE_LOOP" else "Nice loop"
    if step.name.endswith("NICE_LOOP") and step.variant == logic.LOOP_DISCONTINUOUS:
        return (f"{loop}: {chain_text(step)}: if {cell_name(step.cell)} were not {step.digit} it "
                f"would have to be, so {effect(step)}")
    if step.name.endswith("NICE_LOOP"):
        return f"Continuous nice loop: {chain_text(step)} closes, so each weak link holds one true end: {effect(step)}"
    return f"{title(step)}: {chain_text(step)}: one end is true, so {effect(step)}"


def _als(step: Step) -> str:
    groups = [group_cells(step, g) for g in range(3)]
    sets = [f"{cells_text(cells)} ({unit_text(u)})" for cells, u in zip(groups, step.units) if cells]
    if step.name == "ALS_XY_CHAIN":
        z = step.eliminations[0][1]
        ends = f"{cells_text(groups[0])} ({unit_text(step.units[0])})", f"{cells_text(groups[1])} ({unit_text(step.units[-1])})"
        middle = and_list(unit_text(u) for u in step.units[1:-1])
        return (f"ALS-XY-chain: {step.variant} almost locked sets, from {ends[0]} through {middle} to {ends[1]}, "
                f"each sharing a restricted common with the next ({digits_text(d for d in step.digits if d != z)}), "
                f"so one end holds {z}: {effect(step)}")
    if step.name == "ALS_XZ":
        x, z = (step.digits[0], step.digits[1]) if step.eliminations[0][1] != step.digits[0] else step.digits[::-1]
        return (f"ALS-XZ: {and_list(sets)} are almost locked and cannot both hold {x}, so one holds "
                f"{z}: {effect(step)}")
    return (f"ALS-XY-wing: {sets[2]} links {sets[0]} and {sets[1]}, so one of the two holds "
            f"{step.eliminations[0][1]}: {effect(step)}")


def _forcing(step: Step) -> str:
    first = step.chain[0] if step.chain else None
    name = title(step)
    if step.variant in (logic.FORCING_CONTRADICTION, logic.FORCING_VERITY) and first is not None:
        premise = f"{cell_name(first.cell)} were {'' if first.on else 'not '}{first.digit}"
        made = implications(step, 0)
        follows = f" then {made}, and" if made else ""
        return f"{name}: if {premise},{follows} a rule would break; so {effect(step)}"
    premises = and_list(f"{cell_name(n.cell)}={n.digit}" if n.on else f"{cell_name(n.cell)}≠{n.digit}"
                        for n in step.chain if _starts_branch(step, n))
    return f"{name}: whichever of {premises} holds, {effect(step)}"


def _starts_branch(step: Step, node) -> bool:
    return next(n for n in step.chain if n.branch == node.branch) is node


def _trial(step: Step) -> str:
    (c, d), = step.eliminations
    guesses = f"a search of {step.variant} guess{'es' if step.variant != 1 else ''}"
    return f"Trial: with {d} in {cell_name(c)} the puzzle has no solution ({guesses} shows it), so {effect(step)}"


_BY_NAME: dict[str, Callable[[Step], str]] = {
    "FULL_HOUSE": _singles, "NAKED_SINGLE": _singles, "HIDDEN_SINGLE": _singles,
    "POINTING": _locked, "CLAIMING": _locked,
    "NAKED_PAIR": _naked_subset, "NAKED_TRIPLE": _naked_subset, "NAKED_QUAD": _naked_subset,
    "HIDDEN_PAIR": _hidden_subset, "HIDDEN_TRIPLE": _hidden_subset, "HIDDEN_QUAD": _hidden_subset,
    "SKYSCRAPER": _two_links, "TWO_STRING_KITE": _two_links,
    "XY_WING": _xy_wing, "XYZ_WING": _xy_wing, "W_WING": _w_wing,
    "SIMPLE_COLORING": _coloring, "UNIQUE_RECTANGLE": _rectangle, "BUG_PLUS_ONE": _bug,
    "X_CHAIN": _chain, "XY_CHAIN": _chain, "AIC": _chain, "NICE_LOOP": _chain,
    "ALS_XZ": _als, "ALS_XY_WING": _als,
    "FORCING_CHAIN": _forcing, "FORCING_NET": _forcing, "NESTED_FORCING": _forcing,
    "TRIAL": _trial,
    "LOCKED_PAIR": _locked_subset, "LOCKED_TRIPLE": _locked_subset, "REMOTE_PAIR": _remote_pair,
    "TURBOT_FISH": _turbot, "EMPTY_RECTANGLE": _empty_rectangle, "HIDDEN_RECTANGLE": _hidden_rectangle,
    "SUE_DE_COQ": _sue_de_coq, "MULTI_COLORING": _multi_coloring,
    "GROUPED_AIC": _chain, "GROUPED_NICE_LOOP": _chain, "ALS_XY_CHAIN": _als,
    "AVOIDABLE_RECTANGLE": _avoidable_rectangle,
}


def reason(step: Step, by_rules: bool = False) -> str:
    """The step's sentence. `by_rules`: the board's values alone leave the
    step's cell its one candidate (a naked single then says so)."""
    if step.name == "NAKED_SINGLE" and by_rules:
        return NAKED_SINGLE_TEXT.format(cell=cell_name(step.cell), value=step.digit)
    if step.name.endswith(("X_WING", "SWORDFISH", "JELLYFISH")):
        return _fish(step)
    return _BY_NAME[step.name](step)
