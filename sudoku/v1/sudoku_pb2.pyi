from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Strategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STRATEGY_UNSPECIFIED: _ClassVar[Strategy]
    STRATEGY_MRV: _ClassVar[Strategy]
    STRATEGY_NAIVE: _ClassVar[Strategy]

class TieBreak(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIE_BREAK_UNSPECIFIED: _ClassVar[TieBreak]
    TIE_BREAK_ROTATE: _ClassVar[TieBreak]
    TIE_BREAK_FIRST: _ClassVar[TieBreak]
    TIE_BREAK_RANDOM: _ClassVar[TieBreak]

class View(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VIEW_UNSPECIFIED: _ClassVar[View]
    VIEW_FINAL: _ClassVar[View]
    VIEW_SEARCH: _ClassVar[View]

class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OUTCOME_UNSPECIFIED: _ClassVar[Outcome]
    SOLVED: _ClassVar[Outcome]
    EXHAUSTED: _ClassVar[Outcome]
    GAVE_UP: _ClassVar[Outcome]
    CANCELLED: _ClassVar[Outcome]
STRATEGY_UNSPECIFIED: Strategy
STRATEGY_MRV: Strategy
STRATEGY_NAIVE: Strategy
TIE_BREAK_UNSPECIFIED: TieBreak
TIE_BREAK_ROTATE: TieBreak
TIE_BREAK_FIRST: TieBreak
TIE_BREAK_RANDOM: TieBreak
VIEW_UNSPECIFIED: View
VIEW_FINAL: View
VIEW_SEARCH: View
OUTCOME_UNSPECIFIED: Outcome
SOLVED: Outcome
EXHAUSTED: Outcome
GAVE_UP: Outcome
CANCELLED: Outcome

class SolveRequest(_message.Message):
    __slots__ = ("board", "entries", "strategy", "tie_break", "seed", "max_steps", "time_limit_ms", "request_id", "view", "pacing", "cancel_on_disconnect")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    PACING_FIELD_NUMBER: _ClassVar[int]
    CANCEL_ON_DISCONNECT_FIELD_NUMBER: _ClassVar[int]
    board: str
    entries: str
    strategy: Strategy
    tie_break: TieBreak
    seed: int
    max_steps: int
    time_limit_ms: int
    request_id: str
    view: View
    pacing: Pacing
    cancel_on_disconnect: bool
    def __init__(self, board: _Optional[str] = ..., entries: _Optional[str] = ..., strategy: _Optional[_Union[Strategy, str]] = ..., tie_break: _Optional[_Union[TieBreak, str]] = ..., seed: _Optional[int] = ..., max_steps: _Optional[int] = ..., time_limit_ms: _Optional[int] = ..., request_id: _Optional[str] = ..., view: _Optional[_Union[View, str]] = ..., pacing: _Optional[_Union[Pacing, _Mapping]] = ..., cancel_on_disconnect: _Optional[bool] = ...) -> None: ...

class Pacing(_message.Message):
    __slots__ = ("duration_ms", "fps", "steps_per_frame", "unpaced", "runs")
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    FPS_FIELD_NUMBER: _ClassVar[int]
    STEPS_PER_FRAME_FIELD_NUMBER: _ClassVar[int]
    UNPACED_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    duration_ms: int
    fps: int
    steps_per_frame: int
    unpaced: bool
    runs: bool
    def __init__(self, duration_ms: _Optional[int] = ..., fps: _Optional[int] = ..., steps_per_frame: _Optional[int] = ..., unpaced: _Optional[bool] = ..., runs: _Optional[bool] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("job_id", "after_seq", "unpaced", "runs")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    UNPACED_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    after_seq: int
    unpaced: bool
    runs: bool
    def __init__(self, job_id: _Optional[str] = ..., after_seq: _Optional[int] = ..., unpaced: _Optional[bool] = ..., runs: _Optional[bool] = ...) -> None: ...

class CancelRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class CancelReply(_message.Message):
    __slots__ = ("cancelled",)
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    cancelled: bool
    def __init__(self, cancelled: _Optional[bool] = ...) -> None: ...

class Counters(_message.Message):
    __slots__ = ("steps", "placements", "retractions", "solutions")
    STEPS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    RETRACTIONS_FIELD_NUMBER: _ClassVar[int]
    SOLUTIONS_FIELD_NUMBER: _ClassVar[int]
    steps: int
    placements: int
    retractions: int
    solutions: int
    def __init__(self, steps: _Optional[int] = ..., placements: _Optional[int] = ..., retractions: _Optional[int] = ..., solutions: _Optional[int] = ...) -> None: ...

class JobInfo(_message.Message):
    __slots__ = ("givens", "entries", "strategy", "tie_break", "seed", "max_steps", "time_limit_ms", "view", "pacing", "adjustments")
    GIVENS_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    PACING_FIELD_NUMBER: _ClassVar[int]
    ADJUSTMENTS_FIELD_NUMBER: _ClassVar[int]
    givens: str
    entries: str
    strategy: Strategy
    tie_break: TieBreak
    seed: int
    max_steps: int
    time_limit_ms: int
    view: View
    pacing: Pacing
    adjustments: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, givens: _Optional[str] = ..., entries: _Optional[str] = ..., strategy: _Optional[_Union[Strategy, str]] = ..., tie_break: _Optional[_Union[TieBreak, str]] = ..., seed: _Optional[int] = ..., max_steps: _Optional[int] = ..., time_limit_ms: _Optional[int] = ..., view: _Optional[_Union[View, str]] = ..., pacing: _Optional[_Union[Pacing, _Mapping]] = ..., adjustments: _Optional[_Iterable[str]] = ...) -> None: ...

class GetLimitsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Limits(_message.Message):
    __slots__ = ("max_steps", "max_time_ms", "max_duration_ms", "max_fps", "max_frames", "default_duration_ms", "default_fps", "keyframe_every", "run_ms", "max_count_limit", "max_chunk", "max_batch", "stream_ttl_s", "stream_idle_ms", "max_message_bytes")
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    MAX_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_FPS_FIELD_NUMBER: _ClassVar[int]
    MAX_FRAMES_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_FPS_FIELD_NUMBER: _ClassVar[int]
    KEYFRAME_EVERY_FIELD_NUMBER: _ClassVar[int]
    RUN_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_COUNT_LIMIT_FIELD_NUMBER: _ClassVar[int]
    MAX_CHUNK_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_FIELD_NUMBER: _ClassVar[int]
    STREAM_TTL_S_FIELD_NUMBER: _ClassVar[int]
    STREAM_IDLE_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    max_steps: int
    max_time_ms: int
    max_duration_ms: int
    max_fps: int
    max_frames: int
    default_duration_ms: int
    default_fps: int
    keyframe_every: int
    run_ms: int
    max_count_limit: int
    max_chunk: int
    max_batch: int
    stream_ttl_s: int
    stream_idle_ms: int
    max_message_bytes: int
    def __init__(self, max_steps: _Optional[int] = ..., max_time_ms: _Optional[int] = ..., max_duration_ms: _Optional[int] = ..., max_fps: _Optional[int] = ..., max_frames: _Optional[int] = ..., default_duration_ms: _Optional[int] = ..., default_fps: _Optional[int] = ..., keyframe_every: _Optional[int] = ..., run_ms: _Optional[int] = ..., max_count_limit: _Optional[int] = ..., max_chunk: _Optional[int] = ..., max_batch: _Optional[int] = ..., stream_ttl_s: _Optional[int] = ..., stream_idle_ms: _Optional[int] = ..., max_message_bytes: _Optional[int] = ...) -> None: ...

class Frame(_message.Message):
    __slots__ = ("seq", "job_id", "first_step", "last_step", "steps", "changes", "cursor", "counters", "board", "job", "total_steps", "outcome", "solution", "conflicts", "next_frames")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_STEP_FIELD_NUMBER: _ClassVar[int]
    LAST_STEP_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    JOB_FIELD_NUMBER: _ClassVar[int]
    TOTAL_STEPS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    SOLUTION_FIELD_NUMBER: _ClassVar[int]
    CONFLICTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_FRAMES_FIELD_NUMBER: _ClassVar[int]
    seq: int
    job_id: str
    first_step: int
    last_step: int
    steps: bytes
    changes: bytes
    cursor: int
    counters: Counters
    board: str
    job: JobInfo
    total_steps: int
    outcome: Outcome
    solution: str
    conflicts: _containers.RepeatedScalarFieldContainer[int]
    next_frames: _containers.RepeatedCompositeFieldContainer[Frame]
    def __init__(self, seq: _Optional[int] = ..., job_id: _Optional[str] = ..., first_step: _Optional[int] = ..., last_step: _Optional[int] = ..., steps: _Optional[bytes] = ..., changes: _Optional[bytes] = ..., cursor: _Optional[int] = ..., counters: _Optional[_Union[Counters, _Mapping]] = ..., board: _Optional[str] = ..., job: _Optional[_Union[JobInfo, _Mapping]] = ..., total_steps: _Optional[int] = ..., outcome: _Optional[_Union[Outcome, str]] = ..., solution: _Optional[str] = ..., conflicts: _Optional[_Iterable[int]] = ..., next_frames: _Optional[_Iterable[_Union[Frame, _Mapping]]] = ...) -> None: ...

class HintRequest(_message.Message):
    __slots__ = ("givens", "entries", "include_candidates")
    GIVENS_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    givens: str
    entries: str
    include_candidates: bool
    def __init__(self, givens: _Optional[str] = ..., entries: _Optional[str] = ..., include_candidates: _Optional[bool] = ...) -> None: ...

class Unit(_message.Message):
    __slots__ = ("kind", "index")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[Unit.Kind]
        ROW: _ClassVar[Unit.Kind]
        COLUMN: _ClassVar[Unit.Kind]
        BOX: _ClassVar[Unit.Kind]
    KIND_UNSPECIFIED: Unit.Kind
    ROW: Unit.Kind
    COLUMN: Unit.Kind
    BOX: Unit.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    kind: Unit.Kind
    index: int
    def __init__(self, kind: _Optional[_Union[Unit.Kind, str]] = ..., index: _Optional[int] = ...) -> None: ...

class HintReply(_message.Message):
    __slots__ = ("kind", "move", "wrong", "not_unique", "conflicts", "reason", "candidates")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[HintReply.Kind]
        NEXT_MOVE: _ClassVar[HintReply.Kind]
        WRONG_ENTRY: _ClassVar[HintReply.Kind]
        SOLVED: _ClassVar[HintReply.Kind]
        NO_SOLUTION: _ClassVar[HintReply.Kind]
    KIND_UNSPECIFIED: HintReply.Kind
    NEXT_MOVE: HintReply.Kind
    WRONG_ENTRY: HintReply.Kind
    SOLVED: HintReply.Kind
    NO_SOLUTION: HintReply.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    WRONG_FIELD_NUMBER: _ClassVar[int]
    NOT_UNIQUE_FIELD_NUMBER: _ClassVar[int]
    CONFLICTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    kind: HintReply.Kind
    move: Move
    wrong: WrongEntry
    not_unique: bool
    conflicts: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    candidates: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, kind: _Optional[_Union[HintReply.Kind, str]] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., wrong: _Optional[_Union[WrongEntry, _Mapping]] = ..., not_unique: _Optional[bool] = ..., conflicts: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., candidates: _Optional[_Iterable[int]] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("cell", "value", "technique", "unit")
    class Technique(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TECHNIQUE_UNSPECIFIED: _ClassVar[Move.Technique]
        NAKED_SINGLE: _ClassVar[Move.Technique]
        HIDDEN_SINGLE: _ClassVar[Move.Technique]
        FROM_SOLUTION: _ClassVar[Move.Technique]
    TECHNIQUE_UNSPECIFIED: Move.Technique
    NAKED_SINGLE: Move.Technique
    HIDDEN_SINGLE: Move.Technique
    FROM_SOLUTION: Move.Technique
    CELL_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    TECHNIQUE_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    cell: int
    value: int
    technique: Move.Technique
    unit: Unit
    def __init__(self, cell: _Optional[int] = ..., value: _Optional[int] = ..., technique: _Optional[_Union[Move.Technique, str]] = ..., unit: _Optional[_Union[Unit, _Mapping]] = ...) -> None: ...

class WrongEntry(_message.Message):
    __slots__ = ("cells", "unit", "should_be")
    CELLS_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    SHOULD_BE_FIELD_NUMBER: _ClassVar[int]
    cells: _containers.RepeatedScalarFieldContainer[int]
    unit: Unit
    should_be: int
    def __init__(self, cells: _Optional[_Iterable[int]] = ..., unit: _Optional[_Union[Unit, _Mapping]] = ..., should_be: _Optional[int] = ...) -> None: ...

class CountRequest(_message.Message):
    __slots__ = ("board", "limit", "max_steps", "time_limit_ms", "include_solution")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_SOLUTION_FIELD_NUMBER: _ClassVar[int]
    board: str
    limit: int
    max_steps: int
    time_limit_ms: int
    include_solution: bool
    def __init__(self, board: _Optional[str] = ..., limit: _Optional[int] = ..., max_steps: _Optional[int] = ..., time_limit_ms: _Optional[int] = ..., include_solution: _Optional[bool] = ...) -> None: ...

class CountReply(_message.Message):
    __slots__ = ("index", "count", "complete", "verdict", "solution", "conflicts", "error")
    class Verdict(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        VERDICT_UNSPECIFIED: _ClassVar[CountReply.Verdict]
        UNIQUE: _ClassVar[CountReply.Verdict]
        MULTIPLE: _ClassVar[CountReply.Verdict]
        NONE: _ClassVar[CountReply.Verdict]
        UNKNOWN: _ClassVar[CountReply.Verdict]
    VERDICT_UNSPECIFIED: CountReply.Verdict
    UNIQUE: CountReply.Verdict
    MULTIPLE: CountReply.Verdict
    NONE: CountReply.Verdict
    UNKNOWN: CountReply.Verdict
    INDEX_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    SOLUTION_FIELD_NUMBER: _ClassVar[int]
    CONFLICTS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    index: int
    count: int
    complete: bool
    verdict: CountReply.Verdict
    solution: str
    conflicts: _containers.RepeatedScalarFieldContainer[int]
    error: ItemError
    def __init__(self, index: _Optional[int] = ..., count: _Optional[int] = ..., complete: _Optional[bool] = ..., verdict: _Optional[_Union[CountReply.Verdict, str]] = ..., solution: _Optional[str] = ..., conflicts: _Optional[_Iterable[int]] = ..., error: _Optional[_Union[ItemError, _Mapping]] = ...) -> None: ...

class ItemError(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...

class CountManyRequest(_message.Message):
    __slots__ = ("boards", "packed_boards", "limit", "max_steps", "time_limit_ms", "include_solution")
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    PACKED_BOARDS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_SOLUTION_FIELD_NUMBER: _ClassVar[int]
    boards: _containers.RepeatedScalarFieldContainer[str]
    packed_boards: bytes
    limit: int
    max_steps: int
    time_limit_ms: int
    include_solution: bool
    def __init__(self, boards: _Optional[_Iterable[str]] = ..., packed_boards: _Optional[bytes] = ..., limit: _Optional[int] = ..., max_steps: _Optional[int] = ..., time_limit_ms: _Optional[int] = ..., include_solution: _Optional[bool] = ...) -> None: ...

class CountManyReply(_message.Message):
    __slots__ = ("counts", "complete", "verdicts", "solutions", "errors", "error")
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    VERDICTS_FIELD_NUMBER: _ClassVar[int]
    SOLUTIONS_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.RepeatedScalarFieldContainer[int]
    complete: _containers.RepeatedScalarFieldContainer[bool]
    verdicts: _containers.RepeatedScalarFieldContainer[CountReply.Verdict]
    solutions: _containers.RepeatedScalarFieldContainer[str]
    errors: _containers.RepeatedCompositeFieldContainer[CountReply]
    error: ItemError
    def __init__(self, counts: _Optional[_Iterable[int]] = ..., complete: _Optional[_Iterable[bool]] = ..., verdicts: _Optional[_Iterable[_Union[CountReply.Verdict, str]]] = ..., solutions: _Optional[_Iterable[str]] = ..., errors: _Optional[_Iterable[_Union[CountReply, _Mapping]]] = ..., error: _Optional[_Union[ItemError, _Mapping]] = ...) -> None: ...
