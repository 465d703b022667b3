"""A solve: measure the search, then cut it into frames on the job's stream.

An attempt first runs the search to its end in C to learn its length and
outcome (kept in the job's plan, so a retry cuts the same frames), then, for
a watched solve, replays it and writes a frame per boundary (worker/frames.py)
through a FrameSink (worker/stream.py). The stream's frame 1 is the
service's (sudoku/keys.py HEADER_SEQ); the worker's frames follow it. Cancel is seen
between slices of the measuring and at every flush of frames.

An unwatched solve (VIEW_FINAL) is first a call of a coalesced job
(worker/calls.py), answered by `settled` and `final_frame` within the cheap
lane's step cap; only one that needs more steps is a job of its own here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from redis import Redis
from rq.job import Job

from sudoku import engine, keys
from sudoku.specs import SolveSpec
from sudoku.v1 import sudoku_pb2 as pb
from worker.frames import MAX_LISTED_STEPS, Snapshot, boundaries, finish, search_frame
from worker.run.attempt import Attempt
from worker.stream import FrameSink, write_error

# Steps between looks at the clock, the cancel flag and the fence while
# measuring a search: milliseconds of C (bench/engine.py gives the rate), so
# Cancel and the time limit are honoured well within a second without a
# Redis round trip per step.
MEASURE_SLICE = 400_000

OUTCOMES = {
    "solved": pb.SOLVED,
    "exhausted": pb.EXHAUSTED,
    "gave_up": pb.GAVE_UP,
    "cancelled": pb.CANCELLED,
}


def new_stepper(spec: SolveSpec, max_steps: int | None):
    """The search `spec` asks for, from its start, capped at `max_steps` (None: no cap)."""
    return engine.Stepper(spec.board, strategy=spec.strategy, tie_break=spec.tie_break, seed=spec.seed,
                          max_steps=max_steps)


def run_out(stepper, deadline: float, cancelled: Callable[[], bool] = lambda: False) -> str:
    """Runs the search in slices until it ends, `deadline` (monotonic)
    passes or `cancelled()` says so; returns how it ended (the stepper's
    status, gave_up or cancelled)."""
    while stepper.status == "running":
        if cancelled():
            return "cancelled"
        if time.monotonic() >= deadline:
            return "gave_up"
        stepper.skip(MEASURE_SLICE)
    return stepper.status


def settled(spec: SolveSpec, cap: int | None = None) -> tuple[Any, str] | None:
    """An unwatched solve's search run to its end in one go, within its time
    limit and `cap` steps: the stepper and the outcome; None when the cap,
    below the spec's own max_steps, stopped it first (the service then
    queues the solve as a job of its own)."""
    own = spec.max_steps or None
    capped = cap is not None and (own is None or cap < own)
    stepper = new_stepper(spec, cap if capped else own)
    outcome = run_out(stepper, time.monotonic() + spec.time_limit_ms / 1000)
    if capped and outcome == "gave_up" and stepper.steps >= cap:
        return None
    return stepper, outcome


def final_frame(spec: SolveSpec, stepper, outcome: str) -> pb.Frame:
    """The last frame of an unwatched solve (the worker's first, keys.WORKER_FIRST_SEQ):
    the net change from the starting board, so drawing frame 1 then this one
    gives the final board like any other pair of frames."""
    start = Snapshot(0, 0, 0, 0, -1, spec.board)
    after = Snapshot.of(stepper)
    frame = search_frame(keys.WORKER_FIRST_SEQ, start, after, None, after.steps, True)
    return ended(frame, spec.job_id, stepper, outcome)


def ended(frame: pb.Frame, job_id: str, stepper, outcome: str) -> pb.Frame:
    """Makes `frame` the last of the search `stepper` ended with `outcome`."""
    finish(frame, job_id, OUTCOMES[outcome], stepper.board, stepper.solution, stepper.conflicts)
    if outcome == "cancelled":
        frame.cursor = -1
    return frame


def solve(job: Job, spec: SolveSpec) -> dict[str, Any]:
    """Runs one attempt of the solve `job` and streams its frames; returns its summary."""
    return SolveRun(Attempt.of(job), spec).execute()


def on_failure(job: Job, connection: Redis, exc_type, exc_value) -> None:
    """Ends the stream with an error entry when no retry is left.

    Runs in the worker for an exception and, for a worker that died, in
    whichever process cleaned up the abandoned job.
    """
    if job.retries_left:
        return
    spec = SolveSpec.from_dict(job.args[0])
    name = getattr(exc_type, "__name__", "error")
    message = f"the solve failed on every worker that tried it: {name}: {exc_value}"
    write_error(connection, job.id, "ABORTED", message, spec.stream_ttl_s)


class SolveRun:
    """One attempt at a solve job: measure the search, then frame it."""

    def __init__(self, attempt: Attempt, spec: SolveSpec):
        self.attempt = attempt
        self.redis = attempt.redis
        self.spec = spec
        self.sink = FrameSink(attempt, spec.stream_maxlen, spec.stream_ttl_s, first_seq=keys.WORKER_FIRST_SEQ,
                              unwatched_ttl_seconds=spec.unwatched_ttl_s)
        self.plan_key = keys.plan(spec.job_id)

    def execute(self) -> dict[str, Any]:
        # The time limit counts from this attempt's start: an attempt that
        # takes over from a stalled one gets the whole of it.
        started = time.monotonic()
        total, outcome = self._known_plan()
        if total is None:
            stepper = self._new_stepper()
            outcome = self._measure(stepper, started)
            total = stepper.steps
            if self.spec.view == "final" or outcome == "cancelled":
                return self._end_with(stepper, outcome)
        elif self.spec.view == "final":
            stepper = self._new_stepper()  # a retry: reach the known end again
            stepper.skip(total)
            return self._end_with(stepper, outcome)
        stepper, outcome = self._replay(total, outcome)
        self.sink.close()
        return summary(stepper, outcome, self.sink.next_seq - 1)

    def _end_with(self, stepper, outcome: str) -> dict[str, Any]:
        self._final_frame(stepper, outcome)
        self.sink.close()
        return summary(stepper, outcome, self.sink.next_seq - 1)

    def _known_plan(self) -> tuple[int | None, str]:
        """The search's length and outcome, if an earlier attempt measured them."""
        total, outcome = self.redis.hmget(self.plan_key, ["total", "outcome"])
        if total is None:
            return None, ""
        return int(total), outcome.decode()

    def _new_stepper(self):
        return new_stepper(self.spec, self.spec.max_steps or None)

    def _measure(self, stepper, started: float) -> str:
        """Runs the search to its end; returns how it ended. The length and
        outcome are kept for a retry, which then cuts the same frames."""
        outcome = run_out(stepper, started + self.spec.time_limit_ms / 1000, self.attempt.cancelled)
        if outcome != "cancelled":
            ttl = self.spec.stream_ttl_s + self.spec.time_limit_ms // 1000 + 60
            self.attempt.set_plan(ttl, total=stepper.steps, outcome=outcome)
        return outcome

    def _final_frame(self, stepper, outcome: str) -> None:
        self.sink.add(final_frame(self.spec, stepper, outcome))

    def _add_last(self, frame: pb.Frame, stepper, outcome: str) -> None:
        self.sink.add(ended(frame, self.spec.job_id, stepper, outcome))

    def _replay(self, total: int, outcome: str):
        """Replays the measured search, one frame per boundary; returns the
        stepper at its end and the outcome (cancelled if asked midway)."""
        spec = self.spec
        ends = boundaries(total, spec.duration_ms * spec.fps // 1000, spec.steps_per_frame, spec.max_frames)
        stepper = self._new_stepper()
        if not ends:
            now = Snapshot.of(stepper)
            self._add_last(search_frame(0, now, now, b"", 0, True), stepper, outcome)
            return stepper, outcome
        before = Snapshot.of(stepper)
        for i, end in enumerate(ends):
            seq = self.sink.peek_seq()
            is_last = i == len(ends) - 1
            if seq <= self.sink.written and not is_last:
                stepper.skip(end - stepper.steps)  # a previous attempt wrote it
                self.sink.skip()
                before = Snapshot.of(stepper)
                continue
            events = self._advance(stepper, end)
            after = Snapshot.of(stepper)
            keyframe = is_last or seq % spec.keyframe_every == 0
            frame = search_frame(seq, before, after, events, total, keyframe)
            if is_last:
                self._add_last(frame, stepper, outcome)
            else:
                self.sink.add(frame)
            if self.sink.cancelled and not is_last:
                self._cancel_frame(stepper, total)
                return stepper, "cancelled"
            before = after
        return stepper, outcome

    @staticmethod
    def _advance(stepper, end: int) -> bytes | None:
        count = end - stepper.steps
        if count <= MAX_LISTED_STEPS:
            return stepper.run(count)
        stepper.skip(count)
        return None

    def _cancel_frame(self, stepper, total: int) -> None:
        now = Snapshot.of(stepper)
        frame = search_frame(0, now, now, b"", total, True)
        self._add_last(frame, stepper, "cancelled")


def summary(stepper, outcome: str, last_seq: int) -> dict[str, Any]:
    return {
        "outcome": outcome,
        "steps": stepper.steps,
        "placements": stepper.placements,
        "retractions": stepper.retractions,
        "solutions": stepper.solutions,
        "solution": stepper.solution,
        "conflicts": list(stepper.conflicts),
        "last_seq": last_seq,
    }
