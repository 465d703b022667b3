"""Faults the tests inject from inside a worker (rq keeps such code in its
tests/fixtures.py; here the name says what it holds): production code
carries no test hooks.

The session's workers run FaultyWorker (SUDOKU_WORKER_CLASS takes a dotted
path), which is the production SudokuWorker except for solves whose seed is
one of those below (POISON_SEED's also as a call of a coalesced job: an
unwatched solve), and coalesced jobs carrying KILL_AFTER_A_REPLY or
STALL_BEFORE_A_REPLY.
Worker processes can import this module because the
tests run from the repository's root, which `python -m worker.run.process`
puts on sys.path.
"""

from __future__ import annotations

import os
import signal

import worker.calls
import worker.run.classes
import worker.run.recovery
import worker.solving
from worker.run.attempt import Attempt
from worker.run.classes import SudokuWorker
from worker.stream import FrameSink

FAULTY_WORKER = f"{__name__}.FaultyWorker"

# A solve with this seed kills its worker (SIGKILL), every time: the poison job.
POISON_SEED = 0xDEAD_BEEF
# A solve with one of these seeds stops its worker (SIGSTOP) at that point
# of its first attempt; a test continues it (SIGCONT) when it likes.
STALL_WHILE_MEASURING = 0x57A1_0001  # at the first look at the cancel flag
STALL_MID_REPLAY = 0x57A1_0002  # after some frames were written
STALL_BEFORE_LAST_FRAMES = 0x57A1_0003  # as it writes the last frames
STALL_BEFORE_RESULT = 0x57A1_0004  # as it records the job's result
STALLS = (STALL_WHILE_MEASURING, STALL_MID_REPLAY, STALL_BEFORE_LAST_FRAMES, STALL_BEFORE_RESULT)
# A coalesced job carrying a Hint of this board (the last of tests/data's
# top1465 sample), among its first calls or those added while it ran, kills
# its worker (SIGKILL) on its first attempt, right after its next reply went out.
KILL_AFTER_A_REPLY = "....7...1..6.....5......4...9....5..6.81.5..........8731..9....76..2....2..31...9"
# A coalesced job meeting a Hint of this board (KILL_AFTER_A_REPLY
# transposed) stops its worker (SIGSTOP) on its first attempt, before it
# answers the call, having made its heartbeat last an hour: the job stays
# its worker's until a test continues it (SIGCONT), however long the test.
STALL_BEFORE_A_REPLY = "....6.372...9..16..6..8........1...37.....921....5......45..........8...15...7..9"
_worker = None  # the FaultyWorker of this process, while it runs a job
# A test that leaves a job off its queue on purpose (as a stopped worker's
# BLPOP does) keeps worker/run/recovery.py from queueing it again.
if os.environ.get("SUDOKU_TEST_RECOVERY_GRACE_S"):
    worker.run.recovery.GRACE = float(os.environ["SUDOKU_TEST_RECOVERY_GRACE_S"])


def _seed(job) -> int | None:
    spec = job.args[0] if job.args else None
    return spec.get("seed") if isinstance(spec, dict) else None


def _stall_first_attempt(redis, job_id: str) -> None:
    """SIGSTOPs this worker, unless an attempt of the job stalled already."""
    if redis.set(f"test:stalled:{job_id}", os.getpid(), nx=True, ex=600):
        os.kill(os.getpid(), signal.SIGSTOP)


class _StallingAttempt(Attempt):
    def cancelled(self) -> bool:
        _stall_first_attempt(self.redis, self.job_id)
        return super().cancelled()


class _StallingSink(FrameSink):
    stall_at = "close"
    flushes = 0

    def flush(self) -> bool:
        self.flushes += 1
        if self.stall_at == "flush" and self.flushes == 2:
            _stall_first_attempt(self.redis, self.attempt.job_id)
        return super().flush()

    def close(self) -> None:
        if self.stall_at == "close":
            _stall_first_attempt(self.redis, self.attempt.job_id)
        super().close()


def _kill_after_a_reply() -> None:
    """From now on this process sends each reply of a coalesced job at once, and dies after the first."""
    flush = worker.calls._Replies.flush

    def flush_and_die(self, *delete: str, then=()):
        sent = bool(self.pending)
        answer = flush(self, *delete, then=then)
        if sent:
            os.kill(os.getpid(), signal.SIGKILL)
        return answer

    worker.calls.FLUSH_EVERY_S = 0
    worker.calls._Replies.flush = flush_and_die


_answer_calls = worker.calls._Calls.run


def _answer_calls_or_die(self, entries: list[bytes]) -> None:
    """Calls of a coalesced job, the job's first or added while it ran: the
    first attempt to meet KILL_AFTER_A_REPLY dies after its next reply, the
    first to meet STALL_BEFORE_A_REPLY stalls."""
    if any(STALL_BEFORE_A_REPLY.encode() in entry for entry in entries) and _worker is not None:
        worker.run.classes.HEARTBEAT_TTL = 3600
        _worker._beat()
        _stall_first_attempt(self.redis, self.job_id)
    if any(KILL_AFTER_A_REPLY.encode() in entry for entry in entries) and self.redis.set(
            f"test:killed:{self.job_id}", b"\n".join(entries), nx=True, ex=600):
        _kill_after_a_reply()
    _answer_calls(self, entries)


worker.calls._Calls.run = _answer_calls_or_die
_solve_call = worker.calls.KINDS["solve"]


def _solve_call_or_die(spec: dict, cheap: bool):
    """An unwatched solve, answered in a coalesced job: the poison one kills its worker."""
    if spec.get("seed") == POISON_SEED:
        os.kill(os.getpid(), signal.SIGKILL)
    return _solve_call(spec, cheap)


worker.calls.KINDS["solve"] = _solve_call_or_die


class FaultyWorker(SudokuWorker):
    def run_job(self, job, queue, execution) -> bool:
        global _worker
        _worker = self
        seed = _seed(job)
        if seed == POISON_SEED:
            os.kill(os.getpid(), signal.SIGKILL)
        if seed not in (STALL_WHILE_MEASURING, STALL_MID_REPLAY, STALL_BEFORE_LAST_FRAMES):
            return super().run_job(job, queue, execution)
        if seed == STALL_WHILE_MEASURING:
            worker.solving.Attempt = _StallingAttempt
        else:
            _StallingSink.stall_at = "flush" if seed == STALL_MID_REPLAY else "close"
            worker.solving.FrameSink = _StallingSink
        try:
            return super().run_job(job, queue, execution)
        finally:
            worker.solving.Attempt, worker.solving.FrameSink = Attempt, FrameSink

    def handle_job_success(self, job, queue, started_job_registry, execution):
        if _seed(job) == STALL_BEFORE_RESULT:
            _stall_first_attempt(self.connection, job.id)
        return super().handle_job_success(job, queue, started_job_registry, execution)
