"""Every Redis key and queue name the service and the workers share.

Nothing else builds a key by hand: a reader finds here what lives in Redis,
who writes it and how long it lives.
"""

from __future__ import annotations

PREFIX = "sudoku"

# RQ queues, one per lane (sudoku/lanes.py): jobs whose worst case is
# cheap (the workers kept for interactive calls take only these), the
# expensive ones, and the jobs of batch calls. Workers take them in this
# order, so a generator streaming a million puzzles cannot starve a phone
# waiting for a hint or its first frame.
QUEUE_INTERACTIVE = f"{PREFIX}-interactive"
QUEUE_HEAVY = f"{PREFIX}-heavy"
QUEUE_BATCH = f"{PREFIX}-batch"
QUEUES = (QUEUE_INTERACTIVE, QUEUE_HEAVY, QUEUE_BATCH)


def frames(job_id: str) -> str:
    """Stream of a solve's frames. Entry ids are 0-<seq>, so a reader's
    position is just the last seq it saw. Written by the service (frame 1,
    HEADER_SEQ) and the worker (the rest); capped with MAXLEN; expires
    after the job."""
    return f"{PREFIX}:frames:{job_id}"


# Frame 1 of every stream is the service's: it carries the job's info and
# the starting board (sudoku/replies.py header_frame) and is written with
# the job, in the enqueue's one step (sudoku/scripts.py ENQUEUE), so the
# client has its job id at once and a later Watch reads the job's options
# from it (service/streams/relay.py job_stream). The worker's frames follow it.
HEADER_SEQ = 1
WORKER_FIRST_SEQ = HEADER_SEQ + 1


def frame_id(seq: int) -> str:
    """The stream entry id of frame `seq`."""
    return f"0-{seq}"


def seq_of(entry_id: bytes | str) -> int:
    """The frame seq of a stream entry id."""
    if isinstance(entry_id, bytes):
        entry_id = entry_id.decode()
    return int(entry_id.partition("-")[2])


def watched(job_id: str) -> str:
    """Hash, a field per service instance whose clients are reading the
    job's frames (service/streams/watched.py). A stream that ends with nobody
    reading it expires sooner (worker/stream.py)."""
    return f"{PREFIX}:watched:{job_id}"


def cancel(job_id: str) -> str:
    """Hash set by Cancel: `at` (when, Unix seconds) and, once a stream has
    stopped, `seq` (the furthest frame any open stream had sent: where later
    Watches stop). The worker checks that it exists between slices."""
    return f"{PREFIX}:cancel:{job_id}"


# Stream of cancelled job ids: every service process follows it, to stop its
# open streams of those jobs (service/streams/stops.py). Capped at a few thousand.
CANCELS = f"{PREFIX}:cancels"


def playbacks(job_id: str) -> str:
    """Sorted set of the job's open frame streams, on any service process:
    member a token per stream, score when the entry goes stale (a process
    that died cannot remove its own). Cancel reads it."""
    return f"{PREFIX}:playbacks:{job_id}"


def plan(job_id: str) -> str:
    """Hash of facts a retried job must reuse to replay the same frames:
    the search's length (paced views) and when the first attempt started."""
    return f"{PREFIX}:plan:{job_id}"


def boards(token: str) -> str:
    """The boards of a CountMany job, beside the job rather than in it: RQ
    zlib-compresses a job's data each time it saves the job, which for
    thousands of boards took longer than counting them."""
    return f"{PREFIX}:boards:{token}"


def request(request_id: str) -> str:
    """Maps a client's request_id to its job (idempotent retries)."""
    return f"{PREFIX}:request:{request_id}"


def calls(job_id: str) -> str:
    """Stream of the calls added to a coalesced job after it was queued, an
    entry per round trip of the service's (its first calls are in its hash:
    CALLS_FIELD). It lives until the job ends, so a retried attempt answers
    the same calls."""
    return f"{PREFIX}:calls:{job_id}"


# The fields of a coalesced job's hash beside RQ's own: its first calls,
# newline-separated, how many they are, how many were added since
# (keys.calls), and whether it has closed to more (worker/calls.py); the
# worker reads them with the hash as the job starts.
CALLS_FIELD = "sudoku_calls"
CALLS_COUNT_FIELD = "sudoku_calls_n"
ADDED_FIELD = "sudoku_calls_added"
CLOSED_FIELD = "sudoku_calls_closed"


def lingering(queues: tuple[str, ...] | list[str]) -> str:
    """List of the added calls (keys.calls) of coalesced jobs waiting for
    more calls on workers that take jobs from `queues` (the queue names of
    one kind of worker, in order): a job queued on one of them rings the
    oldest, whose wait it cuts short (RING in sudoku/scripts.py)."""
    return f"{PREFIX}:lingering:{'+'.join(queues)}"


def lingering_for(queue: str) -> tuple[str, str]:
    """The lingering lists (keys.lingering) a job queued on `queue` asks a
    worker of, in order: the interactive workers' (sudoku/lanes.py) for a
    job they take, then the general workers' ("" for none)."""
    general = lingering(QUEUES)
    return (lingering((QUEUE_INTERACTIVE,)), general) if queue == QUEUE_INTERACTIVE else (general, "")


def cancelled_calls(job_id: str) -> str:
    """Set of the calls of a coalesced job whose callers left before their
    answer: its worker skips them."""
    return f"{PREFIX}:cancelled-calls:{job_id}"


def inbox(instance: str) -> str:
    """Stream of the replies to a service instance's calls, written by the
    workers (an entry per call: its id, and its reply's bytes or its error)
    and trimmed by the instance as it reads them (service/jobs/inbox.py)."""
    return f"{PREFIX}:inbox:{instance}"


def cache(digest: str) -> str:
    """A cached count or hint reply, keyed by the normalised request."""
    return f"{PREFIX}:cache:{digest}"


def result(job_id: str) -> str:
    """RQ's own result stream for a job (rq.results.Result.get_key)."""
    from rq.results import Result

    return Result.get_key(job_id)


# String, no expiry: the random key that signs Step positions when
# SUDOKU_POSITION_KEY is unset. Written once by whichever service instance
# comes first (SET NX) and read back by every instance (service/streams/positions.py),
# which writes its own again if a restarted Redis has none.
POSITION_KEY = f"{PREFIX}:position-key"

MAINTENANCE_LOCK = f"{PREFIX}:maintenance-lock"
# A worker waiting for a full Redis to take writes again writes this, with
# a TTL of a second, to see whether it does (worker/run/readiness.py).
WRITE_PROBE = f"{PREFIX}:write-probe"

# Sorted set: every job the service queued, scored by when (worker/run/recovery.py).
PENDING = f"{PREFIX}:pending"
# Hash: jobs found queued yet on no queue, and when (worker/run/recovery.py).
SUSPECTS = f"{PREFIX}:lost-suspects"


def hub_wake(token: str) -> str:
    """A service process's private stream, written to wake its own blocked
    XREAD when a reader starts waiting on a stream it does not cover yet."""
    return f"{PREFIX}:hub:{token}"
