"""New puzzles of a level (worker/csrc/generate.h), in the API's form.

``puzzle_seed(seed, i)`` is the seed of the i-th puzzle of a request:
the request's seed itself for the first, so a puzzle's own seed, asked for
with count 1, makes it again. ``generate(seed, level, symmetry, keep)``
returns a sudoku.v1.GeneratedPuzzle in protobuf JSON form (without its
index), or raises NoPuzzle when none of the level was found in
MAX_ATTEMPTS grids (kept givens can make a level out of reach).
"""

from __future__ import annotations

from typing import Any

from worker import _engine, logic
from worker.grades import grade_json

MASK64 = (1 << 64) - 1
# Grids tried for one puzzle: far more than even an extreme level needs on
# average, so running out means the level is out of reach (kept givens).
MAX_ATTEMPTS = 5000


class NoPuzzle(Exception):
    """No puzzle of the level within MAX_ATTEMPTS grids."""


def puzzle_seed(seed: int, index: int) -> int:
    """The seed of puzzle `index` (from 0) of a request with `seed`: splitmix64's
    finaliser of seed + index for index > 0, so neighbours are unrelated."""
    if index == 0:
        return seed
    z = (seed + index * 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def generate(seed: int, level: int, symmetry: str = "none", keep: str | None = None) -> dict[str, Any]:
    made = _engine.generate(seed, level, symmetry, keep, MAX_ATTEMPTS)
    if made is None:
        name = logic.LEVEL_NAMES[level]
        raise NoPuzzle(f"no {name} puzzle found in {MAX_ATTEMPTS} grids" + (" keeping these givens" if keep else ""))
    puzzle, solution, grade, _ = made
    return {"puzzle": puzzle, "solution": solution, "grade": grade_json(logic.Grade(*grade)), "seed": seed}
