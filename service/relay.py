"""Relaying a job's frames from its Redis stream to one client, paced.

Pacing happens here, with asyncio timers, and never in the worker: the
worker writes every frame as fast as it can and is free for the next job,
while each client receives frames at its own rate. A slow client only
delays itself: a paced stream more than MAX_LAG behind its schedule, or
one whose next frames were trimmed from the stream, skips to the next
keyframe and carries on. That also keeps a service with more watchers
than it can feed at their frame rate serving all of them, each at a
lower rate, instead of starving some.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable

from service.hub import ShuttingDown, StreamHub
from sudoku import keys
from sudoku.v1 import sudoku_pb2 as pb


# How far a paced stream may fall behind its schedule before it skips ahead
# to the next keyframe. Unpaced streams never skip.
MAX_LAG = 1.0
# A stream with no new frame for this long asks whether its job can still
# write one (a worker may be computing; the job may also have been lost).
IDLE_CHECK_S = 2.0


class JobFailed(Exception):
    """The job's stream ended with an error entry instead of a last frame."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class Trimmed(Exception):
    """The frames after the requested seq are gone; `oldest` is available."""

    def __init__(self, oldest: int):
        super().__init__(oldest)
        self.oldest = oldest


async def oldest_seq(hub: StreamHub, job_id: str) -> int | None:
    """The first seq still in the job's stream, None when there is no stream."""
    first = await hub.waker.xrange(keys.frames(job_id), count=1)
    return keys.seq_of(first[0][0]) if first else None


async def first_frame(hub: StreamHub, job_id: str) -> pb.Frame | None:
    """Frame 1 (job info), None when trimmed or expired."""
    entries = await hub.waker.xrange(keys.frames(job_id), min=keys.frame_id(1), max=keys.frame_id(1))
    return pb.Frame.FromString(entries[0][1][b"f"]) if entries else None


def is_last(fields: dict[bytes, bytes]) -> bool:
    """True for the entry that ends a stream: an error, or the last frame."""
    return b"e" in fields or bool(pb.Frame.FromString(fields[b"f"]).outcome)


def decode(fields: dict[bytes, bytes]) -> pb.Frame:
    if b"e" in fields:
        error = json.loads(fields[b"e"])
        raise JobFailed(error["code"], error["message"])
    return pb.Frame.FromString(fields[b"f"])


async def frames(hub: StreamHub, job_id: str, after_seq: int, fps: float = 0.0,
                 alive: Callable[[str], Awaitable[None]] | None = None) -> AsyncIterator[pb.Frame]:
    """The job's frames after `after_seq`, up to and including the last.

    With `fps`, frames after the first follow a schedule of one every
    1/fps seconds: a late frame goes at once, and a stream more than MAX_LAG
    behind skips ahead to the next keyframe. While no frame comes,
    `alive(job_id)` is awaited every IDLE_CHECK_S and ends the stream by
    raising when no frame can come any more.
    """
    interval = 1.0 / fps if fps > 0 else 0.0
    loop = asyncio.get_running_loop()
    next_due = 0.0
    after = after_seq
    resync = False
    async for batch in hub.follow(keys.frames(job_id), keys.frame_id(after), IDLE_CHECK_S if alive else None):
        if not batch:
            await alive(job_id)
        for entry_id, fields in batch:
            seq = keys.seq_of(entry_id)
            frame = decode(fields)
            if seq != after + 1:
                resync = True  # trimmed under a slow reader: wait for a keyframe
            if resync and not frame.board:
                continue
            resync = False
            if hub.closing:
                raise ShuttingDown()
            if interval and seq > 1:
                now = loop.time()
                if next_due and now - next_due > MAX_LAG:
                    # An animation that fell behind (a slow client, or a
                    # service at its limit) jumps ahead like a video player
                    # instead of replaying stale frames late: to the next
                    # keyframe, which carries the whole board.
                    if not frame.board:
                        continue
                    next_due = now
                if not next_due:
                    next_due = now
                if next_due > now:
                    await asyncio.sleep(next_due - now)
                # The schedule, not the moment of sending: a stream that keeps
                # running late accumulates its lag and skips ahead above.
                next_due += interval
            yield frame
            after = seq
            if frame.outcome:
                return
