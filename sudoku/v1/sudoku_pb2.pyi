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
    OUTCOME_SOLVED: _ClassVar[Outcome]
    EXHAUSTED: _ClassVar[Outcome]
    OUTCOME_EXHAUSTED: _ClassVar[Outcome]
    GAVE_UP: _ClassVar[Outcome]
    OUTCOME_GAVE_UP: _ClassVar[Outcome]
    CANCELLED: _ClassVar[Outcome]
    OUTCOME_CANCELLED: _ClassVar[Outcome]

class Level(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEVEL_UNSPECIFIED: _ClassVar[Level]
    EASY: _ClassVar[Level]
    LEVEL_EASY: _ClassVar[Level]
    MEDIUM: _ClassVar[Level]
    LEVEL_MEDIUM: _ClassVar[Level]
    HARD: _ClassVar[Level]
    LEVEL_HARD: _ClassVar[Level]
    EXPERT: _ClassVar[Level]
    LEVEL_EXPERT: _ClassVar[Level]
    EXTREME: _ClassVar[Level]
    LEVEL_EXTREME: _ClassVar[Level]

class Symmetry(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SYMMETRY_UNSPECIFIED: _ClassVar[Symmetry]
    SYMMETRY_NONE: _ClassVar[Symmetry]
    SYMMETRY_ROTATIONAL: _ClassVar[Symmetry]
    SYMMETRY_MIRROR: _ClassVar[Symmetry]
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
OUTCOME_SOLVED: Outcome
EXHAUSTED: Outcome
OUTCOME_EXHAUSTED: Outcome
GAVE_UP: Outcome
OUTCOME_GAVE_UP: Outcome
CANCELLED: Outcome
OUTCOME_CANCELLED: Outcome
LEVEL_UNSPECIFIED: Level
EASY: Level
LEVEL_EASY: Level
MEDIUM: Level
LEVEL_MEDIUM: Level
HARD: Level
LEVEL_HARD: Level
EXPERT: Level
LEVEL_EXPERT: Level
EXTREME: Level
LEVEL_EXTREME: Level
SYMMETRY_UNSPECIFIED: Symmetry
SYMMETRY_NONE: Symmetry
SYMMETRY_ROTATIONAL: Symmetry
SYMMETRY_MIRROR: Symmetry

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
    __slots__ = ("max_steps", "max_time_ms", "max_duration_ms", "max_fps", "max_frames", "default_duration_ms", "default_fps", "keyframe_every", "run_ms", "max_count_limit", "max_chunk", "max_batch", "stream_ttl_s", "stream_idle_ms", "max_message_bytes", "max_grade_chunk", "max_generate", "max_call_work_s", "max_concurrent_rpcs", "max_streams_per_connection", "max_frame_rate", "max_frame_rate_per_connection", "queue_bound", "max_request_bytes", "http_connections_per_client", "caller_cheap_calls", "caller_heavy_calls", "caller_batch_jobs", "max_step_count", "max_step_skip")
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
    MAX_GRADE_CHUNK_FIELD_NUMBER: _ClassVar[int]
    MAX_GENERATE_FIELD_NUMBER: _ClassVar[int]
    MAX_CALL_WORK_S_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_RPCS_FIELD_NUMBER: _ClassVar[int]
    MAX_STREAMS_PER_CONNECTION_FIELD_NUMBER: _ClassVar[int]
    MAX_FRAME_RATE_FIELD_NUMBER: _ClassVar[int]
    MAX_FRAME_RATE_PER_CONNECTION_FIELD_NUMBER: _ClassVar[int]
    QUEUE_BOUND_FIELD_NUMBER: _ClassVar[int]
    MAX_REQUEST_BYTES_FIELD_NUMBER: _ClassVar[int]
    HTTP_CONNECTIONS_PER_CLIENT_FIELD_NUMBER: _ClassVar[int]
    CALLER_CHEAP_CALLS_FIELD_NUMBER: _ClassVar[int]
    CALLER_HEAVY_CALLS_FIELD_NUMBER: _ClassVar[int]
    CALLER_BATCH_JOBS_FIELD_NUMBER: _ClassVar[int]
    MAX_STEP_COUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_STEP_SKIP_FIELD_NUMBER: _ClassVar[int]
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
    max_grade_chunk: int
    max_generate: int
    max_call_work_s: int
    max_concurrent_rpcs: int
    max_streams_per_connection: int
    max_frame_rate: int
    max_frame_rate_per_connection: int
    queue_bound: int
    max_request_bytes: int
    http_connections_per_client: int
    caller_cheap_calls: int
    caller_heavy_calls: int
    caller_batch_jobs: int
    max_step_count: int
    max_step_skip: int
    def __init__(self, max_steps: _Optional[int] = ..., max_time_ms: _Optional[int] = ..., max_duration_ms: _Optional[int] = ..., max_fps: _Optional[int] = ..., max_frames: _Optional[int] = ..., default_duration_ms: _Optional[int] = ..., default_fps: _Optional[int] = ..., keyframe_every: _Optional[int] = ..., run_ms: _Optional[int] = ..., max_count_limit: _Optional[int] = ..., max_chunk: _Optional[int] = ..., max_batch: _Optional[int] = ..., stream_ttl_s: _Optional[int] = ..., stream_idle_ms: _Optional[int] = ..., max_message_bytes: _Optional[int] = ..., max_grade_chunk: _Optional[int] = ..., max_generate: _Optional[int] = ..., max_call_work_s: _Optional[int] = ..., max_concurrent_rpcs: _Optional[int] = ..., max_streams_per_connection: _Optional[int] = ..., max_frame_rate: _Optional[int] = ..., max_frame_rate_per_connection: _Optional[int] = ..., queue_bound: _Optional[int] = ..., max_request_bytes: _Optional[int] = ..., http_connections_per_client: _Optional[int] = ..., caller_cheap_calls: _Optional[int] = ..., caller_heavy_calls: _Optional[int] = ..., caller_batch_jobs: _Optional[int] = ..., max_step_count: _Optional[int] = ..., max_step_skip: _Optional[int] = ...) -> None: ...

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

class StepRequest(_message.Message):
    __slots__ = ("board", "entries", "strategy", "tie_break", "seed", "position", "steps", "skip")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    board: str
    entries: str
    strategy: Strategy
    tie_break: TieBreak
    seed: int
    position: bytes
    steps: int
    skip: int
    def __init__(self, board: _Optional[str] = ..., entries: _Optional[str] = ..., strategy: _Optional[_Union[Strategy, str]] = ..., tie_break: _Optional[_Union[TieBreak, str]] = ..., seed: _Optional[int] = ..., position: _Optional[bytes] = ..., steps: _Optional[int] = ..., skip: _Optional[int] = ...) -> None: ...

class StepReply(_message.Message):
    __slots__ = ("position", "first_step", "last_step", "steps", "cursor", "counters", "board", "first_board", "outcome", "solution", "conflicts", "adjustments")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    FIRST_STEP_FIELD_NUMBER: _ClassVar[int]
    LAST_STEP_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    FIRST_BOARD_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    SOLUTION_FIELD_NUMBER: _ClassVar[int]
    CONFLICTS_FIELD_NUMBER: _ClassVar[int]
    ADJUSTMENTS_FIELD_NUMBER: _ClassVar[int]
    position: bytes
    first_step: int
    last_step: int
    steps: bytes
    cursor: int
    counters: Counters
    board: str
    first_board: str
    outcome: Outcome
    solution: str
    conflicts: _containers.RepeatedScalarFieldContainer[int]
    adjustments: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, position: _Optional[bytes] = ..., first_step: _Optional[int] = ..., last_step: _Optional[int] = ..., steps: _Optional[bytes] = ..., cursor: _Optional[int] = ..., counters: _Optional[_Union[Counters, _Mapping]] = ..., board: _Optional[str] = ..., first_board: _Optional[str] = ..., outcome: _Optional[_Union[Outcome, str]] = ..., solution: _Optional[str] = ..., conflicts: _Optional[_Iterable[int]] = ..., adjustments: _Optional[_Iterable[str]] = ...) -> None: ...

class HintRequest(_message.Message):
    __slots__ = ("givens", "entries", "include_candidates", "pencil_marks")
    GIVENS_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    PENCIL_MARKS_FIELD_NUMBER: _ClassVar[int]
    givens: str
    entries: str
    include_candidates: bool
    pencil_marks: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, givens: _Optional[str] = ..., entries: _Optional[str] = ..., include_candidates: _Optional[bool] = ..., pencil_marks: _Optional[_Iterable[int]] = ...) -> None: ...

class Unit(_message.Message):
    __slots__ = ("kind", "index")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[Unit.Kind]
        ROW: _ClassVar[Unit.Kind]
        KIND_ROW: _ClassVar[Unit.Kind]
        COLUMN: _ClassVar[Unit.Kind]
        KIND_COLUMN: _ClassVar[Unit.Kind]
        BOX: _ClassVar[Unit.Kind]
        KIND_BOX: _ClassVar[Unit.Kind]
    KIND_UNSPECIFIED: Unit.Kind
    ROW: Unit.Kind
    KIND_ROW: Unit.Kind
    COLUMN: Unit.Kind
    KIND_COLUMN: Unit.Kind
    BOX: Unit.Kind
    KIND_BOX: Unit.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    kind: Unit.Kind
    index: int
    def __init__(self, kind: _Optional[_Union[Unit.Kind, str]] = ..., index: _Optional[int] = ...) -> None: ...

class HintReply(_message.Message):
    __slots__ = ("kind", "move", "wrong", "not_unique", "conflicts", "reason", "candidates", "step", "before")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[HintReply.Kind]
        NEXT_MOVE: _ClassVar[HintReply.Kind]
        KIND_NEXT_MOVE: _ClassVar[HintReply.Kind]
        WRONG_ENTRY: _ClassVar[HintReply.Kind]
        KIND_WRONG_ENTRY: _ClassVar[HintReply.Kind]
        SOLVED: _ClassVar[HintReply.Kind]
        KIND_SOLVED: _ClassVar[HintReply.Kind]
        NO_SOLUTION: _ClassVar[HintReply.Kind]
        KIND_NO_SOLUTION: _ClassVar[HintReply.Kind]
        ELIMINATION: _ClassVar[HintReply.Kind]
        KIND_ELIMINATION: _ClassVar[HintReply.Kind]
    KIND_UNSPECIFIED: HintReply.Kind
    NEXT_MOVE: HintReply.Kind
    KIND_NEXT_MOVE: HintReply.Kind
    WRONG_ENTRY: HintReply.Kind
    KIND_WRONG_ENTRY: HintReply.Kind
    SOLVED: HintReply.Kind
    KIND_SOLVED: HintReply.Kind
    NO_SOLUTION: HintReply.Kind
    KIND_NO_SOLUTION: HintReply.Kind
    ELIMINATION: HintReply.Kind
    KIND_ELIMINATION: HintReply.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    WRONG_FIELD_NUMBER: _ClassVar[int]
    NOT_UNIQUE_FIELD_NUMBER: _ClassVar[int]
    CONFLICTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    kind: HintReply.Kind
    move: Move
    wrong: WrongEntry
    not_unique: bool
    conflicts: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    candidates: _containers.RepeatedScalarFieldContainer[int]
    step: Step
    before: _containers.RepeatedCompositeFieldContainer[Step]
    def __init__(self, kind: _Optional[_Union[HintReply.Kind, str]] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., wrong: _Optional[_Union[WrongEntry, _Mapping]] = ..., not_unique: _Optional[bool] = ..., conflicts: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., candidates: _Optional[_Iterable[int]] = ..., step: _Optional[_Union[Step, _Mapping]] = ..., before: _Optional[_Iterable[_Union[Step, _Mapping]]] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("cell", "value", "technique", "unit")
    class Technique(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TECHNIQUE_UNSPECIFIED: _ClassVar[Move.Technique]
        NAKED_SINGLE: _ClassVar[Move.Technique]
        TECHNIQUE_NAKED_SINGLE: _ClassVar[Move.Technique]
        HIDDEN_SINGLE: _ClassVar[Move.Technique]
        TECHNIQUE_HIDDEN_SINGLE: _ClassVar[Move.Technique]
        FROM_SOLUTION: _ClassVar[Move.Technique]
        TECHNIQUE_FROM_SOLUTION: _ClassVar[Move.Technique]
        LOGICAL_STEP: _ClassVar[Move.Technique]
        TECHNIQUE_LOGICAL_STEP: _ClassVar[Move.Technique]
    TECHNIQUE_UNSPECIFIED: Move.Technique
    NAKED_SINGLE: Move.Technique
    TECHNIQUE_NAKED_SINGLE: Move.Technique
    HIDDEN_SINGLE: Move.Technique
    TECHNIQUE_HIDDEN_SINGLE: Move.Technique
    FROM_SOLUTION: Move.Technique
    TECHNIQUE_FROM_SOLUTION: Move.Technique
    LOGICAL_STEP: Move.Technique
    TECHNIQUE_LOGICAL_STEP: Move.Technique
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
    __slots__ = ("cells", "unit", "should_be", "pencil_marks")
    CELLS_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    SHOULD_BE_FIELD_NUMBER: _ClassVar[int]
    PENCIL_MARKS_FIELD_NUMBER: _ClassVar[int]
    cells: _containers.RepeatedScalarFieldContainer[int]
    unit: Unit
    should_be: int
    pencil_marks: bool
    def __init__(self, cells: _Optional[_Iterable[int]] = ..., unit: _Optional[_Union[Unit, _Mapping]] = ..., should_be: _Optional[int] = ..., pencil_marks: _Optional[bool] = ...) -> None: ...

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
        VERDICT_UNIQUE: _ClassVar[CountReply.Verdict]
        MULTIPLE: _ClassVar[CountReply.Verdict]
        VERDICT_MULTIPLE: _ClassVar[CountReply.Verdict]
        NONE: _ClassVar[CountReply.Verdict]
        VERDICT_NONE: _ClassVar[CountReply.Verdict]
        UNKNOWN: _ClassVar[CountReply.Verdict]
        VERDICT_UNKNOWN: _ClassVar[CountReply.Verdict]
    VERDICT_UNSPECIFIED: CountReply.Verdict
    UNIQUE: CountReply.Verdict
    VERDICT_UNIQUE: CountReply.Verdict
    MULTIPLE: CountReply.Verdict
    VERDICT_MULTIPLE: CountReply.Verdict
    NONE: CountReply.Verdict
    VERDICT_NONE: CountReply.Verdict
    UNKNOWN: CountReply.Verdict
    VERDICT_UNKNOWN: CountReply.Verdict
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

class Candidate(_message.Message):
    __slots__ = ("cell", "value")
    CELL_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    cell: int
    value: int
    def __init__(self, cell: _Optional[int] = ..., value: _Optional[int] = ...) -> None: ...

class PatternCandidate(_message.Message):
    __slots__ = ("cell", "value", "group")
    CELL_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    cell: int
    value: int
    group: int
    def __init__(self, cell: _Optional[int] = ..., value: _Optional[int] = ..., group: _Optional[int] = ...) -> None: ...

class ChainNode(_message.Message):
    __slots__ = ("cell", "value", "on", "strong", "branch")
    CELL_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ON_FIELD_NUMBER: _ClassVar[int]
    STRONG_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    cell: int
    value: int
    on: bool
    strong: bool
    branch: int
    def __init__(self, cell: _Optional[int] = ..., value: _Optional[int] = ..., on: _Optional[bool] = ..., strong: _Optional[bool] = ..., branch: _Optional[int] = ...) -> None: ...

class Step(_message.Message):
    __slots__ = ("technique", "level", "placement", "eliminations", "pattern", "units", "digits", "chain", "variant", "reason")
    class Technique(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TECHNIQUE_UNSPECIFIED: _ClassVar[Step.Technique]
        FULL_HOUSE: _ClassVar[Step.Technique]
        TECHNIQUE_FULL_HOUSE: _ClassVar[Step.Technique]
        NAKED_SINGLE: _ClassVar[Step.Technique]
        TECHNIQUE_NAKED_SINGLE: _ClassVar[Step.Technique]
        HIDDEN_SINGLE: _ClassVar[Step.Technique]
        TECHNIQUE_HIDDEN_SINGLE: _ClassVar[Step.Technique]
        POINTING: _ClassVar[Step.Technique]
        TECHNIQUE_POINTING: _ClassVar[Step.Technique]
        CLAIMING: _ClassVar[Step.Technique]
        TECHNIQUE_CLAIMING: _ClassVar[Step.Technique]
        NAKED_PAIR: _ClassVar[Step.Technique]
        TECHNIQUE_NAKED_PAIR: _ClassVar[Step.Technique]
        HIDDEN_PAIR: _ClassVar[Step.Technique]
        TECHNIQUE_HIDDEN_PAIR: _ClassVar[Step.Technique]
        NAKED_TRIPLE: _ClassVar[Step.Technique]
        TECHNIQUE_NAKED_TRIPLE: _ClassVar[Step.Technique]
        HIDDEN_TRIPLE: _ClassVar[Step.Technique]
        TECHNIQUE_HIDDEN_TRIPLE: _ClassVar[Step.Technique]
        X_WING: _ClassVar[Step.Technique]
        TECHNIQUE_X_WING: _ClassVar[Step.Technique]
        NAKED_QUAD: _ClassVar[Step.Technique]
        TECHNIQUE_NAKED_QUAD: _ClassVar[Step.Technique]
        HIDDEN_QUAD: _ClassVar[Step.Technique]
        TECHNIQUE_HIDDEN_QUAD: _ClassVar[Step.Technique]
        SKYSCRAPER: _ClassVar[Step.Technique]
        TECHNIQUE_SKYSCRAPER: _ClassVar[Step.Technique]
        TWO_STRING_KITE: _ClassVar[Step.Technique]
        TECHNIQUE_TWO_STRING_KITE: _ClassVar[Step.Technique]
        SWORDFISH: _ClassVar[Step.Technique]
        TECHNIQUE_SWORDFISH: _ClassVar[Step.Technique]
        XY_WING: _ClassVar[Step.Technique]
        TECHNIQUE_XY_WING: _ClassVar[Step.Technique]
        W_WING: _ClassVar[Step.Technique]
        TECHNIQUE_W_WING: _ClassVar[Step.Technique]
        FINNED_X_WING: _ClassVar[Step.Technique]
        TECHNIQUE_FINNED_X_WING: _ClassVar[Step.Technique]
        SASHIMI_X_WING: _ClassVar[Step.Technique]
        TECHNIQUE_SASHIMI_X_WING: _ClassVar[Step.Technique]
        XYZ_WING: _ClassVar[Step.Technique]
        TECHNIQUE_XYZ_WING: _ClassVar[Step.Technique]
        SIMPLE_COLORING: _ClassVar[Step.Technique]
        TECHNIQUE_SIMPLE_COLORING: _ClassVar[Step.Technique]
        UNIQUE_RECTANGLE: _ClassVar[Step.Technique]
        TECHNIQUE_UNIQUE_RECTANGLE: _ClassVar[Step.Technique]
        BUG_PLUS_ONE: _ClassVar[Step.Technique]
        TECHNIQUE_BUG_PLUS_ONE: _ClassVar[Step.Technique]
        JELLYFISH: _ClassVar[Step.Technique]
        TECHNIQUE_JELLYFISH: _ClassVar[Step.Technique]
        FINNED_SWORDFISH: _ClassVar[Step.Technique]
        TECHNIQUE_FINNED_SWORDFISH: _ClassVar[Step.Technique]
        SASHIMI_SWORDFISH: _ClassVar[Step.Technique]
        TECHNIQUE_SASHIMI_SWORDFISH: _ClassVar[Step.Technique]
        FINNED_JELLYFISH: _ClassVar[Step.Technique]
        TECHNIQUE_FINNED_JELLYFISH: _ClassVar[Step.Technique]
        SASHIMI_JELLYFISH: _ClassVar[Step.Technique]
        TECHNIQUE_SASHIMI_JELLYFISH: _ClassVar[Step.Technique]
        X_CHAIN: _ClassVar[Step.Technique]
        TECHNIQUE_X_CHAIN: _ClassVar[Step.Technique]
        XY_CHAIN: _ClassVar[Step.Technique]
        TECHNIQUE_XY_CHAIN: _ClassVar[Step.Technique]
        AIC: _ClassVar[Step.Technique]
        TECHNIQUE_AIC: _ClassVar[Step.Technique]
        NICE_LOOP: _ClassVar[Step.Technique]
        TECHNIQUE_NICE_LOOP: _ClassVar[Step.Technique]
        ALS_XZ: _ClassVar[Step.Technique]
        TECHNIQUE_ALS_XZ: _ClassVar[Step.Technique]
        ALS_XY_WING: _ClassVar[Step.Technique]
        TECHNIQUE_ALS_XY_WING: _ClassVar[Step.Technique]
        FORCING_CHAIN: _ClassVar[Step.Technique]
        TECHNIQUE_FORCING_CHAIN: _ClassVar[Step.Technique]
        FORCING_NET: _ClassVar[Step.Technique]
        TECHNIQUE_FORCING_NET: _ClassVar[Step.Technique]
        NESTED_FORCING: _ClassVar[Step.Technique]
        TECHNIQUE_NESTED_FORCING: _ClassVar[Step.Technique]
        TRIAL: _ClassVar[Step.Technique]
        TECHNIQUE_TRIAL: _ClassVar[Step.Technique]
        LOCKED_PAIR: _ClassVar[Step.Technique]
        TECHNIQUE_LOCKED_PAIR: _ClassVar[Step.Technique]
        LOCKED_TRIPLE: _ClassVar[Step.Technique]
        TECHNIQUE_LOCKED_TRIPLE: _ClassVar[Step.Technique]
        REMOTE_PAIR: _ClassVar[Step.Technique]
        TECHNIQUE_REMOTE_PAIR: _ClassVar[Step.Technique]
        TURBOT_FISH: _ClassVar[Step.Technique]
        TECHNIQUE_TURBOT_FISH: _ClassVar[Step.Technique]
        EMPTY_RECTANGLE: _ClassVar[Step.Technique]
        TECHNIQUE_EMPTY_RECTANGLE: _ClassVar[Step.Technique]
        HIDDEN_RECTANGLE: _ClassVar[Step.Technique]
        TECHNIQUE_HIDDEN_RECTANGLE: _ClassVar[Step.Technique]
        SUE_DE_COQ: _ClassVar[Step.Technique]
        TECHNIQUE_SUE_DE_COQ: _ClassVar[Step.Technique]
        MULTI_COLORING: _ClassVar[Step.Technique]
        TECHNIQUE_MULTI_COLORING: _ClassVar[Step.Technique]
        GROUPED_AIC: _ClassVar[Step.Technique]
        TECHNIQUE_GROUPED_AIC: _ClassVar[Step.Technique]
        GROUPED_NICE_LOOP: _ClassVar[Step.Technique]
        TECHNIQUE_GROUPED_NICE_LOOP: _ClassVar[Step.Technique]
        ALS_XY_CHAIN: _ClassVar[Step.Technique]
        TECHNIQUE_ALS_XY_CHAIN: _ClassVar[Step.Technique]
        AVOIDABLE_RECTANGLE: _ClassVar[Step.Technique]
        TECHNIQUE_AVOIDABLE_RECTANGLE: _ClassVar[Step.Technique]
        FINNED_FRANKEN_SWORDFISH: _ClassVar[Step.Technique]
        TECHNIQUE_FINNED_FRANKEN_SWORDFISH: _ClassVar[Step.Technique]
    TECHNIQUE_UNSPECIFIED: Step.Technique
    FULL_HOUSE: Step.Technique
    TECHNIQUE_FULL_HOUSE: Step.Technique
    NAKED_SINGLE: Step.Technique
    TECHNIQUE_NAKED_SINGLE: Step.Technique
    HIDDEN_SINGLE: Step.Technique
    TECHNIQUE_HIDDEN_SINGLE: Step.Technique
    POINTING: Step.Technique
    TECHNIQUE_POINTING: Step.Technique
    CLAIMING: Step.Technique
    TECHNIQUE_CLAIMING: Step.Technique
    NAKED_PAIR: Step.Technique
    TECHNIQUE_NAKED_PAIR: Step.Technique
    HIDDEN_PAIR: Step.Technique
    TECHNIQUE_HIDDEN_PAIR: Step.Technique
    NAKED_TRIPLE: Step.Technique
    TECHNIQUE_NAKED_TRIPLE: Step.Technique
    HIDDEN_TRIPLE: Step.Technique
    TECHNIQUE_HIDDEN_TRIPLE: Step.Technique
    X_WING: Step.Technique
    TECHNIQUE_X_WING: Step.Technique
    NAKED_QUAD: Step.Technique
    TECHNIQUE_NAKED_QUAD: Step.Technique
    HIDDEN_QUAD: Step.Technique
    TECHNIQUE_HIDDEN_QUAD: Step.Technique
    SKYSCRAPER: Step.Technique
    TECHNIQUE_SKYSCRAPER: Step.Technique
    TWO_STRING_KITE: Step.Technique
    TECHNIQUE_TWO_STRING_KITE: Step.Technique
    SWORDFISH: Step.Technique
    TECHNIQUE_SWORDFISH: Step.Technique
    XY_WING: Step.Technique
    TECHNIQUE_XY_WING: Step.Technique
    W_WING: Step.Technique
    TECHNIQUE_W_WING: Step.Technique
    FINNED_X_WING: Step.Technique
    TECHNIQUE_FINNED_X_WING: Step.Technique
    SASHIMI_X_WING: Step.Technique
    TECHNIQUE_SASHIMI_X_WING: Step.Technique
    XYZ_WING: Step.Technique
    TECHNIQUE_XYZ_WING: Step.Technique
    SIMPLE_COLORING: Step.Technique
    TECHNIQUE_SIMPLE_COLORING: Step.Technique
    UNIQUE_RECTANGLE: Step.Technique
    TECHNIQUE_UNIQUE_RECTANGLE: Step.Technique
    BUG_PLUS_ONE: Step.Technique
    TECHNIQUE_BUG_PLUS_ONE: Step.Technique
    JELLYFISH: Step.Technique
    TECHNIQUE_JELLYFISH: Step.Technique
    FINNED_SWORDFISH: Step.Technique
    TECHNIQUE_FINNED_SWORDFISH: Step.Technique
    SASHIMI_SWORDFISH: Step.Technique
    TECHNIQUE_SASHIMI_SWORDFISH: Step.Technique
    FINNED_JELLYFISH: Step.Technique
    TECHNIQUE_FINNED_JELLYFISH: Step.Technique
    SASHIMI_JELLYFISH: Step.Technique
    TECHNIQUE_SASHIMI_JELLYFISH: Step.Technique
    X_CHAIN: Step.Technique
    TECHNIQUE_X_CHAIN: Step.Technique
    XY_CHAIN: Step.Technique
    TECHNIQUE_XY_CHAIN: Step.Technique
    AIC: Step.Technique
    TECHNIQUE_AIC: Step.Technique
    NICE_LOOP: Step.Technique
    TECHNIQUE_NICE_LOOP: Step.Technique
    ALS_XZ: Step.Technique
    TECHNIQUE_ALS_XZ: Step.Technique
    ALS_XY_WING: Step.Technique
    TECHNIQUE_ALS_XY_WING: Step.Technique
    FORCING_CHAIN: Step.Technique
    TECHNIQUE_FORCING_CHAIN: Step.Technique
    FORCING_NET: Step.Technique
    TECHNIQUE_FORCING_NET: Step.Technique
    NESTED_FORCING: Step.Technique
    TECHNIQUE_NESTED_FORCING: Step.Technique
    TRIAL: Step.Technique
    TECHNIQUE_TRIAL: Step.Technique
    LOCKED_PAIR: Step.Technique
    TECHNIQUE_LOCKED_PAIR: Step.Technique
    LOCKED_TRIPLE: Step.Technique
    TECHNIQUE_LOCKED_TRIPLE: Step.Technique
    REMOTE_PAIR: Step.Technique
    TECHNIQUE_REMOTE_PAIR: Step.Technique
    TURBOT_FISH: Step.Technique
    TECHNIQUE_TURBOT_FISH: Step.Technique
    EMPTY_RECTANGLE: Step.Technique
    TECHNIQUE_EMPTY_RECTANGLE: Step.Technique
    HIDDEN_RECTANGLE: Step.Technique
    TECHNIQUE_HIDDEN_RECTANGLE: Step.Technique
    SUE_DE_COQ: Step.Technique
    TECHNIQUE_SUE_DE_COQ: Step.Technique
    MULTI_COLORING: Step.Technique
    TECHNIQUE_MULTI_COLORING: Step.Technique
    GROUPED_AIC: Step.Technique
    TECHNIQUE_GROUPED_AIC: Step.Technique
    GROUPED_NICE_LOOP: Step.Technique
    TECHNIQUE_GROUPED_NICE_LOOP: Step.Technique
    ALS_XY_CHAIN: Step.Technique
    TECHNIQUE_ALS_XY_CHAIN: Step.Technique
    AVOIDABLE_RECTANGLE: Step.Technique
    TECHNIQUE_AVOIDABLE_RECTANGLE: Step.Technique
    FINNED_FRANKEN_SWORDFISH: Step.Technique
    TECHNIQUE_FINNED_FRANKEN_SWORDFISH: Step.Technique
    TECHNIQUE_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    ELIMINATIONS_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    DIGITS_FIELD_NUMBER: _ClassVar[int]
    CHAIN_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    technique: Step.Technique
    level: Level
    placement: Candidate
    eliminations: _containers.RepeatedCompositeFieldContainer[Candidate]
    pattern: _containers.RepeatedCompositeFieldContainer[PatternCandidate]
    units: _containers.RepeatedCompositeFieldContainer[Unit]
    digits: _containers.RepeatedScalarFieldContainer[int]
    chain: _containers.RepeatedCompositeFieldContainer[ChainNode]
    variant: int
    reason: str
    def __init__(self, technique: _Optional[_Union[Step.Technique, str]] = ..., level: _Optional[_Union[Level, str]] = ..., placement: _Optional[_Union[Candidate, _Mapping]] = ..., eliminations: _Optional[_Iterable[_Union[Candidate, _Mapping]]] = ..., pattern: _Optional[_Iterable[_Union[PatternCandidate, _Mapping]]] = ..., units: _Optional[_Iterable[_Union[Unit, _Mapping]]] = ..., digits: _Optional[_Iterable[int]] = ..., chain: _Optional[_Iterable[_Union[ChainNode, _Mapping]]] = ..., variant: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class ExplainRequest(_message.Message):
    __slots__ = ("board", "pencil_marks")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PENCIL_MARKS_FIELD_NUMBER: _ClassVar[int]
    board: str
    pencil_marks: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, board: _Optional[str] = ..., pencil_marks: _Optional[_Iterable[int]] = ...) -> None: ...

class ExplainReply(_message.Message):
    __slots__ = ("steps", "solved", "verdict")
    STEPS_FIELD_NUMBER: _ClassVar[int]
    SOLVED_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    steps: _containers.RepeatedCompositeFieldContainer[Step]
    solved: bool
    verdict: CountReply.Verdict
    def __init__(self, steps: _Optional[_Iterable[_Union[Step, _Mapping]]] = ..., solved: _Optional[bool] = ..., verdict: _Optional[_Union[CountReply.Verdict, str]] = ...) -> None: ...

class GradeRequest(_message.Message):
    __slots__ = ("board",)
    BOARD_FIELD_NUMBER: _ClassVar[int]
    board: str
    def __init__(self, board: _Optional[str] = ...) -> None: ...

class TechniqueCount(_message.Message):
    __slots__ = ("technique", "count")
    TECHNIQUE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    technique: Step.Technique
    count: int
    def __init__(self, technique: _Optional[_Union[Step.Technique, str]] = ..., count: _Optional[int] = ...) -> None: ...

class GradeReply(_message.Message):
    __slots__ = ("level", "score", "hardest", "techniques", "verdict", "steps", "solved", "index", "error", "hodoku_level")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    HARDEST_FIELD_NUMBER: _ClassVar[int]
    TECHNIQUES_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    SOLVED_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    HODOKU_LEVEL_FIELD_NUMBER: _ClassVar[int]
    level: Level
    score: int
    hardest: Step.Technique
    techniques: _containers.RepeatedCompositeFieldContainer[TechniqueCount]
    verdict: CountReply.Verdict
    steps: int
    solved: bool
    index: int
    error: ItemError
    hodoku_level: Level
    def __init__(self, level: _Optional[_Union[Level, str]] = ..., score: _Optional[int] = ..., hardest: _Optional[_Union[Step.Technique, str]] = ..., techniques: _Optional[_Iterable[_Union[TechniqueCount, _Mapping]]] = ..., verdict: _Optional[_Union[CountReply.Verdict, str]] = ..., steps: _Optional[int] = ..., solved: _Optional[bool] = ..., index: _Optional[int] = ..., error: _Optional[_Union[ItemError, _Mapping]] = ..., hodoku_level: _Optional[_Union[Level, str]] = ...) -> None: ...

class GradeManyRequest(_message.Message):
    __slots__ = ("boards", "packed_boards")
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    PACKED_BOARDS_FIELD_NUMBER: _ClassVar[int]
    boards: _containers.RepeatedScalarFieldContainer[str]
    packed_boards: bytes
    def __init__(self, boards: _Optional[_Iterable[str]] = ..., packed_boards: _Optional[bytes] = ...) -> None: ...

class GradeManyReply(_message.Message):
    __slots__ = ("grades", "error")
    GRADES_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    grades: _containers.RepeatedCompositeFieldContainer[GradeReply]
    error: ItemError
    def __init__(self, grades: _Optional[_Iterable[_Union[GradeReply, _Mapping]]] = ..., error: _Optional[_Union[ItemError, _Mapping]] = ...) -> None: ...

class GenerateRequest(_message.Message):
    __slots__ = ("level", "count", "seed", "symmetry", "givens")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SYMMETRY_FIELD_NUMBER: _ClassVar[int]
    GIVENS_FIELD_NUMBER: _ClassVar[int]
    level: Level
    count: int
    seed: int
    symmetry: Symmetry
    givens: str
    def __init__(self, level: _Optional[_Union[Level, str]] = ..., count: _Optional[int] = ..., seed: _Optional[int] = ..., symmetry: _Optional[_Union[Symmetry, str]] = ..., givens: _Optional[str] = ...) -> None: ...

class GeneratedPuzzle(_message.Message):
    __slots__ = ("index", "puzzle", "solution", "grade", "seed")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    PUZZLE_FIELD_NUMBER: _ClassVar[int]
    SOLUTION_FIELD_NUMBER: _ClassVar[int]
    GRADE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    index: int
    puzzle: str
    solution: str
    grade: GradeReply
    seed: int
    def __init__(self, index: _Optional[int] = ..., puzzle: _Optional[str] = ..., solution: _Optional[str] = ..., grade: _Optional[_Union[GradeReply, _Mapping]] = ..., seed: _Optional[int] = ...) -> None: ...
