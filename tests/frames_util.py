"""Reading frames the way a client draws them (shared by the frame tests).

The logic lives in client.frames, where the `sudoku watch` command draws
with it too; the tests import it from here. draw() raises FrameError when
the frames break the stream's contract (a gap, a disagreeing keyframe).
Reader reads a stream in a thread of its own.
"""

from __future__ import annotations

import threading
import time

import grpc

from client.frames import Drawing, FrameError, draw, pairs
from sudoku.v1 import sudoku_pb2 as pb

__all__ = ["Drawing", "FrameError", "Reader", "attached", "draw", "pairs"]


def attached(whole: list[pb.Frame], after_seq: int) -> list[pb.Frame]:
    """What Watch(job_id, after_seq) sends of a finished, gapless stream
    `whole`: the frames after `after_seq`, the first of them (when
    after_seq > 0) carrying the job's info, its id and a board."""
    rest = []
    for frame in whole[after_seq:]:
        copy = pb.Frame()
        copy.CopyFrom(frame)
        rest.append(copy)
    if after_seq > 0 and rest:
        rest[0].job.CopyFrom(whole[0].job)
        rest[0].job_id = whole[0].job_id
        rest[0].board = draw(whole)[after_seq]
    return rest


class Reader(threading.Thread):
    """Reads a server stream in the background, recording when each item came."""

    def __init__(self, call):
        super().__init__(daemon=True)
        self.call = call
        self.items: list = []
        self.stamps: list[float] = []
        self.error: grpc.RpcError | None = None
        self.first = threading.Event()
        self.start()

    def run(self) -> None:
        try:
            for item in self.call:
                self.items.append(item)
                self.stamps.append(time.monotonic())
                self.first.set()
        except grpc.RpcError as exc:
            self.error = exc
        self.first.set()
