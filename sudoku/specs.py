"""What the service asks a worker to do: the arguments of each RQ job.

Plain dataclasses that travel as JSON (RQ's JSONSerializer), so a job is
readable in Redis and no pickle crosses the wire. The service fills every
field (defaults and ceilings applied); the worker trusts them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from typing import Any


class Spec:
    # Fields are str, int, bool, or lists of them that nothing changes once
    # the spec is made, so a shallow copy will do; dataclasses.asdict's deep
    # walk cost more than the count itself in a CountBatch (thousands of
    # specs a second).
    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, data: dict[str, Any]):
        names = _field_names(cls)
        return cls(**{k: v for k, v in data.items() if k in names})


@functools.cache
def _field_names(cls) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


@dataclass
class SolveSpec(Spec):
    job_id: str
    givens: str  # 81 chars, '.' blank
    entries: str  # 81 chars, '.' blank; fixed like givens
    strategy: str  # "mrv" | "naive"
    tie_break: str  # "rotate" | "first" | "random"
    seed: int
    max_steps: int
    time_limit_ms: int
    view: str  # "final" | "search"
    duration_ms: int = 0
    fps: int = 30
    steps_per_frame: int = 0
    max_frames: int = 20_000  # frames of steps_per_frame grow to stay within it
    keyframe_every: int = 30
    stream_maxlen: int = 20_000
    stream_ttl_s: int = 600
    unwatched_ttl_s: int = 60
    adjustments: list[str] = field(default_factory=list)  # what the service clamped, for frame 1
    # A coalesced solve's request_id: its key and the request's fingerprint,
    # which the worker claims with the stream it writes (worker/calls.py).
    claim_key: str = ""
    claim_print: str = ""

    @property
    def board(self) -> str:
        """Givens and entries on one board: the search fixes both."""
        return "".join(e if e != "." else g for g, e in zip(self.givens, self.entries))


@dataclass
class StepSpec(Spec):
    """A Step call: start a search (board and options) or resume one (snapshot)."""

    board: str  # givens and entries on one board, 81 chars; "" with a snapshot
    strategy: str  # "mrv" | "naive"; "" with a snapshot, which holds it
    tie_break: str  # "rotate" | "first" | "random"; likewise
    seed: int
    snapshot: str  # the engine's snapshot (stepper.h), base64; "" to start
    steps: int  # taken and returned, >= 1
    skip: int  # taken first, not returned
    max_steps: int  # the search's ceiling: it ends GAVE_UP there
    adjustments: list[str] = field(default_factory=list)  # what the service clamped, for the reply


@dataclass
class CountSpec(Spec):
    board: str
    limit: int
    max_steps: int
    time_limit_ms: int
    include_solution: bool = False


@dataclass
class CountManySpec(Spec):
    boards_key: str  # a Redis string of the boards, 81 chars each, concatenated
    limit: int
    max_steps: int  # each
    time_limit_ms: int  # each
    include_solution: bool = False
    call_id: str = ""  # the call whose cancel flag stops the job (keys.cancel)
    budget_ms: int = 0  # the time the call granted the job; 0: no bound


@dataclass
class HintSpec(Spec):
    givens: str
    entries: str
    include_candidates: bool = False
    pencil_marks: list[int] | None = None  # 81 masks, or None for the rules' candidates


@dataclass
class ExplainSpec(Spec):
    board: str
    pencil_marks: list[int] | None = None


@dataclass
class GradeSpec(Spec):
    boards: str  # 81 chars a board, concatenated


@dataclass
class GenerateSpec(Spec):
    level: int  # 1 easy .. 5 extreme
    seeds: list[int]  # one puzzle per seed
    symmetry: str  # "none" | "rotational" | "mirror"
    givens: str  # 81 chars, '.' blank: values every puzzle keeps
