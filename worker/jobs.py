"""The RQ job functions: what a worker does for solve, count and hint.

Each takes a spec from sudoku.specs (as a dict: jobs travel as JSON) and
returns a JSON-able dict, which RQ stores as the job's result. A solve also
writes its frames to the job's Redis stream (stream.py) as it goes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
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
from worker.attempt import Attempt
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


def solve(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: run one solve and stream its frames."""
    job = get_current_job()
    assert job is not None, "solve runs inside an RQ job"
    return SolveRun(Attempt.of(job), SolveSpec.from_dict(spec)).execute()


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

    def __init__(self, attempt: Attempt, spec: SolveSpec):
        self.attempt = attempt
        self.redis = attempt.redis
        self.spec = spec
        self.sink = FrameSink(attempt, spec.stream_maxlen, spec.stream_ttl_s, first_seq=FIRST_WORKER_SEQ,
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
        spec = self.spec
        return engine.Stepper(
            spec.board,
            strategy=spec.strategy,
            tie_break=spec.tie_break,
            seed=spec.seed,
            max_steps=spec.max_steps or None,
        )

    def _measure(self, stepper, started: float) -> str:
        """Runs the search to its end; returns how it ended. The length and
        outcome are kept for a retry, which then cuts the same frames."""
        deadline = started + self.spec.time_limit_ms / 1000
        outcome = "gave_up"
        while stepper.status == "running":
            if self.attempt.cancelled():
                outcome = "cancelled"
                break
            if time.monotonic() >= deadline:
                break
            stepper.skip(MEASURE_SLICE)
        else:
            outcome = stepper.status
        if outcome != "cancelled":
            ttl = self.spec.stream_ttl_s + self.spec.time_limit_ms // 1000 + 60
            self.attempt.set_plan(ttl, total=stepper.steps, outcome=outcome)
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


def count(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: count one puzzle's solutions."""
    return count_one(CountSpec.from_dict(spec))


class CallWork:
    """The bounds of a batch job (CountBatch, CountMany): the time its call
    granted it, and its call's cancel flag, looked at every CHECK_EVERY_S of
    work (a round trip per look, so not per board). Work stops between
    boards when either says so; the boards left are reported uncounted."""

    CHECK_EVERY_S = 0.05

    def __init__(self, redis: Redis, call_id: str, budget_ms: int):
        self.redis = redis
        self.cancel_key = keys.cancel(call_id) if call_id else None
        self.started = time.monotonic()
        self.deadline = self.started + budget_ms / 1000 if budget_ms else float("inf")
        self.next_look = self.started
        self.cancelled = False

    def over(self) -> bool:
        """True when the work must stop: the call was cancelled or its grant is spent."""
        now = time.monotonic()
        if self.cancelled or now >= self.deadline:
            return True
        if self.cancel_key and now >= self.next_look:
            self.next_look = now + self.CHECK_EVERY_S
            self.cancelled = bool(self.redis.exists(self.cancel_key))
        return self.cancelled

    @contextmanager
    def watched(self) -> Iterator[bytearray]:
        """A stop flag for engine.count, set by a thread that looks at the
        bounds while a long count runs in C (it releases the GIL)."""
        stop = bytearray(1)
        done = threading.Event()

        def watch() -> None:
            while not done.wait(self.CHECK_EVERY_S):
                if self.over():
                    stop[0] = 1
                    return

        watcher = threading.Thread(target=watch, name="bounds", daemon=True)
        watcher.start()
        try:
            yield stop
        finally:
            done.set()
            watcher.join()

    def report(self, result: dict[str, Any], uncounted: list[int]) -> dict[str, Any]:
        result.update(uncounted=uncounted, cancelled=self.cancelled,
                      work_ms=int((time.monotonic() - self.started) * 1000))
        return result


def count_batch(batch: dict[str, Any]) -> dict[str, Any]:
    """RQ job: count many puzzles. Returns {"results": one per spec, in
    order, None for one not counted, "uncounted": the positions of those
    (the call was cancelled, or the job's grant ran out first),
    "cancelled", "work_ms"}."""
    job = get_current_job()
    assert job is not None, "count_batch runs inside an RQ job"
    work = CallWork(job.connection, batch.get("call_id", ""), batch.get("budget_ms", 0))
    results: list[dict[str, Any] | None] = []
    for spec in batch["specs"]:
        result = None if work.over() else count_one(CountSpec.from_dict(spec), work)
        results.append(None if result is None or result.pop("cut") else result)
    return work.report({"results": results}, [i for i, r in enumerate(results) if r is None])


# Boards per C call of count_many at first; the slices grow while they take
# less than CallWork.CHECK_EVERY_S, so that the bounds are looked at a few
# times a second and the calls cost nothing next to the counting.
FIRST_SLICE = 256


def count_many(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: count many boards with the same options, a slice of them per
    C call, within the job's bounds (CallWork).

    Returns {"counts": the counts (a str of digits when limit <= 9, else a
    list), "verdicts": the CountReply.Verdict numbers as a str of digits,
    "incomplete": [positions the cap or time limit stopped], "solutions":
    81 chars a board ('.' * 81 for none), or "", "uncounted": [positions
    the job's bounds stopped first (count 0, or as far as it got)],
    "cancelled", "work_ms"}.
    """
    s = CountManySpec.from_dict(spec)
    job = get_current_job()
    assert job is not None, "count_many runs inside an RQ job"
    work = CallWork(job.connection, s.call_id, s.budget_ms)
    packed = job.connection.get(s.boards_key)
    if packed is None:
        if work.over():  # the call was cancelled, and its boards deleted with it
            return work.report({"counts": [], "verdicts": "", "incomplete": [], "solutions": ""}, [])
        raise LookupError(f"the boards of this job ({s.boards_key}) are gone: they expired, or were lost "
                          "with a Redis restart; send them again")
    n = len(packed) // 81
    cap = min(FIRST_ROUND_GUESSES, s.max_steps)
    counts: list[int] = []
    complete = bytearray()
    parts: list[str] = []
    size = FIRST_SLICE
    while len(counts) < n and not work.over():
        start = len(counts)
        began = time.monotonic()
        found, done, first = engine.count_many(packed[start * 81 : (start + size) * 81], s.limit, cap,
                                               s.include_solution)
        counts += found
        complete += done
        parts.append(first or "")
        if time.monotonic() - began < CallWork.CHECK_EVERY_S / 2:
            size *= 2
    uncounted = list(range(len(counts), n))  # the boards no slice reached
    counts += [0] * len(uncounted)
    complete += bytes(len(uncounted))
    solutions = "".join(parts) + ("." * 81 * len(uncounted) if s.include_solution else "")
    incomplete = []
    position = complete.find(0)
    while position >= 0 and position < n - len(uncounted):
        # The rare board the first round's cap stopped gets the rounds of a
        # lone count, within its own time limit and the job's bounds.
        at = slice(position * 81, position * 81 + 81)
        board = packed[at].decode("ascii")
        spec_ = CountSpec(board, s.limit, s.max_steps, s.time_limit_ms)
        counts[position], done, cut = _count_in_time(spec_, work)
        if cut:
            uncounted.append(position)
        elif not done:
            incomplete.append(position)
        if solutions and counts[position] and solutions[at][0] == ".":
            solutions = solutions[: at.start] + engine.solve(board) + solutions[at.stop :]
        position = complete.find(0, position + 1)
    result = {
        "counts": _digits(counts) if s.limit <= 9 else counts,
        "verdicts": _verdict_digits(counts, incomplete + uncounted, s.limit),
        "incomplete": sorted(incomplete + uncounted),
        "solutions": solutions,
    }
    return work.report(result, sorted(uncounted))


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


def count_one(spec: CountSpec, work: CallWork | None = None) -> dict[str, Any]:
    """The count's reply; with `work` (a batch job), also "cut": whether the
    job's bounds stopped it before its own limits did."""
    found, complete, cut = _count_in_time(spec, work)
    result: dict[str, Any] = {"count": found, "complete": complete, "verdict": verdict(found, complete, spec.limit)}
    if work is not None:
        result["cut"] = cut
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


def _count_in_time(spec: CountSpec, work: CallWork | None = None) -> tuple[int, bool, bool]:
    """(found, complete, cut): cut when the batch job's bounds (`work`)
    stopped the count before its own cap and time limit did."""
    start = time.monotonic()
    own_deadline = start + spec.time_limit_ms / 1000
    deadline = own_deadline if work is None else min(own_deadline, work.deadline)
    cap = min(FIRST_ROUND_GUESSES, spec.max_steps)
    first_round = True
    while True:
        if work is None or first_round:
            found, complete = engine.count(spec.board, limit=spec.limit, max_steps=cap)
        else:  # a long round: stopped within a fraction of a second if the call ends
            with work.watched() as stop:
                found, complete = engine.count(spec.board, limit=spec.limit, max_steps=cap, stop=stop)
        first_round = False
        now = time.monotonic()
        cut = not complete and work is not None and (work.over() or (now >= deadline and deadline < own_deadline))
        if complete or cut or cap >= spec.max_steps or now >= deadline:
            return found, complete, cut
        rate = cap / max(now - start, 1e-6)
        bigger = min(spec.max_steps, int(rate * (deadline - now)))
        if bigger <= cap:  # a longer round could not finish in time
            return found, complete, deadline < own_deadline and work is not None
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
