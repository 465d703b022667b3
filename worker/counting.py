"""Counting solutions: one board, a batch of them, or many in C at once.

A lone count (CountSolutions) has its own step cap and time limit. The
boards of a CountBatch or CountMany job also share their call's bounds
(CallWork): the worker time the call granted the job and the call's cancel
flag, so a job stops between boards (or within a long count) when either
says so, and the boards it did not reach are reported uncounted.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from redis import Redis

from sudoku import engine, keys
from sudoku.specs import CountManySpec, CountSpec
from sudoku.v1 import sudoku_pb2 as pb


class BoardsGone(LookupError):
    """A job's boards are not in Redis: a fault the service answers for
    (its call ends UNAVAILABLE and the client sends them again), not a bug."""


class CallWork:
    """The bounds of a batch job (CountBatch, CountMany): the time its call
    granted it, and its call's cancel flag, looked at every CHECK_EVERY_S of
    work (a round trip per look, so not per board). Work stops between
    boards when either says so; the boards left are reported uncounted."""

    CHECK_EVERY_S = 0.05

    def __init__(self, redis: Redis, call_id: str, budget_ms: int):
        self.redis = redis
        self.call_id, self.budget_ms = call_id, budget_ms
        self.cancel_key = keys.cancel(call_id) if call_id else None
        self.started = time.monotonic()
        self.deadline = self.started + budget_ms / 1000 if budget_ms else float("inf")
        self.next_look = self.started
        self.cancelled = False
        self.watcher: threading.Thread | None = None
        self.failure: Exception | None = None  # of the watcher's last look

    def over(self) -> bool:
        """True when the work must stop: the call was cancelled or its grant
        is spent. Raises what a look raised (Redis away): the job fails and
        is retried, as when it cannot write its result."""
        if self.failure is not None:
            raise self.failure
        now = time.monotonic()
        if self.cancelled or now >= self.deadline:
            return True
        if self.watcher is None and now >= self.next_look:
            self._look(now)
        return self.cancelled

    def _look(self, now: float) -> None:
        self.next_look = now + self.CHECK_EVERY_S
        if self.cancel_key:
            self.cancelled = bool(self.redis.exists(self.cancel_key))

    @contextmanager
    def watched(self) -> Iterator[bytearray]:
        """Looks at the bounds from a thread while the work runs, so that it
        never waits for a look's round trip (on a busy machine Redis may
        not answer within a scheduler's time slice); over() then only reads
        what the thread found. Yields a stop flag the thread sets when the
        bounds say stop, for engine.count to read while a long count runs in
        C (it releases the GIL)."""
        stop = bytearray(1)
        done = threading.Event()

        def watch() -> None:
            try:
                while not done.wait(max(0.0, self.next_look - time.monotonic())):
                    self._look(time.monotonic())
                    if self.over():
                        break
            except Exception as exc:  # noqa: BLE001 - raised by over() in the work's thread
                self.failure = exc
            stop[0] = not done.is_set()

        self.watcher = threading.Thread(target=watch, name="bounds", daemon=True)
        self.watcher.start()
        try:
            yield stop
        finally:
            done.set()
            self.watcher.join()
            self.watcher = None

    def report(self, result: dict[str, Any], uncounted: list[int]) -> dict[str, Any]:
        result.update(uncounted=uncounted, cancelled=self.cancelled,
                      work_ms=int((time.monotonic() - self.started) * 1000))
        return result



def count_batch(redis: Redis, batch: dict[str, Any]) -> dict[str, Any]:
    """Counts a CountBatch job's puzzles (batch["specs"], CountSpec dicts)
    within its call's bounds. Returns {"results": one per spec, in order,
    None for one not counted, "uncounted": the positions of those (the call
    was cancelled, or the job's grant ran out first), "cancelled", "work_ms"}."""
    work = CallWork(redis, batch.get("call_id", ""), batch.get("budget_ms", 0))
    results: list[dict[str, Any] | None] = []
    for spec in batch["specs"]:
        result = None if work.over() else count_one(CountSpec.from_dict(spec), work)
        results.append(None if result is None or result.pop("cut") else result)
    return work.report({"results": results}, [i for i, r in enumerate(results) if r is None])



# Boards per C call of count_many at first; the slices grow while they take
# less than CallWork.CHECK_EVERY_S, so that the bounds are looked at a few
# times a second and the calls cost nothing next to the counting.
FIRST_SLICE = 256


def count_many(redis: Redis, s: CountManySpec) -> dict[str, Any]:
    """Counts a CountMany job's boards (at s.boards_key) with the same
    options, a slice of them per C call, within the job's bounds (CallWork).

    Returns {"counts": the counts (a str of digits when limit <= 9, else a
    list), "verdicts": the CountReply.Verdict numbers as a str of digits,
    "incomplete": [positions the cap or time limit stopped], "solutions":
    81 chars a board ('.' * 81 for none), or "", "uncounted": [positions
    the job's bounds stopped first (count 0, or as far as it got)],
    "cancelled", "work_ms"}.
    """
    work = CallWork(redis, s.call_id, s.budget_ms)
    packed = redis.get(s.boards_key)
    if packed is None:
        if work.over():  # the call was cancelled, and its boards deleted with it
            return work.report({"counts": [], "verdicts": "", "incomplete": [], "solutions": ""}, [])
        raise BoardsGone(f"the boards of this job ({s.boards_key}) are gone: they expired, or were lost "
                         "with a Redis restart; send them again")
    n = len(packed) // 81
    cap = min(FIRST_ROUND_GUESSES, s.max_steps)
    counts: list[int] = []
    complete = bytearray()
    parts: list[str] = []
    size = FIRST_SLICE
    with work.watched():
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
