"""The proto's drawing recipe for frames, for everyone in Python who draws them.

Each frame's `steps` or `changes` are (cell, value) byte pairs, applied in
order (value 0 clears a cell); a frame with a non-empty `board` (a
keyframe) then replaces the drawing. A message of a runs stream is a frame
and the frames of its `next_frames`. The service draws with this where it
must know a board (a stopped stream's last frame, service/streams/relay.py),
the client to show a stream (client/frames.py, which also checks the
stream's contract). The page has the same recipe in JavaScript
(service/http/static/app.js); tests/test_page.py checks the board it shows
against this one's on the same frames.
"""

from __future__ import annotations

from sudoku.v1 import sudoku_pb2 as pb


def split(message: pb.Frame) -> list[pb.Frame]:
    """The frames of one message: itself, then its `next_frames` (a run)."""
    if not message.next_frames:
        return [message]
    rest = list(message.next_frames)
    first = pb.Frame()
    first.CopyFrom(message)
    first.ClearField("next_frames")
    return [first, *rest]


def pairs(data: bytes) -> list[tuple[int, int]]:
    """(cell, value) pairs of a frame's `steps` or `changes`."""
    return [(data[i], data[i + 1]) for i in range(0, len(data), 2)]


def apply_pairs(board: list[str], data: bytes) -> None:
    """Applies `steps` or `changes` (or a Step reply's steps) to `board`."""
    for i in range(0, len(data), 2):
        value = data[i + 1]
        board[data[i]] = chr(48 + value) if value else "."


def apply(board: list[str], frame: pb.Frame) -> None:
    """The recipe for one frame: its steps or changes, then its keyframe."""
    apply_pairs(board, frame.steps or frame.changes)
    if frame.board:
        board[:] = frame.board
