"""A job's result as the reply message a client gets.

The worker's work functions return JSON-able dicts in the proto's JSON form;
these make the reply messages of them, for the unary RPC and for the
streaming one that answers the same question many times (CountSolutions and
CountBatch, Grade and GradeMany). An error that belongs to one item of a
stream, not to the call, is an ItemError in that item's place.
"""

from __future__ import annotations

import grpc

from sudoku.v1 import sudoku_pb2 as pb


def count_reply(result: dict, index: int = 0) -> pb.CountReply:
    """A count's result (worker/counting.py count_one) as its reply."""
    return pb.CountReply(
        index=index,
        count=result["count"],
        complete=result["complete"],
        verdict=pb.CountReply.Verdict.Value(result["verdict"]),
        solution=result.get("solution") or "",
        conflicts=result.get("conflicts", ()),
    )


def hint_reply(result: dict) -> pb.HintReply:
    """A hint job's result (worker.hints: proto field names, enums by name)
    as its reply. The constructor reads such a dict as json_format.ParseDict
    does, many times faster: this is on every hint's path."""
    return pb.HintReply(**result)


def grade_reply(result: dict) -> pb.GradeReply:
    """A grade job's one board, as its reply."""
    (grade,) = result["grades"]
    return pb.GradeReply(**grade)


def item_error(code: grpc.StatusCode, message: str) -> pb.ItemError:
    """The error of one item of a stream (a board), in its place."""
    return pb.ItemError(code=code.value[0], message=message)
