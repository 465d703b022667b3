"""What a frame stream remembers so it can pick up where it left off.

A solve's stream starts with Solve. Until its first frame arrives the job
id is unknown, so a retry repeats Solve with the same request (and so the
same request_id: the server attaches it to the job the first call started).
Once a frame has arrived, a retry is Watch(job_id, last seq): nothing
missed, nothing repeated. Frames at or below the last seq are dropped, in
case a server ever sends one twice.
"""

from __future__ import annotations

import grpc

from client.errors import SudokuError
from sudoku.v1 import sudoku_pb2 as pb


class ResumePoint:
    def __init__(self, request: pb.SolveRequest | None = None, job_id: str = "", after_seq: int = 0,
                 unpaced: bool = False):
        self.request = request
        self.job_id = job_id
        self.last_seq = after_seq
        self.unpaced = unpaced or bool(request and request.pacing.unpaced)
        self.first: pb.Frame | None = None
        self.last: pb.Frame | None = None

    def opening(self) -> tuple[str, pb.SolveRequest | pb.WatchRequest]:
        """The RPC name and request that (re)start the stream from here."""
        if self.job_id or self.request is None:
            return "Watch", pb.WatchRequest(job_id=self.job_id, after_seq=self.last_seq, unpaced=self.unpaced)
        return "Solve", self.request

    def accept(self, frame: pb.Frame) -> bool:
        """Records a frame; False for one already seen."""
        if frame.seq <= self.last_seq:
            return False
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


def ended_early(address: str) -> SudokuError:
    """A stream closed without error before its last frame: the connection dropped."""
    return SudokuError(grpc.StatusCode.UNAVAILABLE, "the stream ended before its last frame", address)
