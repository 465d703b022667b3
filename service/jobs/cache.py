"""A short-lived cache of count, hint and grade replies, in Redis.

Generators resubmit the same candidate puzzles and games ask for the same
hint twice; answering those from Redis saves a queue round trip and a
worker's time. Keys are digests of the normalised request (the board after
validation, so '0' and '.' blanks or whitespace do not matter, and the
options that change the answer); a count's board is also relabelled, so a
puzzle whose digits were renamed (which has the same count) finds the same
entry. Values are the reply messages' bytes, written by the worker that
made them (worker/calls.py) and read in the round trip that would queue the
call (sudoku/scripts.py SUBMIT). Only complete counts are cached: an
incomplete one depends on the time limit and the machine's speed.
"""

from __future__ import annotations

import hashlib
import logging

from sudoku import keys
from sudoku.specs import CountSpec, GradeSpec, HintSpec

log = logging.getLogger("sudoku.cache")


_NAMES = "123456789"


def relabelled(board: str) -> str:
    """The board with its digits renamed 1, 2, ... in order of first appearance."""
    names: dict[str, str] = {}
    for cell in board:
        if cell != "." and cell not in names:
            names[cell] = _NAMES[len(names)]
    return board.translate(str.maketrans(names))


def count_key(spec: CountSpec) -> str:
    # A solution is in the digits asked for: only a count without one is relabelled.
    board = spec.board if spec.include_solution else relabelled(spec.board)
    text = f"count|{board}|{spec.limit}|{spec.max_steps}|{int(spec.include_solution)}"
    return keys.cache(hashlib.sha256(text.encode()).hexdigest())


def hint_key(spec: HintSpec) -> str:
    marks = "" if spec.pencil_marks is None else ",".join(map(str, spec.pencil_marks))
    text = f"hint|{spec.givens}|{spec.entries}|{int(spec.include_candidates)}|{marks}"
    return keys.cache(hashlib.sha256(text.encode()).hexdigest())


def grade_key(spec: GradeSpec) -> str:
    return keys.cache(hashlib.sha256(f"grade|{spec.boards}".encode()).hexdigest())


class ResultCache:
    """Whether replies are cached, and for how long (SUDOKU_CACHE_TTL_S):
    the entries themselves are written by the workers with the replies and
    read in the round trip that queues a call."""

    def __init__(self, ttl_seconds: int):
        self.ttl = ttl_seconds

    @property
    def enabled(self) -> bool:
        return self.ttl > 0
