"""The stepper again, in plain Python: the oracle the C one is tested against.

Same constructor, `run`, `skip`, `export`, `resume` and state attributes as
`sudoku.engine.Stepper`, and the same event sequence and counters, step for
step, the same snapshot bytes and the same verdict (and message) on any
snapshot (the contract is in sudoku/csrc/stepper.h and the sudoku.engine
docstring). It is written to be
read next to that contract, not to be fast: candidates are recomputed from
the units' used values whenever they are needed, where the C keeps them up to
date incrementally. The two share only the board parser, `parse_board`, the
single implementation of board validation.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import SupportsIndex

from sudoku import names
from sudoku._engine import parse_board

STRATEGIES = tuple(names.STRATEGIES)
TIE_BREAKS = tuple(names.TIE_BREAKS)
VALUES = range(1, 10)
ALL_VALUES = 0x1FF  # bit v-1 set means value v

ROW, COLUMN, BOX = 0, 1, 2
MASK64 = (1 << 64) - 1

# Snapshots (stepper.h, SNAPSHOTS): the C enums' numbers, the header's size
# and what stepper_snapshot_error says, in the order of the codes.
SNAPSHOT_VERSION = 1
SNAPSHOT_HEADER = 62
STRATEGY_CODES = {"naive": 0, "mrv": 1}
TIE_BREAK_CODES = {"first": 0, "rotate": 1, "random": 2}
SNAPSHOT_ERRORS = {
    "size": "its size is not 62 bytes plus 2 a frame (truncated, or bytes after its end)",
    "version": "it is not a version 1 snapshot",
    "options": "its strategy or tie-break is not one the engine knows",
    "cells": "a cell holds a value above 9, or the last byte's high nibble is not 0",
    "conflict": "its fixed cells break a rule (such a search ends at step 0)",
    "depth": "its depth is not 1-81",
    "top": "its top flag is not 0 or 1",
    "cell": "the cell is not one the search decides there",
    "value": "the value is not a candidate of the cell",
    "untried": "no value is left to try in the top frame (the search pops such a frame)",
    "solved": "its values fill the board: a solved search, not a running one",
    "steps": "its step count is below the steps of its own path, or of the wrong parity",
}


class BadSnapshot(ValueError):
    """A snapshot the search could not rest in; the message names the fault."""

    def __init__(self, size: int, fault: str, frame: int | None = None) -> None:
        where = f", frame {frame}" if frame is not None else ""
        super().__init__(f"snapshot of {size} bytes{where}: {SNAPSHOT_ERRORS[fault]}")


def units_of(cell: int) -> tuple[int, int, int]:
    """The (row, column, box) indices of a cell."""
    row, column = divmod(cell, 9)
    return row, column, (row // 3) * 3 + column // 3


UNITS = [units_of(cell) for cell in range(81)]
UNIT_CELLS = [[[cell for cell in range(81) if UNITS[cell][kind] == unit]
               for unit in range(9)] for kind in (ROW, COLUMN, BOX)]
PEERS = [sorted({p for kind in (ROW, COLUMN, BOX)
                 for p in UNIT_CELLS[kind][UNITS[cell][kind]]} - {cell})
         for cell in range(81)]


class SplitMix64:
    """The tie-break generator: splitmix64, bounded draws by rejection."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform in range(n): draws under 2**64 mod n are rejected."""
        threshold = (1 << 64) % n
        while True:
            x = self.next()
            if x >= threshold:
                return x % n


@dataclass
class Frame:
    """A decided cell on the current path."""

    cell: int
    candidates: list[int]  # ascending, as when the frame was pushed
    tried: int = 0  # how many of them have been placed so far
    value: int = 0  # on the board now, or 0


def grid_text(values: list[int]) -> str:
    """81 values (0 blank) as a board string."""
    return "".join(str(v) if v else "." for v in values)


def find_conflicts(cells: bytes) -> list[int]:
    """Cells whose given value repeats in one of their units, ascending."""
    return [cell for cell in range(81)
            if cells[cell] and any(cells[p] == cells[cell] for p in PEERS[cell])]


def check_count(name: str, value: object, minimum: int) -> int:
    if not isinstance(value, SupportsIndex):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    value = operator.index(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


class Stepper:
    """A resumable depth-first search; see sudoku.engine for the contract."""

    def __init__(self, board: str, *, strategy: str = "mrv", tie_break: str = "rotate",
                 seed: int = 0, max_steps: int | None = None, limit: int = 1) -> None:
        cells = parse_board(board)
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}: expected 'mrv' or 'naive'")
        if tie_break not in TIE_BREAKS:
            raise ValueError(f"unknown tie_break {tie_break!r}: "
                             "expected 'rotate', 'first' or 'random'")
        if not 0 <= check_count("seed", seed, 0) <= MASK64:
            raise ValueError("seed must be in 0..2**64-1")
        self._strategy, self._tie_break = strategy, tie_break
        self._rng = SplitMix64(seed)
        self._max_steps = None if max_steps is None else check_count("max_steps", max_steps, 0)
        self._limit = check_count("limit", limit, 1)
        self._board = list(cells)
        self._used = [[0] * 9 for _ in (ROW, COLUMN, BOX)]
        self._stack: list[Frame] = []
        self._status = "running"
        self._steps = self._placements = self._retractions = self._solutions = 0
        self._solution: str | None = None
        self._conflicts = find_conflicts(cells)
        if self._conflicts:
            self._status = "exhausted"
            return
        for cell in range(81):
            if self._board[cell]:
                self._mark(cell, self._board[cell])
        self._descend()
        self._check_cap()

    # ---- the board and its units ----

    def _mark(self, cell: int, value: int) -> None:
        for kind, unit in enumerate(UNITS[cell]):
            self._used[kind][unit] |= 1 << (value - 1)

    def _unmark(self, cell: int, value: int) -> None:
        for kind, unit in enumerate(UNITS[cell]):
            self._used[kind][unit] &= ~(1 << (value - 1))

    def _candidate_mask(self, cell: int) -> int:
        """Bit v-1 set when value v is legal at the cell."""
        row, column, box = UNITS[cell]
        used = self._used
        return ALL_VALUES & ~(used[ROW][row] | used[COLUMN][column] | used[BOX][box])

    def _candidates(self, cell: int) -> list[int]:
        mask = self._candidate_mask(cell)
        return [v for v in VALUES if mask & (1 << (v - 1))]

    def _blanks_in(self, kind: int, unit: int) -> int:
        return sum(1 for cell in UNIT_CELLS[kind][unit] if not self._board[cell])

    # ---- choosing the next cell ----

    def _choose(self) -> int | None:
        """The next cell to decide, or None when the board is full."""
        blanks = [cell for cell in range(81) if not self._board[cell]]
        if not blanks:
            return None
        if self._strategy == "naive":
            return blanks[0]
        sizes = {cell: self._candidate_mask(cell).bit_count() for cell in blanks}
        fewest = min(sizes.values())
        tied = [cell for cell in blanks if sizes[cell] == fewest]
        # A cell with no candidate is a dead end taking no step: no tie-break,
        # and above all no random draw.
        if fewest == 0 or len(tied) == 1 or self._tie_break == "first":
            return tied[0]
        if self._tie_break == "random":
            return tied[self._rng.below(len(tied))]
        return min(tied, key=self._rotate_ranker())

    def _rotate_ranker(self) -> Callable[[int], tuple[int, ...]]:
        """Sort key of the rotate tie-break: at depth d, the blanks in the
        cell's units of kinds (d, d+1, d+2) mod 3, then the cell index."""
        depth = len(self._stack)
        kinds = [(depth + k) % 3 for k in range(3)]
        blanks = [[self._blanks_in(kind, unit) for unit in range(9)] for kind in kinds]

        def rank(cell: int) -> tuple[int, ...]:
            units = UNITS[cell]
            return (*(blanks[k][units[kind]] for k, kind in enumerate(kinds)), cell)

        return rank

    # ---- the search ----

    def _descend(self) -> None:
        """After a placement (or at the start): push the next cell to decide."""
        cell = self._choose()
        if cell is None:
            self._found_solution()
        elif candidates := self._candidates(cell):
            self._stack.append(Frame(cell, candidates))
        elif not self._stack:
            self._finish()  # a dead end with nothing to retract
        # else: a dead end, not pushed; the next step retracts the top frame.

    def _found_solution(self) -> None:
        self._solutions += 1
        if self._solution is None:
            self._solution = self.board
        if self._solutions >= self._limit:
            self._status = "solved"
        elif not self._stack:
            self._finish()  # a full board was given: nothing to retract

    def _finish(self) -> None:
        self._status = "solved" if self._solutions else "exhausted"

    def _check_cap(self) -> None:
        if self._status == "running" and self._steps == self._max_steps:
            self._status = "gave_up"

    def _step(self) -> tuple[int, int]:
        frame = self._stack[-1]
        self._steps += 1
        if frame.value:
            event = (frame.cell, 0)
            self._unmark(frame.cell, frame.value)
            self._board[frame.cell] = frame.value = 0
            self._retractions += 1
            if frame.tried == len(frame.candidates):
                self._stack.pop()
                if not self._stack:
                    self._finish()
        else:
            frame.value = frame.candidates[frame.tried]
            frame.tried += 1
            event = (frame.cell, frame.value)
            self._board[frame.cell] = frame.value
            self._mark(frame.cell, frame.value)
            self._placements += 1
            self._descend()
        self._check_cap()
        return event

    def run(self, budget: int, /) -> bytes:
        """Take up to `budget` steps; return 2 bytes (cell, value) per step."""
        budget = check_count("budget", budget, 0)
        events = bytearray()
        while len(events) < 2 * budget and self._status == "running":
            events.extend(self._step())
        return bytes(events)

    def skip(self, budget: int, /) -> int:
        """Take up to `budget` steps without keeping events; return how many."""
        budget = check_count("budget", budget, 0)
        taken = 0
        while taken < budget and self._status == "running":
            self._step()
            taken += 1
        return taken

    # ---- snapshots ----

    def export(self) -> bytes:
        """The snapshot of this search (stepper.h, SNAPSHOTS), from its own state."""
        if self._status != "running" or self._limit != 1:
            raise ValueError("only a running search of limit 1 has a snapshot")
        fixed = list(self._board) + [0]
        for frame in self._stack:
            if frame.value:
                fixed[frame.cell] = 0
        out = bytearray([SNAPSHOT_VERSION, STRATEGY_CODES[self._strategy], TIE_BREAK_CODES[self._tie_break]])
        out += self._rng.state.to_bytes(8, "little") + self._steps.to_bytes(8, "little")
        out += bytes(fixed[2 * i] | fixed[2 * i + 1] << 4 for i in range(41))
        out += bytes([len(self._stack), 1 if self._stack[-1].value else 0])
        for frame in self._stack:
            last_tried = frame.candidates[frame.tried - 1] if frame.tried else 0
            out += bytes([frame.cell, frame.value or last_tried])
        return bytes(out)

    @classmethod
    def resume(cls, snapshot: bytes, /, *, max_steps: int | None = None) -> Stepper:
        """The search a snapshot holds, read as stepper.h says, check by check."""
        data = bytes(snapshot)
        size = len(data)
        if size < SNAPSHOT_HEADER:
            raise BadSnapshot(size, "size")
        if data[0] != SNAPSHOT_VERSION:
            raise BadSnapshot(size, "version")
        depth = data[60]
        if not 1 <= depth <= 81:
            raise BadSnapshot(size, "depth")
        if size != SNAPSHOT_HEADER + 2 * depth:
            raise BadSnapshot(size, "size")
        if data[1] > 1 or data[2] > 2:
            raise BadSnapshot(size, "options")
        cells = [nibble for byte in data[19:60] for nibble in (byte & 15, byte >> 4)]
        if max(cells) > 9 or cells.pop() != 0:
            raise BadSnapshot(size, "cells")
        if find_conflicts(bytes(cells)):
            raise BadSnapshot(size, "conflict")
        if data[61] > 1:
            raise BadSnapshot(size, "top")
        strategy = next(name for name, code in STRATEGY_CODES.items() if code == data[1])
        tie_break = next(name for name, code in TIE_BREAK_CODES.items() if code == data[2])
        stepper = cls(grid_text(cells), strategy=strategy, tie_break=tie_break, max_steps=max_steps)
        stepper._rng.state = int.from_bytes(data[3:11], "little")
        stepper._solutions, stepper._solution = 0, None
        path = data[SNAPSHOT_HEADER:]
        path_steps = 0
        stepper._stack.clear()
        for i in range(depth):
            cell, value = path[2 * i], path[2 * i + 1]
            on = i < depth - 1 or data[61] == 1
            if cell > 80 or not stepper._could_decide(cell):
                raise BadSnapshot(size, "cell", i)
            candidates = stepper._candidates(cell)
            if value > 9 or (on and not value) or (value and value not in candidates):
                raise BadSnapshot(size, "value", i)
            tried = sum(1 for v in candidates if v <= value)
            if not on and tried == len(candidates):
                raise BadSnapshot(size, "untried", i)
            stepper._stack.append(Frame(cell, candidates, tried, value if on else 0))
            if on:
                stepper._board[cell] = value
                stepper._mark(cell, value)
            path_steps += 2 * tried - (1 if on else 0)
        if all(stepper._board):
            raise BadSnapshot(size, "solved")
        steps = int.from_bytes(data[11:19], "little")
        on_board = depth - 1 + data[61]
        if steps < path_steps or (steps - on_board) % 2:
            raise BadSnapshot(size, "steps")
        stepper._status = "running"
        stepper._steps = steps
        stepper._retractions = (steps - on_board) // 2
        stepper._placements = on_board + stepper._retractions
        stepper._check_cap()
        if stepper._max_steps is not None and steps > stepper._max_steps:
            stepper._status = "gave_up"
        return stepper

    def _could_decide(self, cell: int) -> bool:
        """Whether the search, now, could push a frame on `cell` (under the
        random tie-break: any cell tied for the fewest candidates, since the
        draw is not replayed). Draws no random number."""
        blanks = [c for c in range(81) if not self._board[c]]
        if self._strategy == "naive":
            return bool(blanks) and blanks[0] == cell and bool(self._candidates(cell))
        sizes = {c: self._candidate_mask(c).bit_count() for c in blanks}
        if not sizes or min(sizes.values()) == 0:
            return False
        if self._tie_break == "random":
            return sizes.get(cell) == min(sizes.values())
        return self._choose() == cell

    # ---- read-only state ----

    @property
    def status(self) -> str:
        return self._status

    @property
    def steps(self) -> int:
        return self._steps

    @property
    def placements(self) -> int:
        return self._placements

    @property
    def retractions(self) -> int:
        return self._retractions

    @property
    def solutions(self) -> int:
        return self._solutions

    @property
    def cursor(self) -> int:
        if self._status != "running":
            return -1
        return self._stack[-1].cell

    @property
    def board(self) -> str:
        return "".join(str(v) if v else "." for v in self._board)

    @property
    def solution(self) -> str | None:
        return self._solution

    @property
    def conflicts(self) -> list[int]:
        return list(self._conflicts)
