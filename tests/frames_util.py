"""Reading frames the way a client draws them (shared by the frame tests)."""

from __future__ import annotations

from collections.abc import Iterable

from sudoku.v1 import sudoku_pb2 as pb


def pairs(data: bytes) -> list[tuple[int, int]]:
    return [(data[i], data[i + 1]) for i in range(0, len(data), 2)]


def draw(frames: Iterable[pb.Frame], start: str | None = None) -> list[str]:
    """The board after each frame, applying steps/changes and keyframes.

    Checks on the way what a client relies on: seq has no gaps, every
    keyframe agrees with the board drawn so far, and steps and changes are
    never both present.
    """
    boards = []
    board = list(start) if start else None
    last_seq = None
    for frame in frames:
        if last_seq is not None:
            assert frame.seq == last_seq + 1, f"gap or repeat: {last_seq} -> {frame.seq}"
        last_seq = frame.seq
        assert not (frame.steps and frame.changes), f"frame {frame.seq} has steps and changes"
        if board is None:
            assert frame.board, "the first frame is a keyframe"
            board = list(frame.board)
        for cell, value in pairs(frame.steps or frame.changes):
            board[cell] = str(value) if value else "."
        if frame.board:
            assert "".join(board) == frame.board, f"keyframe {frame.seq} disagrees with the drawn board"
        boards.append("".join(board))
    return boards
