"""What a frame stream remembers so it can pick up where it left off.

A solve's stream starts with Solve. Until its first frame arrives the job
id is unknown, so a retry repeats Solve with the same request (and so the
same request_id: the server attaches it to the job the first call started).
Once a frame has arrived, a retry is Watch(job_id, last seq): nothing
missed, nothing repeated. Frames at or below the last seq are dropped, in
case a server ever sends one twice.

A job can also be lost (NOT_FOUND: its Redis restarted empty, or its frames
expired while the client was away). A stream that holds its request then
submits it again, with the same request_id, which starts a new job; searches
are deterministic, so the new job's frames are the old job's. The stream
catches up with an unpaced Watch to the last seq it had, then goes on with
the new job as it would have with the old one, saying so in a warning and
in `resubmissions`.

With runs (Pacing.runs) a message carries several frames, sent ahead of
time; the stream hands them out one at a time on its own clock, one every
1 / fps seconds from the first, so a caller sees what it would see without
runs.
"""

from __future__ import annotations

import collections
import logging
import time
from typing import Any

import grpc

from client.connection import Deadline, should_retry
from client.errors import SudokuError
from client.frames import split
from client.results import SolveResult
from sudoku.v1 import sudoku_pb2 as pb

log = logging.getLogger("sudoku.client")

# Times a stream submits its request again before a lost job is an error.
MAX_RESUBMISSIONS = 3


class ResumePoint:
    def __init__(self, request: pb.SolveRequest | None = None, job_id: str = "", after_seq: int = 0,
                 unpaced: bool = False, runs: bool = False):
        self.request = request
        self.job_id = job_id
        self.last_seq = after_seq
        self.unpaced = unpaced or bool(request and request.pacing.unpaced)
        self.runs = runs or bool(request and request.pacing.runs)
        self.first: pb.Frame | None = None
        self.last: pb.Frame | None = None
        self.resubmissions = 0
        self.reopen = False  # the call should be replaced by the Watch of opening()
        self.catching_up = False  # a resubmitted job's frames up to last_seq are being skipped

    def opening(self) -> tuple[str, pb.SolveRequest | pb.WatchRequest]:
        """The RPC name and request that (re)start the stream from here."""
        if self.catching_up:
            return "Watch", pb.WatchRequest(job_id=self.job_id, after_seq=1, unpaced=True)
        if self.job_id or self.request is None:
            return "Watch", pb.WatchRequest(job_id=self.job_id, after_seq=self.last_seq, unpaced=self.unpaced,
                                            runs=self.runs)
        return "Solve", self.request

    def resubmit(self) -> bool:
        """Forgets a lost job, so that opening() submits the request again;
        False when there is no request to submit, or it was submitted enough."""
        if self.request is None or not self.job_id or self.resubmissions >= MAX_RESUBMISSIONS:
            return False
        self.job_id = ""
        self.resubmissions += 1
        return True

    def accept(self, frame: pb.Frame) -> bool:
        """Records a frame; False for one already seen."""
        if not self.job_id and frame.job_id:  # the first frame of a resubmitted job
            self.job_id = frame.job_id
            if frame.seq < self.last_seq:
                self.catching_up = self.reopen = True
        if frame.seq <= self.last_seq:
            if self.catching_up and (frame.seq == self.last_seq or frame.outcome):
                self.catching_up = False  # caught up: go on at the stream's own pace
                self.reopen = True
            if not frame.outcome:
                return False
            self.last_seq = frame.seq - 1  # the new job ended sooner: its last frame ends this stream too
        if frame.seq == 1:
            self.first = frame
        self.job_id = self.job_id or frame.job_id
        self.last_seq = frame.seq
        if frame.outcome:
            self.last = frame
        return True

    @property
    def finished(self) -> bool:
        return self.last is not None


class PlayClock:
    """When to hand out each frame of a stream with runs: one every
    1 / fps seconds from the first (no waiting without runs)."""

    def __init__(self) -> None:
        self.interval = 0.0
        self.next_due: float | None = None

    def restart(self) -> None:
        """A new call: its first frame sets the clock again."""
        self.next_due = None

    def delay(self, frame: pb.Frame, runs: bool) -> float:
        """Seconds to wait before handing out `frame`."""
        if runs and frame.HasField("job") and frame.job.pacing.fps and not frame.job.pacing.unpaced:
            self.interval = 1.0 / frame.job.pacing.fps
        if not self.interval:
            return 0.0
        now = time.monotonic()
        if self.next_due is None or now > self.next_due or frame.outcome:
            # A frame that came late starts the clock again there, rather
            # than the ones after it rushing to catch up; the last frame goes
            # at once: a stop is shown when it comes.
            self.next_due = now
        delay = max(0.0, self.next_due - now)
        self.next_due += self.interval
        return delay


def ended_early(address: str) -> SudokuError:
    """A stream closed without error before its last frame: the connection dropped."""
    return SudokuError(grpc.StatusCode.UNAVAILABLE, "the stream ended before its last frame", address)


class StreamState:
    """What the blocking and the asyncio frame streams share: the resume
    point, the one deadline across attempts, and how to (re)open the call."""

    def __init__(self, client: Any, point: ResumePoint, timeout: float | None):
        self._client = client
        self._point = point
        self._deadline = Deadline(timeout)
        self._call: Any = None
        self._attempt = 0
        self._closed = False
        self._running: Any = None  # set by the subclass
        self._buffer: collections.deque[pb.Frame] = collections.deque()  # frames of a run, not yet handed out
        self._clock = PlayClock()

    @property
    def job_id(self) -> str:
        return self._point.job_id

    @property
    def last_seq(self) -> int:
        return self._point.last_seq

    @property
    def first(self) -> pb.Frame | None:
        return self._point.first

    @property
    def last(self) -> pb.Frame | None:
        return self._point.last

    def result(self) -> SolveResult:
        """The outcome, once the last frame has arrived."""
        if self._point.last is None:
            raise RuntimeError("the stream has not reached its last frame")
        job = self._point.first.job if self._point.first is not None else pb.JobInfo()
        return SolveResult(self._point.job_id, job, self._point.last)

    # self._running is a threading.Event or an asyncio.Event (same methods);
    # _drop_call() is the subclass's: cancelling a call differs between the two.
    def pause(self) -> None:
        """Stops reading; the job goes on and its frames wait in the service."""
        self._running.clear()
        self._drop_call()

    def resume(self) -> None:
        """Continues after the last frame seen (Watch with its seq)."""
        self._running.set()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    def close(self) -> None:
        """Stops reading for good (the job goes on unless cancel_on_disconnect)."""
        self._closed = True
        self._drop_call()
        self._running.set()

    @property
    def resubmissions(self) -> int:
        """How often the request was submitted again because its job was lost."""
        return self._point.resubmissions

    def _received(self, message: pb.Frame) -> None:
        """Keeps the new frames of a message for handing out."""
        for frame in split(message):
            if self._point.accept(frame):
                self._attempt = 0
                self._buffer.append(frame)
        if self._point.reopen:
            self._point.reopen = False
            self._drop_call()

    def _next_buffered(self) -> tuple[pb.Frame, float] | None:
        """The next frame to hand out and how long to wait first."""
        if not self._buffer:
            return None
        frame = self._buffer.popleft()
        return frame, self._clock.delay(frame, self._point.runs)

    def _drop_call(self) -> None:
        raise NotImplementedError

    def _open(self) -> Any:
        self._clock.restart()
        name, request = self._point.opening()
        method = getattr(self._client._stub, name)
        return method(request, timeout=self._deadline.remaining(), metadata=self._client.metadata)

    def _next_attempt(self, error: SudokuError) -> float | None:
        """The delay before the stream is opened again after `error`; None
        when `error` is final."""
        lost = self._point.job_id
        if error.code == grpc.StatusCode.NOT_FOUND and self._point.resubmit():
            log.warning("%s; submitting the request again (request_id %s, was job %s), continuing after seq %d",
                        error, self._point.request.request_id, lost, self._point.last_seq)
            return 0.0
        delay = should_retry(error.code, self._attempt, self._client.retry, self._deadline)
        if delay is None:
            return None
        self._attempt += 1
        log.info("%s; resuming job %s after seq %d in %.2f s (retry %d)",
                 error, lost or "(not started)", self._point.last_seq, delay, self._attempt)
        return delay
