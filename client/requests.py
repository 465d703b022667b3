"""Building requests from plain Python values, and the names of enums.

Strategies and tie-breaks are named as on the command line ("mrv",
"naive"; "rotate", "first", "random"); None leaves the server's default.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sudoku.names import STRATEGIES, TIE_BREAKS
from sudoku.v1 import sudoku_pb2 as pb


def new_request_id() -> str:
    """A fresh id for one solve call; its retries reuse it (see SolveRequest)."""
    return f"py-{uuid.uuid4().hex}"


def _named(field: str, table: dict, name: str | None) -> int:
    """The enum value for `name`; None means the server's default (0)."""
    if name is None:
        return 0
    try:
        return table[name]
    except KeyError:
        raise ValueError(f"{field}: {name!r} is not one of {', '.join(table)}") from None


def strategy(name: str | None) -> pb.Strategy:
    return _named("strategy", STRATEGIES, name)


def tie_break(name: str | None) -> pb.TieBreak:
    return _named("tie_break", TIE_BREAKS, name)


def solve_request(
    board: str,
    *,
    entries: str = "",
    strategy_name: str | None = None,
    tie_break_name: str | None = None,
    seed: int = 0,
    max_steps: int = 0,
    time_limit_ms: int = 0,
    request_id: str | None = None,
    pacing: pb.Pacing | None = None,
    cancel_on_disconnect: bool = False,
) -> pb.SolveRequest:
    """A SolveRequest; with `pacing` it asks for the search (VIEW_SEARCH)."""
    return pb.SolveRequest(
        board=board,
        entries=entries,
        strategy=strategy(strategy_name),
        tie_break=tie_break(tie_break_name),
        seed=seed,
        max_steps=max_steps,
        time_limit_ms=time_limit_ms,
        request_id=request_id or new_request_id(),
        view=pb.VIEW_SEARCH if pacing is not None else pb.VIEW_FINAL,
        pacing=pacing,
        cancel_on_disconnect=cancel_on_disconnect,
    )


def pacing(
    duration: float | None = None, fps: int = 0, steps_per_frame: int = 0, unpaced: bool = False, runs: bool = False
) -> pb.Pacing:
    """Pacing by duration in seconds (None: the server's default) or steps per frame."""
    duration_ms = 0 if duration is None else max(1, round(duration * 1000))
    return pb.Pacing(duration_ms=duration_ms, fps=fps, steps_per_frame=steps_per_frame, unpaced=unpaced, runs=runs)


def hint_request(givens: str, entries: str = "", include_candidates: bool = False,
                 pencil_marks: Sequence[int] | None = None) -> pb.HintRequest:
    return pb.HintRequest(givens=givens, entries=entries, include_candidates=include_candidates,
                          pencil_marks=pencil_marks or [])


def explain_request(board: str, pencil_marks: Sequence[int] | None = None) -> pb.ExplainRequest:
    return pb.ExplainRequest(board=board, pencil_marks=pencil_marks or [])


def count_request(
    board: str, *, limit: int = 2, max_steps: int = 0, time_limit_ms: int = 0, include_solution: bool = False
) -> pb.CountRequest:
    return pb.CountRequest(
        board=board, limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms, include_solution=include_solution
    )


# Boards per CountMany message: enough that a message's own cost is small
# against its boards' (bench/count.py), and below the server's max_chunk.
MANY_CHUNK = 16_384


def count_many_request(boards: list[str], *, limit: int, max_steps: int, time_limit_ms: int,
                       include_solution: bool) -> pb.CountManyRequest:
    """Boards of 81 ASCII characters go as `packed_boards` (a field per board
    costs both sides more than the board); others, e.g. nine lines of nine,
    as `boards`. Either way the server checks each board."""
    request = pb.CountManyRequest(limit=limit, max_steps=max_steps, time_limit_ms=time_limit_ms,
                                  include_solution=include_solution)
    joined = "".join(boards)
    if len(joined) == 81 * len(boards) and joined.isascii():
        request.packed_boards = joined.encode("ascii")
    else:
        request.boards.extend(boards)
    return request


LEVELS = {"easy": pb.EASY, "medium": pb.MEDIUM, "hard": pb.HARD, "expert": pb.EXPERT, "extreme": pb.EXTREME}
SYMMETRIES = {"none": pb.SYMMETRY_NONE, "rotational": pb.SYMMETRY_ROTATIONAL, "mirror": pb.SYMMETRY_MIRROR}


def generate_request(level: str | int, count: int, *, seed: int | None = None, symmetry: str = "none",
                     givens: str = "") -> pb.GenerateRequest:
    """A GenerateRequest; ValueError for an unknown level or symmetry name."""
    if isinstance(level, str):
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
        level = LEVELS[level]
    if symmetry not in SYMMETRIES:
        raise ValueError(f"unknown symmetry {symmetry!r}: expected one of {', '.join(SYMMETRIES)}")
    request = pb.GenerateRequest(level=level, count=count, symmetry=SYMMETRIES[symmetry], givens=givens)
    if seed is not None:
        request.seed = seed
    return request
