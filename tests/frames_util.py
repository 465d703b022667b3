"""Reading frames the way a client draws them (shared by the frame tests).

The logic lives in client.frames, where the `sudoku watch` command draws
with it too; the tests import it from here. draw() raises FrameError when
the frames break the stream's contract (a gap, a disagreeing keyframe).
"""

from __future__ import annotations

from client.frames import Drawing, FrameError, draw, pairs

__all__ = ["Drawing", "FrameError", "draw", "pairs"]
