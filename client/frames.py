"""Drawing a solve's frames, or a stepped search's steps, the way a client shows them.

The proto's recipe (sudoku/frames.py; this module adds the checks of the
stream's contract, and the kinds of cells): each message is a frame and, with runs, the frames
of its `next_frames`; start from the first frame's board; apply each
frame's `steps` or `changes` in order (value 0 clears a cell); a frame with
a non-empty `board` (a keyframe) then replaces the drawing. The first frame
a stream sends carries `job` (givens and entries); cells that are neither
hold the search's tentative values.

A Step reply (pb.StepReply) is drawn by its own recipe, the same idea:
start from its `first_board` when it has one, else from what is drawn;
apply its steps in order; its `board` is then the drawing (Drawing.steps).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from sudoku.frames import apply_pairs, pairs, split
from sudoku.v1 import sudoku_pb2 as pb

CellKind = Literal["given", "entry", "search", "blank"]


class FrameError(ValueError):
    """The frames break the stream's contract (a gap, a disagreeing keyframe)."""


class Drawing:
    """The board, its kinds of cells, cursor and counters after each frame.

    A gap in seq is accepted only at a keyframe: that is how the service
    resyncs a watcher that fell too far behind.
    """

    def __init__(self, start: str | None = None):
        self.board: list[str] | None = list(start) if start else None
        self.givens = "." * 81
        self.entries = "." * 81
        self.job_id = ""
        self.seq = 0
        self.cursor = -1
        self.counters = pb.Counters()
        self.total_steps = 0
        self.outcome = pb.OUTCOME_UNSPECIFIED
        self.solution = ""
        self.conflicts: list[int] = []

    def apply(self, message: pb.Frame) -> None:
        """Draws one message: a frame, and the frames of its run if any."""
        for frame in split(message):
            self._apply(frame)

    def _apply(self, frame: pb.Frame) -> None:
        if frame.steps and frame.changes:
            raise FrameError(f"frame {frame.seq} has steps and changes")
        if self.seq and frame.seq != self.seq + 1 and not frame.board:
            raise FrameError(f"gap or repeat: {self.seq} -> {frame.seq} without a keyframe")
        if frame.HasField("job"):
            self.givens, self.entries = frame.job.givens or self.givens, frame.job.entries or self.entries
        if frame.job_id:
            self.job_id = frame.job_id
        in_step = self.board is not None and (self.seq == 0 or frame.seq == self.seq + 1)
        if self.board is None:
            if not frame.board:
                raise FrameError(f"the first frame ({frame.seq}) has no board: a drawing starts at a keyframe")
            self.board = list(frame.board)
        apply_pairs(self.board, frame.steps or frame.changes)
        if frame.board:
            if in_step and "".join(self.board) != frame.board:
                raise FrameError(f"keyframe {frame.seq} disagrees with the drawn board")
            self.board = list(frame.board)
        self.seq = frame.seq
        self.cursor = frame.cursor
        if frame.HasField("counters"):
            self.counters = frame.counters
        self.total_steps = frame.total_steps or self.total_steps
        if frame.outcome:
            self.outcome, self.solution, self.conflicts = frame.outcome, frame.solution, list(frame.conflicts)

    def steps(self, reply: pb.StepReply, each=None) -> None:
        """Draws a Step reply's steps, calling each(drawing) after every one
        when given (the cursor and counters then are those after that step)."""
        if reply.first_board:
            self.board = list(reply.first_board)
        if self.board is None:
            raise FrameError("a Step reply without first_board needs the board it starts from")
        events = pairs(reply.steps)
        counters = pb.Counters(solutions=reply.counters.solutions)
        placed = sum(1 for _, value in events if value)
        counters.placements = reply.counters.placements - placed
        counters.retractions = reply.counters.retractions - (len(events) - placed)
        for i, (cell, value) in enumerate(events):
            self.board[cell] = str(value) if value else "."
            if value:
                counters.placements += 1
            else:
                counters.retractions += 1
            counters.steps = counters.placements + counters.retractions
            last = i == len(events) - 1
            self.cursor = reply.cursor if last else events[i + 1][0]
            if each is not None and not last:
                self.counters = pb.Counters()
                self.counters.CopyFrom(counters)
                each(self)
        if "".join(self.board) != reply.board:
            raise FrameError(f"the steps up to {reply.last_step} drew a board that is not the reply's")
        self.cursor = reply.cursor
        self.counters = reply.counters
        if reply.outcome:
            self.outcome, self.solution, self.conflicts = reply.outcome, reply.solution, list(reply.conflicts)
        if each is not None:
            each(self)

    @property
    def depth(self) -> int:
        """Values the search has on the board: placements - retractions."""
        return self.counters.placements - self.counters.retractions

    @property
    def text(self) -> str:
        """The board as 81 characters, '.' for a blank."""
        return "".join(self.board) if self.board else "." * 81

    def kind(self, cell: int) -> CellKind:
        if self.givens[cell] != ".":
            return "given"
        if self.entries[cell] != ".":
            return "entry"
        return "search" if self.board and self.board[cell] != "." else "blank"

    @property
    def done(self) -> bool:
        return self.outcome != pb.OUTCOME_UNSPECIFIED


def draw(frames: Iterable[pb.Frame], start: str | None = None) -> list[str]:
    """The board after each frame (the frames of runs included), checking
    that seq has no gaps at all.

    Raises FrameError when the frames break the contract: a gap or repeat in
    seq, a keyframe that disagrees with the board drawn so far, steps and
    changes in one frame, or a first frame that is not a keyframe.
    """
    drawing = Drawing(start)
    boards = []
    for message in frames:
        for frame in split(message):
            if drawing.seq and frame.seq != drawing.seq + 1:
                raise FrameError(f"gap or repeat: {drawing.seq} -> {frame.seq}")
            drawing.apply(frame)
            boards.append(drawing.text)
    return boards
