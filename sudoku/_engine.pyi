"""Typed stubs of the C extension sudoku._engine; the contract is in sudoku.engine."""

from typing import Literal, final

Status = Literal["running", "solved", "exhausted", "gave_up"]

@final
class Stepper:
    def __init__(
        self,
        board: str,
        *,
        strategy: Literal["mrv", "naive"] = "mrv",
        tie_break: Literal["rotate", "first", "random"] = "rotate",
        seed: int = 0,
        max_steps: int | None = None,
        limit: int = 1,
    ) -> None: ...
    def run(self, budget: int, /) -> bytes:
        """Take up to `budget` steps; 2 bytes (cell, value or 0) per step."""
    def skip(self, budget: int, /) -> int:
        """Take up to `budget` steps without events; return how many."""
    def export(self) -> bytes:
        """The state of a running search of limit 1 as a snapshot (stepper.h); ValueError otherwise."""
    @classmethod
    def resume(cls, snapshot: bytes | bytearray | memoryview, /, *, max_steps: int | None = None) -> Stepper:
        """The search a snapshot holds, checked completely; ValueError naming the fault."""
    @property
    def status(self) -> Status: ...
    @property
    def steps(self) -> int: ...
    @property
    def placements(self) -> int: ...
    @property
    def retractions(self) -> int: ...
    @property
    def solutions(self) -> int: ...
    @property
    def cursor(self) -> int:
        """The cell the next step changes, or -1 when the search is over."""
    @property
    def board(self) -> str: ...
    @property
    def solution(self) -> str | None: ...
    @property
    def conflicts(self) -> list[int]: ...

def parse_board(board: str, /) -> bytes:
    """81 bytes, 0 for a blank, 1-9; ValueError/TypeError on a bad board."""

def solve(board: str, /) -> str | None:
    """The first solution, or None when there is none."""

def count(board: str, limit: int = 2, max_steps: int | None = None,
          stop: bytearray | None = None) -> tuple[int, bool]:
    """(solutions found up to `limit`, complete). `max_steps` caps GUESSES
    (branching decisions of the fast path), not stepper steps; >= 1 or None.
    Another thread setting stop[0] to non-zero ends the count soon after, as
    the cap would."""

def count_many(
    boards: str | bytes, limit: int = 2, max_steps: int | None = None, solutions: bool = False
) -> tuple[list[int], bytes, str | None]:
    """count() of each 81-cell board of `boards` (concatenated, no whitespace):
    (counts, complete flags as bytes of 0/1, first solutions as one str or None)."""

def pack_boards(boards: list[str], /) -> bytes | None:
    """The boards as one bytes, 81 a board, if all are 81 of '1'-'9', '.', '0'; else None."""

def bad_boards(packed: bytes, /) -> list[int]:
    """Positions of the 81-byte boards of `packed` with a byte not '1'-'9', '.', '0'."""

# The human solver (logic.h); worker.logic names these tuples.
TECHNIQUES: tuple[str, ...]  # technique names by number (sudoku.v1.Step.Technique)
LEVELS: tuple[int, ...]  # level 1-5 by technique number (0 for NONE)
WEIGHTS: tuple[int, ...]  # score of one step by technique number

# A step: (technique, variant, cell or -1, digit or 0,
#          eliminations ((cell, digit), ...), pattern ((group, cell, digit), ...),
#          units (0-8 rows, 9-17 columns, 18-26 boxes), digits,
#          chain ((cell, digit, strong, on, branch), ...))
RawStep = tuple[
    int, int, int, int,
    tuple[tuple[int, int], ...], tuple[tuple[int, int, int], ...],
    tuple[int, ...], tuple[int, ...], tuple[tuple[int, int, int, int, int], ...],
]
# A grade: (solutions 0/1/2 or -1 unknown, solved, hardest technique, steps, score,
#           steps per technique)
RawGrade = tuple[int, bool, int, int, int, tuple[int, ...]]

def logic_step(
    board: str,
    pencil_marks: list[int] | None = None,
    *,
    unique: bool = False,
    max_level: int = 5,
    givens: str | None = None,
) -> RawStep | None:
    """The easiest logical step, or None when there is none."""

def logic_path(
    board: str,
    pencil_marks: list[int] | None = None,
    *,
    unique: bool = False,
    max_level: int = 5,
    givens: str | None = None,
    until_placement: bool = False,
) -> list[RawStep]:
    """Every logical step, each applied, until none is found (or the first placement)."""

def grade(board: str, /, *, max_level: int = 5, max_guesses: int = 1_000_000) -> RawGrade:
    """Count to 2 within max_guesses, then solve by logical steps up to max_level."""

def grade_many(boards: str | bytes, /) -> list[RawGrade]:
    """grade() of each 81-cell board of `boards`, concatenated."""

def generate(
    seed: int,
    level: int,
    symmetry: Literal["none", "rotational", "mirror"] = "none",
    keep: str | None = None,
    max_attempts: int = 1000,
) -> tuple[str, str, RawGrade, int] | None:
    """A new puzzle graded `level` (1-5): (puzzle, solution, grade, grids tried), or None."""
