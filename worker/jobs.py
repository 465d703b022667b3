"""The RQ job functions: what a worker does for solve, count and hint.

Each takes a spec from sudoku.specs (as a dict: jobs travel as JSON) and
returns a JSON-able dict, which RQ stores as the job's result. A solve also
writes its frames to the job's Redis stream (stream.py) as it goes.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from redis import Redis
from rq import get_current_job

from sudoku import keys
from sudoku.specs import CountManySpec, CountSpec, ExplainSpec, GenerateSpec, GradeSpec, HintSpec, SolveSpec
from sudoku.v1 import sudoku_pb2 as pb
from worker import engine
from worker.frames import (
    FIRST_WORKER_SEQ,
    MAX_LISTED_STEPS,
    Snapshot,
    boundaries,
    finish,
    search_frame,
)
from worker.stream import FrameSink, write_error

# Steps between looks at the clock and the cancel flag while measuring a
# search: about 20 ms of C at full speed, so Cancel and the time limit are
# honoured well within a second without a Redis round trip per step.
MEASURE_SLICE = 400_000

OUTCOMES = {
    "solved": pb.SOLVED,
    "exhausted": pb.EXHAUSTED,
    "gave_up": pb.GAVE_UP,
    "cancelled": pb.CANCELLED,
}


# Test-only: with SUDOKU_TEST_HOOKS=1 in a worker's environment, a solve
# with this seed kills its worker, every time: the poison job of
# tests/test_faults.py. Without the variable the seed is an ordinary seed.
POISON_SEED = 0xDEAD_BEEF


def solve(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: run one solve and stream its frames."""
    job = get_current_job()
    assert job is not None, "solve runs inside an RQ job"
    solve_spec = SolveSpec.from_dict(spec)
    if solve_spec.seed == POISON_SEED and os.environ.get("SUDOKU_TEST_HOOKS") == "1":
        os.kill(os.getpid(), signal.SIGKILL)
    return SolveRun(job.connection, solve_spec).execute()


def on_solve_failure(job, connection: Redis, exc_type, exc_value, traceback) -> None:
    """RQ failure callback: end the stream when no retry is left.

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

    def __init__(self, redis: Redis, spec: SolveSpec):
        self.redis = redis
        self.spec = spec
        self.sink = FrameSink(
            redis, spec.job_id, spec.stream_maxlen, spec.stream_ttl_s, first_seq=FIRST_WORKER_SEQ
        )
        self.plan_key = keys.plan(spec.job_id)

    def execute(self) -> dict[str, Any]:
        started = self._started_at()
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
        spec = self.spec
        return engine.Stepper(
            spec.board,
            strategy=spec.strategy,
            tie_break=spec.tie_break,
            seed=spec.seed,
            max_steps=spec.max_steps or None,
        )

    def _started_at(self) -> float:
        # A retried job keeps the first attempt's clock and search length, so
        # its time limit is not reset and its frames are cut the same way.
        with self.redis.pipeline() as pipe:
            pipe.hsetnx(self.plan_key, "started", repr(time.time()))
            pipe.hget(self.plan_key, "started")
            pipe.expire(self.plan_key, self.spec.stream_ttl_s + self.spec.time_limit_ms // 1000 + 60)
            _, started, _ = pipe.execute()
        return float(started)

    def _measure(self, stepper, started: float) -> str:
        """Runs the search to its end; returns how it ended."""
        deadline = started + self.spec.time_limit_ms / 1000
        outcome = "gave_up"
        while stepper.status == "running":
            if self.redis.exists(keys.cancel(self.spec.job_id)):
                outcome = "cancelled"
                break
            if time.time() >= deadline:
                break
            stepper.skip(MEASURE_SLICE)
        else:
            outcome = stepper.status
        if outcome != "cancelled":
            self.redis.hset(self.plan_key, mapping={"total": stepper.steps, "outcome": outcome})
        return outcome

    def _final_frame(self, stepper, outcome: str) -> None:
        # The net change from the starting board, so drawing frame 1 then
        # this one gives the final board like any other pair of frames.
        start = Snapshot(0, 0, 0, 0, -1, self.spec.board)
        after = Snapshot.of(stepper)
        self._add_last(search_frame(0, start, after, None, after.steps, True), stepper, outcome)

    def _add_last(self, frame: pb.Frame, stepper, outcome: str) -> None:
        finish(
            frame,
            self.spec.job_id,
            OUTCOMES[outcome],
            stepper.board,
            stepper.solution,
            stepper.conflicts,
        )
        if outcome == "cancelled":
            frame.cursor = -1
        self.sink.add(frame)

    def _replay(self, total: int, outcome: str):
        """Replays the measured search, one frame per boundary; returns the
        stepper at its end and the outcome (cancelled if asked midway)."""
        spec = self.spec
        ends = boundaries(total, spec.duration_ms * spec.fps // 1000, spec.steps_per_frame)
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


def count(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: count one puzzle's solutions."""
    return count_one(CountSpec.from_dict(spec))


def count_batch(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """RQ job: count many puzzles; one result per spec, in order."""
    return [count_one(CountSpec.from_dict(s)) for s in specs]


def count_many(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: count many boards with the same options, in one C call.

    Returns {"counts": the counts (a str of digits when limit <= 9, else a
    list), "verdicts": the CountReply.Verdict numbers as a str of digits,
    "incomplete": [positions the cap or time limit stopped], "solutions":
    81 chars a board ('.' * 81 for none), or ""}.
    """
    s = CountManySpec.from_dict(spec)
    job = get_current_job()
    assert job is not None, "count_many runs inside an RQ job"
    packed = job.connection.get(s.boards_key)
    if packed is None:
        raise LookupError(f"the boards of this job ({s.boards_key}) have expired")
    cap = min(FIRST_ROUND_GUESSES, s.max_steps)
    counts, complete, first = engine.count_many(packed, s.limit, cap, s.include_solution)
    solutions = first or ""
    incomplete = []
    position = complete.find(0)
    while position >= 0:
        # The rare board the first round's cap stopped gets the rounds of a
        # lone count, within its own time limit.
        at = slice(position * 81, position * 81 + 81)
        board = packed[at].decode("ascii")
        counts[position], done = _count_in_time(CountSpec(board, s.limit, s.max_steps, s.time_limit_ms))
        if not done:
            incomplete.append(position)
        if solutions and counts[position] and solutions[at][0] == ".":
            solutions = solutions[: at.start] + engine.solve(board) + solutions[at.stop :]
        position = complete.find(0, position + 1)
    return {
        "counts": _digits(counts) if s.limit <= 9 else counts,
        "verdicts": _verdict_digits(counts, incomplete, s.limit),
        "incomplete": incomplete,
        "solutions": solutions,
    }


# Lists of thousands of small numbers travel as strings of digits: RQ keeps
# results as JSON, and decoding a list costs the service ten times more.
_DIGITS = bytes.maketrans(bytes(range(10)), b"0123456789")


def _digits(numbers: list[int]) -> str:
    """Numbers 0-9 as a str of one digit each."""
    return bytes(numbers).translate(_DIGITS).decode("ascii")


def _verdict_digits(counts: list[int], incomplete: list[int], limit: int) -> str:
    """The CountReply.Verdict numbers (0-4) as digits."""
    number = pb.CountReply.Verdict.Value
    by_count = bytes(number(verdict(found, True, limit)) for found in range(256))
    small = bytes(counts) if limit <= 255 else bytes(min(found, 255) for found in counts)
    verdicts = bytearray(small.translate(by_count))
    for position in incomplete:
        verdicts[position] = number(verdict(counts[position], False, limit))
    return _digits(verdicts)


def count_one(spec: CountSpec) -> dict[str, Any]:
    found, complete = _count_in_time(spec)
    result: dict[str, Any] = {"count": found, "complete": complete, "verdict": verdict(found, complete, spec.limit)}
    if found == 0 and complete:
        result["conflicts"] = list(engine.Stepper(spec.board).conflicts)
    if spec.include_solution and found:
        result["solution"] = engine.solve(spec.board)
    return result


# The fast path has no clock (a clock read per guess would cost more than
# the guess). A time limit is honoured by counting with a guess cap first,
# then, if that was not enough, once more with the largest cap the
# measured rate says will end by the deadline. Almost every puzzle
# completes in the first round.
FIRST_ROUND_GUESSES = 20_000


def _count_in_time(spec: CountSpec) -> tuple[int, bool]:
    start = time.monotonic()
    deadline = start + spec.time_limit_ms / 1000
    cap = min(FIRST_ROUND_GUESSES, spec.max_steps)
    while True:
        found, complete = engine.count(spec.board, limit=spec.limit, max_steps=cap)
        now = time.monotonic()
        if complete or cap >= spec.max_steps or now >= deadline:
            return found, complete
        rate = cap / max(now - start, 1e-6)
        bigger = min(spec.max_steps, int(rate * (deadline - now)))
        if bigger <= cap:  # a longer round could not finish in time
            return found, complete
        cap, start = bigger, now


def verdict(found: int, complete: bool, limit: int) -> str:
    """UNIQUE / MULTIPLE / NONE / UNKNOWN for a count up to `limit` (>= 2)."""
    if limit < 2:
        return "VERDICT_UNSPECIFIED"
    if found >= 2:
        return "MULTIPLE"
    if not complete:
        return "UNKNOWN"
    return "UNIQUE" if found == 1 else "NONE"


def hint(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: a hint for a player's board (see worker.hints)."""
    from worker.hints import hint as make_hint

    s = HintSpec.from_dict(spec)
    return make_hint(s.givens, s.entries, s.include_candidates, s.pencil_marks)


def explain(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: the whole logical solution of a board (see worker.hints.explain)."""
    from worker.hints import explain as make_explain

    s = ExplainSpec.from_dict(spec)
    return make_explain(s.board, s.pencil_marks)


def grade(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: grade boards (81 chars each, concatenated), in one C call.

    Returns {"grades": a sudoku.v1.GradeReply in protobuf JSON form per board}.
    """
    from worker.grades import grade_boards

    return {"grades": grade_boards(GradeSpec.from_dict(spec).boards)}


def generate(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: one puzzle per seed (worker.generate).

    Returns {"puzzles": GeneratedPuzzle dicts, in seed order}, or
    {"error": why} when a seed found no puzzle of the level.
    """
    from worker.generate import NoPuzzle, generate as make

    s = GenerateSpec.from_dict(spec)
    keep = s.givens if s.givens.strip(".") else None
    try:
        return {"puzzles": [make(seed, s.level, s.symmetry, keep) for seed in s.seeds]}
    except NoPuzzle as exc:
        return {"error": str(exc)}
