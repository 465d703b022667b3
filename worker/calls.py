"""A coalesced job: the unary calls it carries, each answered on its own.

The service puts calls of one kind and lane into one job (service/jobs/calls.py):
its first calls in its hash, those added later in a stream (keys.calls).
The job answers each in turn: its reply message's bytes, or its error, or
"harder" (an answer the cheap lane's bounds, sudoku/lanes.py, did not
reach: the service sends the call on to the heavy lane), with the worker
time it took (the service's measure of its lane's load), as an entry on
its caller's inbox stream (keys.inbox). Replies go out as they are ready, a
few milliseconds' worth at a time in one round trip, so the first call of a
job does not wait for the last.

A job takes calls while it runs: the service adds them to its stream as
they come, and the job reads them with its replies' round trip, waiting up
to LINGER_MS for more once it has answered all, until it has taken as many
as a job of its lane carries (the service's MAX_CALLS, or HEAVY_MAX_CALLS)
or run TAKES_CALLS_S. Then it closes itself to more
(CLOSE_CALLS, which hands over what came meanwhile) and ends. At a steady
flow of calls one job answers many, and pays a job's own round trips (the
dequeue, its start and its end) once for all of them. It waits long when
nothing else needs its worker: a job queued for a worker of its kind (a
ring: RING in sudoku/scripts.py) cuts the wait short.

Each call keeps its own deadline (one that has passed before its turn is
not run: its caller has been told DEADLINE_EXCEEDED) and cancel (a call
whose caller left is in the job's cancelled set, looked at between calls).
A job retried after its worker died takes the same calls again (its hash
and stream live until it ends) and answers them again; the service keeps
the first answer of each call.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

import hiredis
from redis import Redis
from redis.exceptions import NoScriptError, RedisError, ResponseError
from rq import Queue
from rq.job import Job

from sudoku import connections, keys, scripts, tracing
from sudoku.lanes import CHEAP_GUESSES, CHEAP_LEVEL, CHEAP_SOLVE_STEPS
from sudoku.replies import count_reply, header_frame
from sudoku.specs import CountSpec, ExplainSpec, GradeSpec, HintSpec, SolveSpec
from sudoku.v1 import sudoku_pb2 as pb
from worker import counting, logic, solving, stepping
from worker.grades import grade_board
from worker.hints import NeedsHarder, explain, hint
from worker.run import metrics
from worker.run.attempt import Superseded

log = logging.getLogger("sudoku.worker")
CALLS, ADDED = keys.CALLS_FIELD.encode(), keys.ADDED_FIELD.encode()

# Replies are sent at least this often while a job runs.
FLUSH_EVERY_S = 0.005
# A job takes the calls added while it runs (the service
# adds them as they come: service/jobs/calls.py) until it has run this long,
# or none came for LINGER_MS after its last answer: at a steady flow of calls
# one job answers many, without a job's own round trips for each few. A
# flow of one call every 10 to 40 ms, a backend's between bursts, paid a
# job for each call when the wait was 5 ms: 47 commands a Hint, against 17
# (docs/performance.md). Past its first BUSY_LINGER_MS (the whole wait
# before), a job waiting for the worker ends the wait: it rings (RING in
# sudoku/scripts.py), or is found waiting then (LINGER). So a busy fleet
# waits as it did, and an idle one longer. A worker whose queues are
# unknown (run() called by hand) cannot be rung, and waits BUSY_LINGER_MS.
TAKES_CALLS_S = 1.0
LINGER_MS = 50
BUSY_LINGER_MS = 5
# The queues this process's worker takes jobs from, in order, as
# worker/run/process.py starts it: a job waiting for calls is on the
# lingering list of the workers of those queues (keys.lingering).
WORKER_QUEUES: tuple[str, ...] = ()
# How long a job's stream of added calls outlives the waker's entry, were
# the job to end without closing (it is deleted as the job closes).
ADDED_TTL_S = 7200
# A job's cancelled set is looked at this often at most.
CANCELS_EVERY_S = 0.05
# How long an inbox outlives its last reply when its service instance reads
# nothing (an instance that died: its inbox must not stay).
INBOX_TTL_S = 3600


class Harder(Exception):
    """The call's answer needs more than the cheap lane's bounds."""


class Answer(NamedTuple):
    """A call's reply, with what else its answer writes in the same round
    trip (before the reply, so that a caller who has the reply finds them)
    and its outcome and search steps for the workers' metrics."""

    reply: bytes
    writes: tuple[tuple, ...] = ()
    outcome: str = "ok"
    steps: int = 0


class Refused(Exception):
    """The call's own error, with its status code (a Step position the engine refuses)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def _hint(spec: dict, cheap: bool) -> bytes:
    s = HintSpec.from_dict(spec)
    try:
        reply = hint(s.givens, s.entries, s.include_candidates, s.pencil_marks,
                     max_level=CHEAP_LEVEL if cheap else logic.MAX_LEVEL)
    except NeedsHarder:
        raise Harder() from None
    return pb.HintReply(**reply).SerializeToString()


def _explain(spec: dict, cheap: bool) -> bytes:
    s = ExplainSpec.from_dict(spec)
    try:
        reply = explain(s.board, s.pencil_marks, *((CHEAP_LEVEL, CHEAP_GUESSES) if cheap else ()))
    except NeedsHarder:
        raise Harder() from None
    return pb.ExplainReply(**reply).SerializeToString()


def _grade(spec: dict, cheap: bool) -> bytes:
    s = GradeSpec.from_dict(spec)
    try:
        grade = grade_board(s.boards, *((CHEAP_LEVEL, CHEAP_GUESSES) if cheap else ()))
    except NeedsHarder:
        raise Harder() from None
    return pb.GradeReply(**grade).SerializeToString()


def _count(spec: dict, cheap: bool) -> bytes:
    s = CountSpec.from_dict(spec)
    if cheap and s.max_steps > CHEAP_GUESSES:
        result = counting.count_one(replace(s, max_steps=CHEAP_GUESSES))
        if not result["complete"]:
            raise Harder()
    else:
        result = counting.count_one(s)
    return count_reply(result).SerializeToString()


def _solve(spec: dict, cheap: bool) -> Answer:
    """An unwatched solve: its last frame; its stream (frame 1 and that one)
    is written with the reply, and its request_id claimed for it, so its
    job id, which the caller gets with them, can be watched (and
    cancelled: it has ended) and a retry attaches to it, as to any solve's."""
    s = SolveSpec.from_dict(spec)
    ran = solving.settled(s, CHEAP_SOLVE_STEPS if cheap else None)
    if ran is None:
        raise Harder()
    stepper, outcome = ran
    last = solving.final_frame(s, stepper, outcome).SerializeToString()
    first = header_frame(s, s.adjustments, False).SerializeToString()
    write = ("EVAL", scripts.SOLVED_STREAM.source, 2, keys.frames(s.job_id), s.claim_key, first, last,
             s.unwatched_ttl_s, f"{s.job_id} {s.claim_print}", keys.frames(""))
    return Answer(last, (write,), outcome, stepper.steps)


def _step(spec: dict, cheap: bool) -> bytes:
    try:
        return stepping.answer(spec, cheap)
    except stepping.Heavy:
        raise Harder() from None
    except stepping.BadSnapshot as exc:
        raise Refused("INVALID_ARGUMENT", str(exc)) from None


# What a job of each kind does with a call's spec; "harder" kinds (the heavy
# lane's) take no cheap bounds. Whether a reply may be cached: a count only
# when complete (an incomplete one depends on the time limit and the machine);
# a solve's is never asked to be (its frames carry its own job id).
KINDS: dict[str, Callable[[dict, bool], bytes | Answer]] = {
    "hint": _hint, "explain": _explain, "grade": _grade, "count": _count, "step": _step, "solve": _solve}


def _cacheable(kind: str, reply: bytes) -> bool:
    return kind != "count" or pb.CountReply.FromString(reply).complete


class _Replies:
    """The replies of one job, sent in batches of one round trip."""

    def __init__(self, redis: Redis, inbox: str, cache_ttl_s: int):
        self.redis = redis
        self.inbox = inbox
        self.cache_ttl_s = cache_ttl_s
        self.pending: list[tuple[dict, str, bytes, tuple]] = []  # (fields, cache key, reply, writes)
        self.sent_at = time.monotonic()

    def add(self, fields: dict[str, Any], cache_key: str = "", reply: bytes = b"", writes: tuple = ()) -> None:
        self.pending.append((fields, cache_key, reply, writes))
        if time.monotonic() - self.sent_at >= FLUSH_EVERY_S:
            self.flush()

    def flush(self, *delete: str, then: tuple[tuple, ...] = ()) -> list:
        """Sends the replies so far, deletes `delete` and sends the
        commands `then`, in one round trip; returns then's replies as Redis
        gave them (raises the first that is an error)."""
        commands: list[tuple] = []
        for fields, cache_key, reply, writes in self.pending:
            commands += writes
            commands.append(("XADD", self.inbox, "*", *(part for item in fields.items() for part in item)))
            if cache_key and self.cache_ttl_s:
                commands.append(("SET", cache_key, reply, "EX", self.cache_ttl_s))
        if self.pending:
            commands.append(("EXPIRE", self.inbox, INBOX_TTL_S))
        if delete:
            commands.append(("DEL", *delete))
        commands += then
        answers = _round_trip(self.redis, commands)[len(commands) - len(then):] if commands else []
        self.pending.clear()
        self.sent_at = time.monotonic()
        if answers and isinstance(answers[-1], NoScriptError):  # Redis lost the script (a restart): load it, call again
            self.redis.script_load(scripts.CLOSE_CALLS.source)
            answers[-1] = _round_trip(self.redis, [then[-1]])[0]
        for answer in answers:
            if isinstance(answer, Exception):
                raise answer
        return answers


def _round_trip(redis: Redis, commands: list[tuple]) -> list:
    """The replies to `commands`, sent as one write on a connection of
    `redis`'s pool (an error reply in its place): redis-py's pipeline
    costs more than the few commands a job's replies take."""
    pool = redis.connection_pool
    connection = pool.get_connection()
    try:
        connection.send_packed_command([b"".join(hiredis.pack_command(command) for command in commands)])
        replies: list = []
        for _ in commands:
            try:
                replies.append(connection.read_response())
            except ResponseError as error:
                replies.append(error)
        return replies
    except BaseException:
        connection.disconnect()  # replies may be left unread on it
        raise
    finally:
        pool.release(connection)


def _added(entries) -> tuple[list[bytes], bytes | None]:
    """The calls in entries of a job's added calls (as XRANGE or XREAD gives
    them; the waker's entries and the rings hold none), and the last entry's id (None for no entry)."""
    calls: list[bytes] = []
    for _, fields in entries:
        if isinstance(fields, list):  # from a script: [field, value, ...]
            fields = dict(zip(fields[::2], fields[1::2]))
        if b"c" in fields:
            calls += fields[b"c"].split(b"\n")
    return calls, entries[-1][0] if entries else None


class _Waker:
    """Ends a job's wait for more calls on time.

    Redis ends a blocking read's wait only at a tick of its own (every 100
    ms, at its default hz of 10) when nothing else wakes it: the 5 ms a job
    waits for more calls lasted a tenth of a second when none came, and a
    flow of calls that ended left its worker idle that long, from every kind
    of call at once. So a thread of the worker's process adds a wake entry
    (no call) to the job's stream of added calls when the wait is due to
    end, unless a call ended it first. Its writes go on a connection of the
    pool other than the one blocked. A wake entry that comes late (the wait
    ended meanwhile) only ends the job's next wait early.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._due: tuple[float, int, Redis, str] | None = None  # (when, alarm, client, stream)
        self._alarms = 0
        self._sleeps_until: float | None = None  # the deadline the thread waits for; None: for an alarm
        self._thread: threading.Thread | None = None

    def arm(self, redis: Redis, key: str, after_s: float) -> int:
        """Wakes `key`'s reader in `after_s` unless disarmed first; returns the alarm to disarm."""
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="call-waker", daemon=True)
                self._thread.start()
            self._alarms += 1
            self._due = (time.monotonic() + after_s, self._alarms, redis, key)
            # A thread waiting for an earlier deadline sees this one when it
            # wakes: at a steady flow of calls, arming costs no thread switch.
            if self._sleeps_until is None or self._due[0] < self._sleeps_until:
                self._changed.notify()
            return self._alarms

    def disarm(self, alarm: int) -> None:
        with self._changed:
            if self._due is not None and self._due[1] == alarm:
                self._due = None

    def _run(self) -> None:
        while True:
            with self._changed:
                due = self._due
                left = None if due is None else due[0] - time.monotonic()
                if left is None or left > 0:
                    self._sleeps_until = None if due is None else due[0]
                    self._changed.wait(left)
                    continue
                self._due = None
            _, alarm, redis, key = due
            try:
                _round_trip(redis, [("XADD", key, "*", "w", alarm), ("EXPIRE", key, ADDED_TTL_S)])
            except RedisError:
                pass  # the wait ends at Redis's own tick instead


_WAKER = _Waker()


def calls_of(redis: Redis, job_id: str, fields: dict[bytes, bytes] | None = None) -> tuple[list[bytes], bytes]:
    """The calls of a coalesced job: those in its hash (`fields`, as its
    worker read them at its start, else read now), then those added after;
    and the id of the last added entry read ("0-0" for none)."""
    if fields is None:
        found = redis.hmget(Job.key_for(job_id), keys.CALLS_FIELD, keys.ADDED_FIELD)
        fields = {CALLS: found[0], ADDED: found[1]}
    first = fields.get(CALLS)
    entries = first.split(b"\n") if first else []
    last = b"0-0"
    if int(fields.get(ADDED) or 0):
        added, newest = _added(redis.xrange(keys.calls(job_id)))
        entries += added
        last = newest or last
    return entries, last


class _Calls:
    """The calls of one running job, answered in turn as they come."""

    def __init__(self, redis: Redis, job_id: str, kind: str, cheap: bool, replies: _Replies, waited_s: float):
        self.redis = redis
        self.job_id = job_id
        self.kind = kind
        self.cheap = cheap
        self.answer = KINDS[kind]
        self.replies = replies
        self.cancelled: set[bytes] = set()
        # A cheap job that started at once looks only after CANCELS_EVERY_S of
        # work: its callers had no time to leave, and a look is a round trip of
        # the few milliseconds its calls take. A heavy call, or one that waited,
        # is looked at first.
        self.looked_at = time.monotonic() if cheap and waited_s < CANCELS_EVERY_S else float("-inf")
        self.started_ns = time.time_ns()

    def run(self, entries: list[bytes]) -> None:
        for raw in entries:
            call = json.loads(raw)
            if call["t"] and time.time() * 1000 > call["t"]:
                continue  # its caller was told DEADLINE_EXCEEDED
            if time.monotonic() - self.looked_at >= CANCELS_EVERY_S:
                self.cancelled, self.looked_at = self.redis.smembers(keys.cancelled_calls(self.job_id)), time.monotonic()
            if call["i"].encode() in self.cancelled:
                continue
            trace = call.get("p") if tracing.enabled() else None
            if trace:
                # A call added while the job ran waited until now, the others until the job started.
                waited = self.started_ns if call["q"] <= self.started_ns else time.time_ns()
                tracing.record("queue wait", trace, call["q"], waited, job=self.job_id)
                began = time.time_ns()
            self.replies.add(*_answer(self.answer, self.kind, call, self.cheap))
            if trace:
                tracing.record(self.kind, trace, began, time.time_ns(), job=self.job_id, cheap=self.cheap)


def run(redis: Redis, job_id: str, kind: str, cheap: bool, inbox: str, cache_ttl_s: int,
        fields: dict[bytes, bytes] | None = None, waited_s: float = 0.0, max_calls: int = 1,
        worker_name: str = "", linger_ms: int = LINGER_MS, takes_calls_s: float = TAKES_CALLS_S,
        worker_queues: tuple[str, ...] | None = None) -> None:
    """Answers every call of coalesced job `job_id` (`fields`: its hash, as
    it was when it started, when the worker kept it), which waited
    `waited_s` in its queue; it goes on taking the calls
    added while it runs, up to `max_calls` in all, waiting `linger_ms` at
    most for more (BUSY_LINGER_MS once a job waits for its worker, which
    takes jobs from `worker_queues`, WORKER_QUEUES unless given), for
    `takes_calls_s`; then it closes itself to more (Superseded if another
    attempt runs it now)."""
    entries, last = calls_of(redis, job_id, fields)
    replies = _Replies(redis, inbox, cache_ttl_s)
    calls = _Calls(redis, job_id, kind, cheap, replies, waited_s)
    waiting = _Waiting(redis, keys.calls(job_id), WORKER_QUEUES if worker_queues is None else worker_queues,
                       linger_ms / 1000)
    taken, until, more = len(entries), time.monotonic() + takes_calls_s, True
    while True:
        calls.run(entries)
        if not more or taken >= max_calls:
            break
        entries, last, more = waiting.next_calls(replies, last, until)
        taken += len(entries)
    came = replies.flush(then=(("EVALSHA", scripts.CLOSE_CALLS.sha, 3, Job.key_for(job_id), waiting.key,
                                keys.cancelled_calls(job_id), worker_name, last),))[0]
    if came == -1:
        raise Superseded()
    if came:
        calls.run(_added(came)[0])
        replies.flush(waiting.key, keys.cancelled_calls(job_id))


class _Waiting:
    """A job's waits for more calls, on its stream of added calls (`key`),
    of `linger_s` each, while its worker takes jobs from `queues` (none:
    it cannot be rung, and waits as if a job waited for it)."""

    def __init__(self, redis: Redis, key: str, queues: tuple[str, ...], linger_s: float):
        self.redis = redis
        self.key = key
        self.queues = [Queue.redis_queue_namespace_prefix + name for name in queues]
        # Listed while it waits (or rung at once, when a job waits already),
        # and off the list once the wait ends: a ring finds only a job that waits.
        lingering = keys.lingering(queues) if queues else ""
        self.listed = (("EVAL", scripts.LINGER.source, 2 + len(self.queues), lingering, key, *self.queues),)
        self.unlisted = (("LREM", lingering, 1, key),)
        self.linger_s = linger_s
        self.needed = not queues  # a job waits for this worker: no wait past BUSY_LINGER_MS

    def next_calls(self, replies: _Replies, last: bytes, until: float) -> tuple[list[bytes], bytes, bool]:
        """Sends the replies so far and waits for more calls, up to `until`
        (time.monotonic()) at most: the calls that came (none when the
        wait ended without), the last entry read, and whether to wait
        again after them. The first BUSY_LINGER_MS of a wait are as a wait
        was before it could be rung (a steady flow of calls pays nothing
        for the rest); then the job is listed, and a job waiting for its
        worker ends the wait."""
        now = time.monotonic()
        entries, last, _ = self._read(replies, last, min(until, now + BUSY_LINGER_MS / 1000))
        if entries or self.needed:
            return entries, last, bool(entries)
        until = min(until, now + self.linger_s)
        while True:
            entries, last, rung = self._read(replies, last, until, listed=True)
            if rung and any(_round_trip(self.redis, [("LLEN", queue) for queue in self.queues])):
                self.needed = True  # it has waited BUSY_LINGER_MS already: no more
                return entries, last, False
            if entries or not rung:  # calls came, or the waker's entry: none came
                return entries, last, bool(entries)
            # Another worker took the job that rang: wait on.

    def _read(self, replies: _Replies, last: bytes, until: float, listed: bool = False
              ) -> tuple[list[bytes], bytes, bool]:
        """One wait, up to `until`, listed or not: the calls that came, the
        last entry read, and whether a ring came. A wake entry of an
        earlier wait (its alarm went off as that wait ended by Redis's
        own timeout) does not end this one."""
        while True:
            wait_ms = int((until - time.monotonic()) * 1000)
            if wait_ms <= 0:
                return [], last, False
            listing, unlisting = (self.listed, self.unlisted) if listed else ((), ())
            alarm = _WAKER.arm(self.redis, self.key, wait_ms / 1000)
            try:
                found = replies.flush(then=(*listing, ("XREAD", "BLOCK", wait_ms, "STREAMS", self.key, last),
                                            *unlisting))[len(listing)]
            finally:
                _WAKER.disarm(alarm)
            found = connections.stream_entries(found)
            if not found:
                return [], last, False
            entries, last = _added(found[0][1])
            rung = any(b"y" in fields for _, fields in found[0][1])
            if entries or rung or any(fields.get(b"w") == str(alarm).encode() for _, fields in found[0][1]):
                return entries, last, rung


def _answer(answer, kind: str, call: dict, cheap: bool) -> tuple[dict[str, Any], str, bytes, tuple]:
    """The inbox entry of one call, its reply with its cache key if it may
    be cached, and what else it writes."""
    started = time.monotonic()
    try:
        answered = answer(call["s"], cheap)
    except Harder:
        took = time.monotonic() - started
        metrics.call_ran(kind, "harder", took)
        return {"c": call["i"], "x": "1", "us": int(took * 1e6)}, "", b"", ()
    except Refused as exc:
        metrics.call_ran(kind, "refused", time.monotonic() - started)
        return {"c": call["i"], "e": exc.code, "m": str(exc)}, "", b"", ()
    except ValueError as exc:  # the service checked the call: this is a bug, said as such
        log.exception("a %s call failed", kind)
        metrics.call_ran(kind, "failed", time.monotonic() - started)
        return {"c": call["i"], "e": "INTERNAL", "m": f"the {kind} failed: {exc}"}, "", b"", ()
    took = time.monotonic() - started
    done = answered if isinstance(answered, Answer) else Answer(answered)
    metrics.call_ran(kind, done.outcome, took, done.steps)
    cache_key = call.get("k", "") if _cacheable(kind, done.reply) else ""
    return {"c": call["i"], "r": done.reply, "us": int(took * 1e6)}, cache_key, done.reply, done.writes


def on_failure(job, connection: Redis, exc_type, exc_value, traceback) -> None:
    """RQ failure callback of a coalesced job: when no retry is left, every
    call it carries gets the failure as its error (a call answered already
    keeps its answer: the service takes the first)."""
    if job.retries_left:
        return
    args = job.args[0]
    message = f"the job failed on every worker that tried it: {getattr(exc_type, '__name__', 'error')}: {exc_value}"
    entries, _ = calls_of(connection, job.id)
    with connection.pipeline(transaction=False) as pipe:
        for raw in entries:
            # "f": the job is over, though RQ marks it failed only after this
            # callback: the service must not add the next calls to it.
            pipe.xadd(args["inbox"], {"c": json.loads(raw)["i"], "e": "ABORTED", "m": message, "f": 1})
        pipe.expire(args["inbox"], INBOX_TTL_S)
        pipe.delete(keys.calls(job.id))
        pipe.execute()
