"""Relaying a job's frames from its Redis stream to one client.

The worker writes every frame as fast as it can and is free for the next
job; here each client's stream takes them at its own pace (service/streams/pacing.py)
and a slow client only delays itself. Besides the frames the worker wrote,
a stream may end with one made here: when the job is cancelled while the
stream plays (service/streams/stops.py), its last frame is CANCELLED, drawn where
that stream was. And a stream that starts mid-way (Watch with after_seq)
opens with a frame a client can draw from: the job's info and a keyframe.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import grpc

from service.jobs.waiting import IDLE_CHECK_S, JobFailed
from service.streams.hub import ShuttingDown, StreamHub
from service.streams.pacing import Schedule
from sudoku import connections, keys
from sudoku.errors import CallError
from sudoku.frames import apply
from sudoku.v1 import sudoku_pb2 as pb

# Entries read back at a time when looking for the keyframe before a frame.
KEYFRAME_SEARCH = 64


class Trimmed(CallError):
    """The frames after the requested seq are gone; `oldest` is available."""

    code = grpc.StatusCode.OUT_OF_RANGE

    def __init__(self, oldest: int):
        super().__init__(oldest)
        self.oldest = oldest

    def details(self) -> str:
        return (f"after_seq: frames up to {self.oldest - 1} were trimmed; the oldest available seq is "
                f"{self.oldest}")


@dataclass
class JobStream:
    """What a Watch needs to know of a job's stream before it starts."""

    oldest: int  # the first seq still there
    last: int  # the newest seq so far
    finished: bool  # the newest entry ends the stream
    first: pb.Frame | None  # frame 1 (the job's info), None when trimmed


async def job_stream(hub: StreamHub, job_id: str) -> JobStream:
    """The stream's state in one round trip; LookupError when there is none."""
    key = keys.frames(job_id)
    async with hub.redis.pipeline(transaction=False) as pipe:
        pipe.xrange(key, count=1)
        pipe.xrevrange(key, count=1)
        oldest, newest = await pipe.execute()
    if not oldest or not newest:
        raise LookupError(job_id)
    first = pb.Frame.FromString(oldest[0][1][b"f"]) if keys.seq_of(oldest[0][0]) == keys.HEADER_SEQ else None
    return JobStream(keys.seq_of(oldest[0][0]), keys.seq_of(newest[0][0]), is_last(newest[0][1]), first)


def is_last(fields: dict[bytes, bytes]) -> bool:
    """True for the entry that ends a stream: an error, or the last frame."""
    return b"e" in fields or bool(pb.Frame.FromString(fields[b"f"]).outcome)


def decode(fields: dict[bytes, bytes]) -> pb.Frame:
    if b"e" in fields:
        error = json.loads(fields[b"e"])
        raise JobFailed(error["code"], error["message"])
    return pb.Frame.FromString(fields[b"f"])


async def board_after(hub: StreamHub, job_id: str, seq: int) -> tuple[str, pb.Frame] | None:
    """The board after frame `seq` and that frame, drawn from the keyframe
    at or before it; None when that stretch of the stream is gone."""
    key, since = keys.frames(job_id), []
    upper = keys.frame_id(seq)
    while True:
        entries = await hub.redis.xrevrange(key, max=upper, count=KEYFRAME_SEARCH)
        for entry_id, fields in entries:
            if b"f" not in fields:
                continue
            frame = pb.Frame.FromString(fields[b"f"])
            since.append(frame)
            if frame.board:
                board = list(frame.board)
                for later in reversed(since[:-1]):
                    apply(board, later)
                newest = since[0]
                return ("".join(board), newest) if newest.seq == seq else None
        if len(entries) < KEYFRAME_SEARCH:
            return None
        upper = "(" + entries[-1][0].decode()


def stopped_frame(seq: int, job_id: str, board: str, at: pb.Frame) -> pb.Frame:
    """The last frame of a stream stopped by Cancel after frame `at`: the
    board and counters there, seq the next one."""
    return pb.Frame(
        seq=seq,
        job_id=job_id,
        first_step=at.last_step,
        last_step=at.last_step,
        cursor=-1,
        counters=at.counters,
        board=board,
        total_steps=at.total_steps,
        outcome=pb.CANCELLED,
    )


class Stopped(Exception):
    """The playback was stopped while the relay waited."""


class Relay:
    """One stream's messages: frames after `after_seq`, paced by `schedule`,
    ending with the job's last frame, or with a CANCELLED frame once
    `stopped` is done or at `limit` (the job's stop point, if cancelled).

    `header` is the job's frame 1; when given (a stream starting mid-way),
    the first frame sent carries its job info and a board. While no frame
    comes, `alive(job_id)` is awaited every IDLE_CHECK_S and ends the stream
    by raising when no frame can come any more.
    """

    def __init__(self, hub: StreamHub, job_id: str, after_seq: int, schedule: Schedule,
                 stopped: asyncio.Future, limit: int | None = None, header: pb.Frame | None = None,
                 record_stop: Callable[[int], Awaitable[None]] | None = None,
                 alive: Callable[[str], Awaitable[None]] | None = None):
        self.hub = hub
        self.alive = alive
        self.job_id = job_id
        self.key = keys.frames(job_id)
        self.schedule = schedule
        self.stopped = stopped
        self.limit = limit
        self.header = header
        self.record_stop = record_stop
        self.position = after_seq  # the last seq sent
        self.last: pb.Frame | None = None  # the last frame sent
        self.read_id = keys.frame_id(after_seq)  # Redis position
        self.taken = after_seq  # the seq of the last entry taken (sent or skipped)
        self.pending: deque[tuple[str, dict[bytes, bytes]]] = deque()
        self.held: pb.Frame | None = None  # taken, but for the next message
        self.resyncing = False
        self.loop = asyncio.get_running_loop()

    @property
    def stoppable(self) -> bool:
        # A stream sends one frame before it can stop: a client needs the
        # job's info and a board, and then has a point to stop at.
        return self.position > 0

    async def messages(self) -> AsyncIterator[pb.Frame]:
        while True:
            connections.raise_lost_cancel()
            if self.stoppable and (self.stopped.done() or self._past_limit(self.position + 1)):
                yield await self._stopped()
                return
            try:
                frame = await self._take(block=True)
                if self.stoppable and self._past_limit(frame.seq):
                    yield await self._stopped()
                    return
                message = await self._run_from(frame)
            except Stopped:
                continue
            if self.hub.closing:
                raise ShuttingDown()
            yield message
            if self._sent_last(message):
                return

    def _past_limit(self, seq: int) -> bool:
        return self.limit is not None and seq > self.limit

    def _sent_last(self, message: pb.Frame) -> bool:
        last = message.next_frames[-1] if message.next_frames else message
        self.position, self.last = last.seq, last
        return bool(last.outcome)

    async def _run_from(self, first: pb.Frame) -> pb.Frame:
        """The message that starts with `first`: waits until it is due and,
        with runs, takes the frames due within the run."""
        schedule = self.schedule
        if schedule.paced:
            delay = schedule.wait(self.loop.time())
            if delay > 0:
                await self._sleep(delay)
            due = schedule.start(self.loop.time())
            schedule.sent()
        else:
            due = 0.0
        message = first
        if self.header is not None:
            await self._introduce(message)
        while not message.outcome and schedule.fits_run(due):
            following = await self._take(block=False)
            if following is None:
                break
            if self._past_limit(following.seq):
                self.held = following
                break
            message.next_frames.append(following)
            schedule.sent()
            if following.outcome:
                break
        return message

    async def _introduce(self, frame: pb.Frame) -> None:
        """Makes the first frame of a mid-way stream one to draw from."""
        header, self.header = self.header, None
        frame.job.CopyFrom(header.job)
        frame.job_id = self.job_id
        if not frame.board:
            drawn = await board_after(self.hub, self.job_id, frame.seq)
            if drawn is not None:
                frame.board = drawn[0]

    async def _take(self, block: bool) -> pb.Frame | None:
        """The next frame to send; with block=False, None when none is at hand."""
        if self.held is not None:
            frame, self.held = self.held, None
            return frame
        while True:
            if not self.pending:
                if not await self._fill(block):
                    return None
            entry_id, fields = self.pending.popleft()
            seq = keys.seq_of(entry_id)
            frame = decode(fields)
            if seq != self.taken + 1:
                self.resyncing = True  # trimmed under a slow reader: wait for a keyframe
            self.taken = seq
            if frame.board:  # the last frame is a keyframe too
                self.resyncing = False
                return frame
            if self.resyncing or self.schedule.behind(self.loop.time()):
                continue  # on to the next keyframe
            return frame

    async def _fill(self, block: bool) -> bool:
        batch = await self.hub.read(self.key, self.read_id)
        while not batch:
            if not block:
                return False
            idle = IDLE_CHECK_S if self.alive is not None else None
            # The wait runs in a task of its own (_until_stopped), so the hub's
            # check of a lost cancel looks at that task: this checks the
            # relay's, which the read just before may have lost; else a client
            # gone would leave the relay waiting for the whole search.
            connections.raise_lost_cancel()
            batch = await self._until_stopped(self.hub.wait(self.key, self.read_id, idle))
            if not batch and self.alive is not None:
                await self.alive(self.job_id)
                batch = await self.hub.read(self.key, self.read_id)  # it may have ended meanwhile
        self.read_id = batch[-1][0]
        self.pending.extend(batch)
        return True

    async def _until_stopped(self, waiting: Awaitable[list]) -> list:
        if not self.stoppable:
            return await waiting
        task = asyncio.ensure_future(waiting)
        try:
            await asyncio.wait((task, self.stopped), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()  # not left waiting in the hub after its stream has gone
            raise
        if task.done():
            return task.result()
        task.cancel()
        raise Stopped()

    async def _sleep(self, delay: float) -> None:
        await asyncio.wait((self.stopped,), timeout=delay)
        if self.stopped.done() and self.stoppable:
            raise Stopped()

    async def _stopped(self) -> pb.Frame:
        """The CANCELLED frame at this stream's position, recorded as the
        job's stop point first, so that a Watch after it stops there too."""
        at, board = self.last, self.last.board if self.last is not None else ""
        if not board:
            drawn = await board_after(self.hub, self.job_id, self.position)
            if drawn is None:  # that stretch of the stream is gone
                raise Trimmed(self.position + 1)
            board, at = drawn
        if self.record_stop is not None:
            await self.record_stop(self.position)
        frame = stopped_frame(self.position + 1, self.job_id, board, at)
        if self.header is not None:
            frame.job.CopyFrom(self.header.job)
        return frame
