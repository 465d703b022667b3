"""Appending a job's frames to its Redis stream.

Entry ids are ``0-<seq>``, so the stream itself says which frames exist and
a reader resumes from the last seq it saw. A retried job regenerates the
same frames and writes only those past the stream's last entry: the client
sees neither a gap nor a repeat. Every append is fenced (worker/run/attempt.py):
an attempt that was superseded while it stalled writes nothing more.
"""

from __future__ import annotations

import json
import time

from redis import Redis

from sudoku import keys, scripts
from sudoku.v1 import sudoku_pb2 as pb
from worker.run.attempt import Attempt

# Frames are written in batches: one round trip per batch also reads the
# cancel flag, so cancellation costs nothing extra.
FLUSH_FRAMES = 64
FLUSH_SECONDS = 0.02


def last_seq(redis: Redis, job_id: str) -> int:
    """The seq of the newest entry of the job's stream, 0 if none."""
    newest = redis.xrevrange(keys.frames(job_id), count=1)
    return keys.seq_of(newest[0][0]) if newest else 0


class FrameSink:
    """Buffers frames and appends them in batches, skipping seqs that exist."""

    def __init__(self, attempt: Attempt, maxlen: int, ttl_seconds: int, first_seq: int,
                 unwatched_ttl_seconds: int | None = None):
        self.attempt = attempt
        self.redis = attempt.redis
        self.key = keys.frames(attempt.job_id)
        self.maxlen = maxlen
        self.ttl_seconds = ttl_seconds
        self.unwatched_ttl_seconds = ttl_seconds if unwatched_ttl_seconds is None else unwatched_ttl_seconds
        self.written = last_seq(self.redis, attempt.job_id)
        self.next_seq = first_seq
        self.pending: list[tuple[int, bytes]] = []
        self.flushed_at = time.monotonic()
        self.cancelled = False

    def add(self, frame: pb.Frame) -> None:
        """Numbers `frame` and queues it; flushes when the batch is due."""
        frame.seq = self.next_seq
        self.next_seq += 1
        if frame.seq > self.written:
            self.pending.append((frame.seq, frame.SerializeToString()))
        if len(self.pending) >= FLUSH_FRAMES or time.monotonic() - self.flushed_at >= FLUSH_SECONDS:
            self.flush()

    def skip(self) -> None:
        """Passes over a seq that a previous attempt already wrote."""
        self.next_seq += 1

    def peek_seq(self) -> int:
        """The seq the next frame will get."""
        return self.next_seq

    def flush(self) -> bool:
        """Writes pending frames and reads the cancel flag; returns it.
        Raises Superseded when another attempt owns the job now."""
        self.cancelled = self.attempt.append(self.pending, self.maxlen)
        if self.pending:
            self.written = self.pending[-1][0]
        self.pending.clear()
        self.flushed_at = time.monotonic()
        return self.cancelled

    def close(self) -> None:
        """Flushes and lets the stream expire `ttl_seconds` from now, or
        `unwatched_ttl_seconds` when no client is reading it: the frames of
        a solve nobody watches do not hold Redis memory for long."""
        self.flush()
        self.redis.eval(scripts.EXPIRE_FINISHED.source, 2, self.key, keys.watched(self.attempt.job_id),
                        self.ttl_seconds, self.unwatched_ttl_seconds)


def write_error(redis: Redis, job_id: str, code: str, message: str, ttl_seconds: int) -> None:
    """Ends a job's stream with an error entry instead of a last frame.

    Used when the job failed on every attempt; the service turns the entry
    into a gRPC status for everyone watching.
    """
    key = keys.frames(job_id)
    seq = last_seq(redis, job_id) + 1
    payload = json.dumps({"code": code, "message": message})
    with redis.pipeline(transaction=False) as pipe:
        pipe.xadd(key, {"e": payload}, id=keys.frame_id(seq))
        pipe.expire(key, ttl_seconds)
        pipe.execute()
