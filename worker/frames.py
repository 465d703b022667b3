"""Cutting a search into frames a phone can animate.

The worker first runs the search to learn its length N (see solving.py), then
replays it and cuts it at the boundaries computed here. Strategies are
deterministic, so the replay is the same search, and a retried job cuts it
at the same places: the frames it writes are the frames the first attempt
wrote, which is what lets a client's stream continue across a worker crash.
"""

from __future__ import annotations

from dataclasses import dataclass

from sudoku.v1 import sudoku_pb2 as pb

# A frame carries its steps only while they are cheaper than the net change
# of the board could ever be (81 cells, 2 bytes each); bounded either way.
MAX_LISTED_STEPS = 64


def boundaries(total: int, frames: int = 0, steps_per_frame: int = 0, max_frames: int = 0) -> list[int]:
    """The step count at the end of each frame.

    Either `frames` frames with the steps spread evenly (a search shorter
    than that gets one step a frame), or frames of `steps_per_frame` steps;
    but never more than `max_frames` (when given) frames: a longer search
    gets that many, with the steps spread evenly, so the frame ceiling never
    cuts a search short.
    """
    if total <= 0:
        return []
    if steps_per_frame > 0:
        if not max_frames or -(-total // steps_per_frame) <= max_frames:
            ends = list(range(steps_per_frame, total, steps_per_frame))
            return ends + [total]
        frames = max_frames
    frames = max(1, min(frames, total))
    return [(j * total) // frames for j in range(1, frames + 1)]


def net_change(before: str, after: str) -> bytes:
    """(cell, value) pairs of every cell that differs; value 0 = cleared."""
    out = bytearray()
    for cell, (a, b) in enumerate(zip(before, after)):
        if a != b:
            out += bytes((cell, 0 if b == "." else ord(b) - 48))
    return bytes(out)


@dataclass
class Snapshot:
    """The stepper's observable state at a frame boundary."""

    steps: int
    placements: int
    retractions: int
    solutions: int
    cursor: int
    board: str

    @classmethod
    def of(cls, stepper) -> Snapshot:
        return cls(
            stepper.steps,
            stepper.placements,
            stepper.retractions,
            stepper.solutions,
            stepper.cursor,
            stepper.board,
        )

    def counters(self) -> pb.Counters:
        return pb.Counters(
            steps=self.steps,
            placements=self.placements,
            retractions=self.retractions,
            solutions=self.solutions,
        )


def search_frame(
    seq: int, before: Snapshot, after: Snapshot, events: bytes | None, total: int, keyframe: bool
) -> pb.Frame:
    """A frame covering the steps between two snapshots.

    `events` are the covered steps when they were recorded (few), else None
    and the frame carries the net change of the board instead.
    """
    frame = pb.Frame(
        seq=seq,
        first_step=before.steps,
        last_step=after.steps,
        cursor=after.cursor,
        counters=after.counters(),
        total_steps=total,
    )
    if events is not None:
        frame.steps = events
    else:
        frame.changes = net_change(before.board, after.board)
    if keyframe:
        frame.board = after.board
    return frame


def finish(
    frame: pb.Frame, job_id: str, outcome: int, board: str, solution: str | None, conflicts
) -> pb.Frame:
    """Makes `frame` the last one: outcome, solution, conflicts, keyframe."""
    frame.job_id = job_id
    frame.board = board
    frame.outcome = outcome
    if solution:
        frame.solution = solution
    frame.conflicts.extend(conflicts)
    return frame
