"""Drawing a watched search with rich: the grid, counters and a progress bar.

Givens, the player's entries, the search's tentative values and the cursor
must be told apart in colour and without it. In colour: givens bold white,
entries cyan, search values yellow, the cursor in reverse video. Without
colour (NO_COLOR, TERM=dumb, a pipe): each cell is three characters,
a '>' before the cursor's cell, then the value, then ' ' for a given,
"'" for an entry and '*' for a search value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from client.frames import CellKind, Drawing
from sudoku.grid import cell_name
from sudoku.v1 import sudoku_pb2 as pb

STYLES: dict[CellKind, str] = {"given": "bold bright_white", "entry": "bold cyan", "search": "yellow", "blank": "dim"}
CURSOR_STYLE = "reverse bold"
MARKS: dict[CellKind, str] = {"given": " ", "entry": "'", "search": "*", "blank": " "}
WIDTH = 31  # 9 cells of 3, 4 bars

OUTCOMES = {
    pb.SOLVED: "solved",
    pb.EXHAUSTED: "unsolvable",
    pb.GAVE_UP: "gave up",
    pb.CANCELLED: "cancelled",
}


@dataclass
class Shown:
    """One watched search as the screen shows it."""

    title: str
    drawing: Drawing
    paused: bool = False
    note: str = ""

    @property
    def status(self) -> str:
        if self.drawing.done:
            return OUTCOMES.get(self.drawing.outcome, "over")
        if self.note:
            return self.note
        return "paused" if self.paused else "searching"


def _border(left: str, middle: str, right: str) -> str:
    return left + middle.join(["─" * 9] * 3) + right


def grid(drawing: Drawing, colour: bool) -> Text:
    """The board in a box-drawn grid, cells styled (or marked) by kind."""
    text = Text(no_wrap=True)
    text.append(_border("┌", "┬", "┐") + "\n")
    board = drawing.text
    for row in range(9):
        if row in (3, 6):
            text.append(_border("├", "┼", "┤") + "\n")
        for col in range(9):
            if col % 3 == 0:
                text.append("│")
            cell = row * 9 + col
            kind = drawing.kind(cell)
            value = board[cell]
            at_cursor = cell == drawing.cursor
            if colour:
                style = STYLES[kind] + (" " + CURSOR_STYLE if at_cursor else "")
                text.append(f" {'·' if value == '.' else value} ", style=style)
            else:
                text.append((">" if at_cursor else " ") + value + MARKS[kind])
        text.append("│\n")
    text.append(_border("└", "┴", "┘"))
    return text


def counters(drawing: Drawing) -> Text:
    c = drawing.counters
    total = f"{drawing.total_steps:,}" if drawing.total_steps else "?"
    return Text(f"steps {c.steps:,} / {total}\nplacements {c.placements:,}\nretractions {c.retractions:,}\n"
                f"depth {drawing.depth:,}", no_wrap=True, overflow="ellipsis")


def panel(shown: Shown, colour: bool) -> Panel:
    drawing = shown.drawing
    # A stepped search's length is not known: no bar, rather than one pulsing.
    bar = ProgressBar(total=drawing.total_steps, completed=drawing.counters.steps, width=WIDTH) \
        if drawing.total_steps else Text("")
    body = Group(grid(drawing, colour), counters(drawing), bar)
    cursor = cell_name(drawing.cursor) if drawing.cursor >= 0 else "-"
    return Panel(body, title=f"{shown.title}: {shown.status}", title_align="left",
                 subtitle=f"cursor {cursor}", subtitle_align="right", width=WIDTH + 4, padding=(0, 1))


WATCH_KEYS = "space pause/resume, q quit"


def legend(colour: bool, keys: bool, keys_text: str = WATCH_KEYS) -> Text:
    text = Text()
    if colour:
        for label, style in (("given", STYLES["given"]), ("entry", STYLES["entry"]), ("search", STYLES["search"]),
                             ("cursor", STYLES["search"] + " " + CURSOR_STYLE)):
            text.append(" 5 ", style=style)
            text.append(f" {label}  ")
    else:
        text.append(" 5  given   5' entry   5* search   >5 cursor")
    if keys:
        text.append("   " + keys_text)
    return text


def screen(shown: Sequence[Shown], colour: bool, keys: bool = False, keys_text: str = WATCH_KEYS,
           prompt: str = "") -> RenderableType:
    """Every watched search side by side, with a legend under them (and a
    line for what is being typed, when there is)."""
    row = Table.grid(padding=(0, 2))
    for _ in shown:
        row.add_column()
    row.add_row(*(panel(s, colour) for s in shown))
    parts: list[RenderableType] = [row, legend(colour, keys, keys_text)]
    if prompt:
        parts.append(Text(prompt, no_wrap=True))
    return Group(*parts)
