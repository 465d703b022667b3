"""The Sudoku search engine: an observable stepper and an unwatched fast path.

Everything here is implemented in C (sudoku/csrc, contract in stepper.h and
fastpath.h); this module is the import point with the documented contract.

Boards
    A board is a str of 81 cells in reading order: '1'-'9' for a value, '.' or
    '0' for a blank. ASCII whitespace is ignored, so nine lines of nine work.
    `parse_board` is the one validator: anything else raises ValueError naming
    the first bad character's cell ("cell r3c7: 'x' is not 1-9, '.' or '0'"),
    then a wrong count ("expected 81 cells, got 80"); a non-str raises
    TypeError. Givens that conflict are not an error: the search ends
    "exhausted" at step 0 and `Stepper.conflicts` lists the cells.

Steps
    `Stepper` is a depth-first search over an explicit stack, resumable after
    any step. A step is one placement (a value goes onto a blank cell) or one
    retraction (it comes back off); values are tried ascending, and moving a
    cell from one value to the next is 2 steps. `run(budget)` returns 2 bytes
    per step: the cell (0-80), then the value (1-9) or 0 for a retraction.
    `skip(budget)` takes the same steps without events. Slicing never changes
    the search, and the same inputs and options always give the same steps.

Snapshots
    `Stepper.export()` writes a running search (limit 1) as at most 224
    bytes; `Stepper.resume(snapshot, max_steps=None)` goes on from them,
    taking exactly the steps the original would have taken, in any process.
    The bytes are distrusted: resume rebuilds the state from the search's
    path, checking every frame against what the strategy decides there, and
    raises ValueError naming the fault ("snapshot of 70 bytes, frame 3: the
    value is not a candidate of the cell"). The format and what is checked
    (and what cannot be: the step count above its path's, the random
    tie-break's generator) are in stepper.h, SNAPSHOTS.

Strategies (which blank cell to decide next)
    "naive": the first blank in reading order (701 steps on the empty board).
    "mrv": a blank with the fewest candidates, a true minimum (a cell with none
    is a dead end: the next step is a retraction). Ties, by `tie_break`:
    "first" the lowest index; "rotate" the fewest blanks in the cell's units,
    the unit kinds taken in the order (d, d+1, d+2) mod 3 over (row, column,
    box) with d the search depth, then the lowest index; "random" uniform from
    splitmix64 seeded with `seed` (exact algorithm in stepper.h, identical on
    every platform).

Outcomes (`Stepper.status`)
    "running"; "solved" once `limit` solutions were found, or the search
    finished having found at least one; "exhausted" when it finished with
    none (a real answer: no solution); "gave_up" when `max_steps` steps were
    taken first (exactly that many). Past a solution with `limit` > 1, the next
    step retracts the last placement and the search goes on.

Fast path
    `solve(board)` returns the first solution or None; `count(board, limit=2,
    max_steps=None)` returns (found, complete). Neither records events. Their
    `max_steps` caps guesses (branching decisions), not stepper steps.
    `count_many(boards, ...)` counts many boards given as one str (or bytes)
    of 81-cell boards, in one call: for generators, whose boards take
    microseconds each, a Python call per board would be a large part of
    the time (bench/count.py).
    `pack_boards(list)` makes that bytes from a list of clean boards in one
    pass, or returns None when one of them is not exactly 81 cells;
    `bad_boards(bytes)` lists the boards of such bytes that are not clean.

Threads
    C calls release the GIL (stepper slices of 1024 steps or more). Any number
    of Steppers may run in parallel; one Stepper used by two threads at once
    raises RuntimeError in the second.
"""

from sudoku._engine import Stepper, bad_boards, count, count_many, pack_boards, parse_board, solve

__all__ = ["Stepper", "bad_boards", "count", "count_many", "pack_boards", "parse_board", "solve"]
