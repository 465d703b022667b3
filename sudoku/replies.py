"""A job's result as the reply message a client gets.

The worker's work functions return JSON-able dicts in the proto's JSON form;
these make the reply messages of them, for the unary RPC and for the
streaming one that answers the same question many times (CountSolutions and
CountBatch, Grade and GradeMany). An error that belongs to one item of a
stream, not to the call, is an ItemError in that item's place. A Solve
stream's frame 1 (header_frame) is made here too: by the service for a
solve queued as a job of its own, by the worker for one answered in a
coalesced job (worker/calls.py).
"""

from __future__ import annotations

import grpc

from sudoku import keys, names
from sudoku.specs import SolveSpec
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


# ---- Batch calls' replies, built where their work is done ----

UNCOUNTED = ("not counted: this call used its share of worker time (SUDOKU_MAX_CALL_WORK_S); "
             "send it again in another call")
UNGRADED = ("not graded: this call used its share of worker time (SUDOKU_MAX_CALL_WORK_S); "
            "send it again in another call")
_CODES = {name: code.value[0] for name, code in grpc.StatusCode.__members__.items()}


def error(code: str, message: str) -> pb.ItemError:
    """An item's error by its status code's name."""
    return pb.ItemError(code=_CODES[code], message=message)


def delimited(messages: list[bytes]) -> bytes:
    """Messages' bytes, each after its length (a varint): many replies in one string."""
    return b"".join(_varint(len(m)) + m for m in messages)


def undelimited(data: bytes) -> list[bytes]:
    """The messages of delimited()."""
    out, at = [], 0
    while at < len(data):
        size = shift = 0
        while True:
            byte = data[at]
            at += 1
            size |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        out.append(data[at : at + size])
        at += size
    return out


def count_many_part(n: int, start: int, valid: list[int], result: dict | None, errors: dict[int, str],
                    include_solution: bool, failure: str = "") -> bytes:
    """The CountManyReply (serialized) of the request's boards start ..
    start + n - 1: those at local positions `valid` counted into `result`
    (worker.counting.count_many's), or, with `result` None, not counted
    because their job failed (`failure` says why); `errors` the bad boards'
    messages by local position. The parts of a request, concatenated in
    order, are its reply: protobuf appends repeated fields as it reads."""
    if result is None:
        result = {"counts": [0] * len(valid), "verdicts": [0] * len(valid), "incomplete": range(len(valid)),
                  "solutions": "." * 81 * len(valid) if include_solution else "", "uncounted": []}
        failed = {valid[i]: error("ABORTED", failure) for i in range(len(valid))}
    else:
        failed = {valid[i]: error("RESOURCE_EXHAUSTED", UNCOUNTED) for i in result["uncounted"]}
    counts = _numbers(result["counts"])
    verdicts = bytearray(_numbers(result["verdicts"]))
    for i, position in enumerate(valid):
        if position in failed:
            verdicts[i] = 0  # an error, and no verdict
    complete = bytearray(b"\x01") * len(valid)
    for i in result["incomplete"]:
        complete[i] = 0
    solutions = []
    if include_solution:
        text = result["solutions"]
        solutions = ["" if text[i] == "." else text[i : i + 81] for i in range(0, len(text), 81)]
    if errors:  # the counted boards' lists, spread to their positions among all n
        counts, complete, verdicts = (_spread(v, valid, n, e) for v, e in ((counts, 0), (complete, 0), (verdicts, 0)))
        solutions = _spread(solutions, valid, n, "") if include_solution else []
    reply = _lists(counts, complete, verdicts, solutions)
    bad = [(i, error("INVALID_ARGUMENT", m)) for i, m in errors.items()] + list(failed.items())
    for position, item in sorted(bad, key=lambda pair: pair[0]):
        reply.errors.add(index=start + position, error=item)
    return reply.SerializeToString()


_DIGIT_VALUES = bytes.maketrans(b"0123456789", bytes(range(10)))


def _numbers(values) -> bytes | list[int]:
    """A list of numbers (or a str of one digit each: see
    worker.counting.count_many), as a list or as bytes of one number each."""
    if isinstance(values, str):
        return values.encode("ascii").translate(_DIGIT_VALUES)
    return values


_REPLY_FIELDS = [pb.CountManyReply.DESCRIPTOR.fields_by_name[name].number for name in ("counts", "complete", "verdicts")]


def _lists(counts, complete, verdicts, solutions: list[str]) -> pb.CountManyReply:
    """A reply holding these lists (of numbers, or bytes of one number
    each). Numbers below 128 are one byte each on the wire (packed
    varints), so when every count is, the lists go in as bytes the protobuf
    runtime parses in C, instead of thousands of Python numbers converted
    one by one."""
    try:
        small = bytes(counts)
    except ValueError:  # a count of 256 or more
        small = b"\x80"
    if not small.isascii():
        return pb.CountManyReply(counts=counts, complete=list(map(bool, complete)), verdicts=verdicts,
                                 solutions=solutions)
    packed = (small, bytes(complete), bytes(verdicts))
    reply = pb.CountManyReply.FromString(b"".join(
        _varint(number << 3 | 2) + _varint(len(values)) + values for number, values in zip(_REPLY_FIELDS, packed)
        if values))
    reply.solutions.extend(solutions)
    return reply


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _spread(values, positions: list[int], n: int, empty) -> list:
    """`values` of the counted boards, placed at their positions among all n."""
    out = [empty] * n
    for position, value in zip(positions, values):
        out[position] = value
    return out


def grade_many_part(start: int, grades: list[pb.GradeReply]) -> bytes:
    """The GradeManyReply (serialized) of boards start .. start + len - 1,
    their indexes set; concatenated in order, a request's parts are its reply."""
    for offset, grade in enumerate(grades):
        grade.index = start + offset
    return pb.GradeManyReply(grades=grades).SerializeToString()


def header_frame(spec: SolveSpec, adjustments: list[str], pacing_unpaced: bool, runs: bool = False) -> pb.Frame:
    """Frame 1 (keys.HEADER_SEQ): what the solve will do, and the board it starts from."""
    info = pb.JobInfo(
        givens=spec.givens,
        entries=spec.entries,
        strategy=names.STRATEGIES[spec.strategy],
        tie_break=names.TIE_BREAKS[spec.tie_break],
        seed=spec.seed,
        max_steps=spec.max_steps,
        time_limit_ms=spec.time_limit_ms,
        view=names.VIEWS[spec.view],
        adjustments=adjustments,
    )
    if spec.view == "search":
        info.pacing.CopyFrom(
            pb.Pacing(
                duration_ms=spec.duration_ms,
                fps=spec.fps,
                steps_per_frame=spec.steps_per_frame,
                unpaced=pacing_unpaced,
                runs=runs and not pacing_unpaced,
            )
        )
    return pb.Frame(seq=keys.HEADER_SEQ, job_id=spec.job_id, cursor=-1, board=spec.board,
                    counters=pb.Counters(), job=info)
