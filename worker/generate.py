"""New puzzles of a level (sudoku/csrc/generate.h), in the API's form.

The i-th puzzle of a request is made from sudoku.seeds.puzzle_seed(seed, i).
``generate(seed, level, symmetry, keep)``
returns a sudoku.v1.GeneratedPuzzle in protobuf JSON form (without its
index), or raises NoPuzzle when none of the level was found in
MAX_ATTEMPTS grids (kept givens can make a level out of reach).
"""

from __future__ import annotations

from typing import Any

from sudoku import _engine
from worker import logic
from worker.grades import grade_json

# Grids tried for one puzzle: far more than even an extreme level needs on
# average, so running out means the level is out of reach (kept givens).
MAX_ATTEMPTS = 5000


class NoPuzzle(Exception):
    """No puzzle of the level within MAX_ATTEMPTS grids."""


def generate(seed: int, level: int, symmetry: str = "none", keep: str | None = None) -> dict[str, Any]:
    made = _engine.generate(seed, level, symmetry, keep, MAX_ATTEMPTS)
    if made is None:
        name = logic.LEVEL_NAMES[level]
        raise NoPuzzle(f"no {name} puzzle found in {MAX_ATTEMPTS} grids" + (" keeping these givens" if keep else ""))
    puzzle, solution, grade, _ = made
    return {"puzzle": puzzle, "solution": solution, "grade": grade_json(logic.Grade(*grade)), "seed": seed}
