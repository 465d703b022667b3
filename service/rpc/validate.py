"""Turning requests into job specs, or into INVALID_ARGUMENT naming the field.

Nothing is queued until a request passed through here. Defaults and
ceilings are applied here too, and every change made to what the client
asked is written down (`adjustments`) so the first frame can report it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import grpc

from service.rpc.decoding import Undecodable
from sudoku import engine, grid, names
from sudoku.config import Settings
from sudoku.errors import CallError
from sudoku.specs import CountSpec, ExplainSpec, HintSpec, SolveSpec
from sudoku.v1 import sudoku_pb2 as pb

JOB_ID = re.compile(r"[0-9a-f]{32}")
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

# A request's enums by the names a job's spec holds (UNSPECIFIED: the default).
STRATEGIES = names.by_value(names.STRATEGIES, "mrv")
TIE_BREAKS = names.by_value(names.TIE_BREAKS, "rotate")
VIEWS = names.by_value(names.VIEWS, "final")


class Invalid(CallError, ValueError):
    """A request is wrong; str() is the message for the client, `code` its
    status: INVALID_ARGUMENT, or RESOURCE_EXHAUSTED for a request over its
    RPC's size bound (service/rpc/decoding.py), which is refused unread."""

    def __init__(self, message: str, code: grpc.StatusCode = grpc.StatusCode.INVALID_ARGUMENT):
        super().__init__(message)
        self.code = code


def parsed(request):
    """The request, unless it is an Undecodable one: then its Invalid."""
    if isinstance(request, Undecodable):
        raise Invalid(request.message, request.code)
    return request


def board(text: str, field: str) -> str:
    """The board normalised to 81 chars of '1'-'9' and '.'."""
    try:
        return grid.to_string(engine.parse_board(text))
    except (ValueError, TypeError) as exc:
        raise Invalid(f"{field}: {exc}") from None


def entries(givens: str, text: str) -> str:
    """The player's entries, without the givens' cells (a whole grid may
    repeat its givens there, but hold nothing else)."""
    if not text:
        return grid.EMPTY
    values = board(text, "entries")
    try:
        kept = grid.check_entries(bytes(grid.to_values(givens)), bytes(grid.to_values(values)))
    except ValueError as exc:
        raise Invalid(str(exc)) from None
    return grid.to_string(kept)


def enum(value: int, names: dict[int, str], field: str, enum_type) -> str:
    if value not in names:
        accepted = ", ".join(enum_type.Name(v) for v in names if v)
        raise Invalid(f"{field}: unknown value {value}; use one of {accepted}")
    return names[value]


def capped(value: int, ceiling: int, field: str, adjustments: list[str], default: int | None = None) -> int:
    """0 means `default` (the ceiling unless given); more than the ceiling is
    clamped to it (and said in `adjustments`); negative is an error."""
    if value < 0:
        raise Invalid(f"{field}: must not be negative, got {value}")
    if value == 0:
        return ceiling if default is None else default
    if value > ceiling:
        adjustments.append(f"{field} clamped from {value} to {ceiling}")
        return ceiling
    return value


def job_id(text: str) -> str:
    if not JOB_ID.fullmatch(text):
        raise Invalid(f"job_id: {_short(text)} is not a job id (32 lowercase hex digits, as in the first frame of Solve)")
    return text


def request_id(text: str) -> str:
    if text and not REQUEST_ID.fullmatch(text):
        raise Invalid(f"request_id: {_short(text)} must be 1-128 characters of A-Z a-z 0-9 . _ : -")
    return text


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


def solve_spec(request: pb.SolveRequest, settings: Settings, new_job_id: str) -> tuple[SolveSpec, list[str]]:
    adjustments: list[str] = []
    givens = board(request.board, "board")
    spec = SolveSpec(
        job_id=new_job_id,
        givens=givens,
        entries=entries(givens, request.entries),
        strategy=enum(request.strategy, STRATEGIES, "strategy", pb.Strategy),
        tie_break=enum(request.tie_break, TIE_BREAKS, "tie_break", pb.TieBreak),
        seed=request.seed,
        max_steps=capped(request.max_steps, settings.max_steps, "max_steps", adjustments),
        time_limit_ms=capped(request.time_limit_ms, settings.max_time_ms, "time_limit_ms", adjustments),
        view=enum(request.view, VIEWS, "view", pb.View),
        keyframe_every=settings.keyframe_every,
        stream_maxlen=settings.stream_maxlen,
        stream_ttl_s=settings.stream_ttl_s,
        unwatched_ttl_s=settings.unwatched_ttl_s,
    )
    request_id(request.request_id)
    if spec.view == "search":
        _pacing(request.pacing, spec, settings, adjustments)
    return spec, adjustments


def _pacing(pacing: pb.Pacing, spec: SolveSpec, settings: Settings, adjustments: list[str]) -> None:
    """Frame sizing: duration x fps frames, or fixed steps per frame."""
    if pacing.fps < 0:
        raise Invalid(f"pacing.fps: must not be negative, got {pacing.fps}")
    spec.fps = pacing.fps or settings.default_fps
    if spec.fps > settings.max_fps:
        adjustments.append(f"pacing.fps clamped from {spec.fps} to {settings.max_fps}")
        spec.fps = settings.max_fps
    if pacing.steps_per_frame < 0:
        raise Invalid(f"pacing.steps_per_frame: must not be negative, got {pacing.steps_per_frame}")
    if pacing.duration_ms < 0:
        raise Invalid(f"pacing.duration_ms: must not be negative, got {pacing.duration_ms}")
    spec.max_frames = settings.max_frames
    if pacing.steps_per_frame:
        # Not a clamp of max_steps: a search longer than max_frames frames
        # gets bigger frames instead (worker.frames.boundaries).
        spec.steps_per_frame = pacing.steps_per_frame
        return
    wanted = pacing.duration_ms or settings.default_duration_ms
    spec.duration_ms = capped(wanted, settings.max_duration_ms, "pacing.duration_ms", adjustments)
    longest = settings.max_frames * 1000 // spec.fps
    if spec.duration_ms > longest:
        adjustments.append(
            f"pacing.duration_ms clamped from {spec.duration_ms} to {longest} "
            f"({settings.max_frames} frames at {spec.fps} fps)"
        )
        spec.duration_ms = longest


def count_spec(request: pb.CountRequest | Undecodable, settings: Settings) -> CountSpec:
    options = count_options(parsed(request), settings)  # a CountBatch item may not have parsed
    return CountSpec(board=board(request.board, "board"), **options)


def count_options(request: pb.CountRequest | pb.CountManyRequest, settings: Settings) -> dict:
    """limit, max_steps, time_limit_ms and include_solution, checked and capped."""
    if request.limit < 0:
        raise Invalid(f"limit: must not be negative, got {request.limit}")
    if request.limit > settings.max_count_limit:
        raise Invalid(f"limit: at most {settings.max_count_limit} (GetLimits max_count_limit), got {request.limit}")
    ignored: list[str] = []
    return {
        "limit": request.limit or 2,
        "max_steps": capped(request.max_steps, settings.max_steps, "max_steps", ignored),
        "time_limit_ms": capped(request.time_limit_ms, settings.max_time_ms, "time_limit_ms", ignored),
        "include_solution": request.include_solution,
    }


def many_boards(request: pb.CountManyRequest, max_chunk: int) -> tuple[bytes, list[int], dict[int, str], int]:
    """A CountMany request's boards: the valid ones as ASCII bytes, 81 a
    board, the positions they came from, a message for each bad one, and
    how many there were.

    Generators send clean boards, so one scan of them all in C comes first;
    the board-by-board check (whitespace, messages naming the cell) is only
    for a request where that scan failed.
    """
    if request.boards and request.packed_boards:
        raise Invalid("boards, packed_boards: send one of them, not both")
    if request.packed_boards:
        return _packed_boards(request.packed_boards, max_chunk)
    boards = request.boards
    _at_most(len(boards), max_chunk, "boards")
    packed = engine.pack_boards(list(boards))
    if packed is not None:
        return packed, list(range(len(boards))), {}, len(boards)
    valid, errors = _each_board(enumerate(boards), "boards")
    return "".join(valid.values()).encode("ascii"), list(valid), errors, len(boards)


def _packed_boards(packed: bytes, max_chunk: int) -> tuple[bytes, list[int], dict[int, str], int]:
    if len(packed) % 81:
        raise Invalid(f"packed_boards: {len(packed)} bytes is not a whole number of 81-cell boards")
    n = len(packed) // 81
    _at_most(n, max_chunk, "packed_boards")
    bad = engine.bad_boards(packed)
    if not bad:
        return packed, list(range(n)), {}, n
    errors = {i: _bad_byte(packed, i) for i in bad}
    positions = [i for i in range(n) if i not in errors]
    return b"".join(packed[i * 81 : i * 81 + 81] for i in positions), positions, errors, n


PACKED_CELL = frozenset(b"123456789.0")


def _bad_byte(packed: bytes, i: int) -> str:
    """Why packed board `i` is bad: its first byte that is not a cell,
    named by its offset in packed_boards and its cell. Packed boards take no
    whitespace: each is exactly 81 bytes."""
    start = i * 81
    cell = next(c for c in range(81) if packed[start + c] not in PACKED_CELL)
    char = chr(packed[start + cell])  # Latin-1 names any byte as one character
    return (f"packed_boards[{i}]: byte {start + cell} (cell {grid.cell_name(cell)}): "
            f"{char!r} is not 1-9, '.' or '0'")


def _each_board(boards: Iterable[tuple[int, str]], field: str) -> tuple[dict[int, str], dict[int, str]]:
    """(position, text) pairs checked one by one: the normalised boards and
    the messages, each by position, in the order given."""
    valid, errors = {}, {}
    for i, text in boards:
        try:
            valid[i] = board(text, f"{field}[{i}]")
        except Invalid as exc:
            errors[i] = str(exc)
    return valid, errors


def _at_most(n: int, max_chunk: int, field: str) -> None:
    if n > max_chunk:
        raise Invalid(f"{field}: at most {max_chunk} boards per request, got {n}")


def hint_spec(request: pb.HintRequest) -> HintSpec:
    givens = board(request.givens, "givens")
    return HintSpec(
        givens=givens,
        entries=entries(givens, request.entries),
        include_candidates=request.include_candidates,
        pencil_marks=pencil_marks(request.pencil_marks),
    )


def pencil_marks(masks) -> list[int] | None:
    """None for none (an empty list), else 81 masks of values 1-9."""
    if not masks:
        return None
    marks = list(masks)
    try:
        grid.check_pencil_marks(marks)
    except ValueError as exc:
        raise Invalid(str(exc)) from None
    return marks


def explain_spec(request: pb.ExplainRequest) -> ExplainSpec:
    return ExplainSpec(board=board(request.board, "board"), pencil_marks=pencil_marks(request.pencil_marks))
