"""Grades in the API's form: a sudoku.v1.GradeReply per puzzle.

``grade_boards(boards)`` grades a str of 81-char boards in one C call
(worker.logic.grade_many) and returns, per board, the GradeReply in
protobuf JSON form (proto field names, enums by name, zeros left out), which
``pb.GradeReply(**reply)`` makes the message. ``grade_board(board,
max_level, max_guesses)`` grades one within those bounds (the cheap lane's,
sudoku/lanes.py), or raises NeedsHarder where they do not reach: the same
grade as grade_boards' when they do, since the ladder takes the easiest
step at every state, and one that never needed a harder one took none.
"""

from __future__ import annotations

from typing import Any

from worker import logic
from worker.hints import NeedsHarder

VERDICTS = {0: "NONE", 1: "UNIQUE", 2: "MULTIPLE", -1: "UNKNOWN"}


def grade_json(g: logic.Grade) -> dict[str, Any]:
    out: dict[str, Any] = {"verdict": VERDICTS[g.solutions]}
    if g.solutions == 1 and g.solved and g.level:
        out["level"] = logic.LEVEL_NAMES[g.level].upper()
        out["hodoku_level"] = logic.LEVEL_NAMES[g.hodoku_level].upper()
    if g.score:
        out["score"] = g.score
    if g.hardest:
        out["hardest"] = logic.TECHNIQUES[g.hardest]
    used = [{"technique": logic.TECHNIQUES[t], "count": n} for t, n in enumerate(g.counts) if n]
    if used:
        out["techniques"] = used
    if g.steps:
        out["steps"] = g.steps
    if g.solved:
        out["solved"] = True
    return out


def grade_boards(boards: str) -> list[dict[str, Any]]:
    return [grade_json(g) for g in logic.grade_many(boards)]


def grade_board(board: str, max_level: int = logic.MAX_LEVEL, max_guesses: int | None = None) -> dict[str, Any]:
    """One board's GradeReply in protobuf JSON form, within `max_level` and
    `max_guesses` (for the count), or NeedsHarder (see the module docstring)."""
    grade = logic.grade(board, max_level, max_guesses)
    bounded = max_level < logic.MAX_LEVEL or max_guesses is not None
    if bounded and (grade.solutions < 0 or grade.solutions and not grade.solved):
        raise NeedsHarder()
    return grade_json(grade)
