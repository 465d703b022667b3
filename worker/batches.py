"""The jobs of batch and streaming calls: a CountBatch group, a part of a
CountMany or GradeMany request, a run of Generate's seeds.

The service's fan-out (service/batches/fanout.py) queues each as one job, with the
worker time its call granted it and the call's cancel flag (CallWork: the
job stops where either says so, between boards or seeds, or within a long
count). The job answers on its caller's inbox (keys.inbox) with the bytes
of what the client gets: a part of a reply message that the service
concatenates with the other parts of the request (CountMany, GradeMany:
protobuf appends repeated fields as it reads), or replies each after its
length (CountBatch, Generate: sudoku.replies.delimited), with the worker
time it took. Boards the job did not reach get RESOURCE_EXHAUSTED in their
place; a Generate run cut short says so, and the call ends RESOURCE_EXHAUSTED
after the puzzles it has.
"""

from __future__ import annotations

import time
from typing import Any

from redis import Redis

from sudoku import replies
from sudoku.specs import CountManySpec, CountSpec
from sudoku.v1 import sudoku_pb2 as pb
from worker import counting, logic
from worker.calls import INBOX_TTL_S
from worker.counting import CallWork
from worker.generate import NoPuzzle, generate
from worker.grades import grade_json

# Boards per C call of a GradeMany part at first; the slices grow while they
# take less than CallWork.CHECK_EVERY_S (as count_many's do).
FIRST_GRADE_SLICE = 4


def _count_batch(redis: Redis, spec: dict, work: CallWork) -> tuple[bytes, bool]:
    """spec: {"items": [[index, count spec or None, error code, message, cache key], ...]}."""
    items = spec["items"]
    keys_ = [item[4] for item in items if item[1] is not None and item[4]]
    cached = dict(zip(keys_, redis.mget(keys_))) if keys_ else {}
    out, stores = [], []
    for index, count_spec, code, message, key in items:
        if count_spec is None:
            out.append(pb.CountReply(index=index, error=replies.error(code, message)))
            continue
        if cached.get(key) is not None:
            reply = pb.CountReply.FromString(cached[key])
        elif work.over():
            reply = pb.CountReply(error=replies.error("RESOURCE_EXHAUSTED", replies.UNCOUNTED))
        else:
            result = counting.count_one(CountSpec.from_dict(count_spec), work)
            if result.pop("cut"):
                reply = pb.CountReply(error=replies.error("RESOURCE_EXHAUSTED", replies.UNCOUNTED))
            else:
                reply = replies.count_reply(result)
                if key and reply.complete:
                    stores.append((key, reply.SerializeToString()))
        reply.index = index
        out.append(reply)
    if stores and spec.get("cache_ttl_s"):
        with redis.pipeline(transaction=False) as pipe:
            for key, value in stores:
                pipe.set(key, value, ex=spec["cache_ttl_s"])
            pipe.execute()
    return replies.delimited([r.SerializeToString() for r in out]), False


def _count_many(redis: Redis, spec: dict, work: CallWork) -> tuple[bytes, bool]:
    """spec: {"count": CountManySpec's fields, "start", "n", "valid": local
    positions of the boards counted, "errors": [[local position, message]]}."""
    s = CountManySpec.from_dict({**spec["count"], "call_id": work.call_id, "budget_ms": work.budget_ms})
    # count_many keeps its own CallWork of these bounds: started now, it ends with this one.
    result = counting.count_many(redis, s) if spec["valid"] else None
    if result is None:
        result = {"counts": [], "verdicts": "", "incomplete": [], "solutions": "", "uncounted": []}
    errors = {position: message for position, message in spec["errors"]}
    return replies.count_many_part(spec["n"], spec["start"], spec["valid"], result, errors,
                                   s.include_solution), False


def _grade_many(redis: Redis, spec: dict, work: CallWork) -> tuple[bytes, bool]:
    """spec: {"boards": the valid boards, 81 chars each, "start", "n",
    "valid", "errors"} as _count_many's."""
    boards, valid = spec["boards"], spec["valid"]
    graded: list[dict[str, Any]] = []
    size = FIRST_GRADE_SLICE
    while len(graded) < len(valid) and not work.over():
        began = time.monotonic()
        at = len(graded) * 81
        graded += [grade_json(g) for g in logic.grade_many(boards[at : at + size * 81])]
        if time.monotonic() - began < CallWork.CHECK_EVERY_S / 2:
            size *= 2
    by_position = dict(zip(valid, graded))
    errors = {position: message for position, message in spec["errors"]}
    grades = []
    for position in range(spec["n"]):
        if position in errors:
            grades.append(pb.GradeReply(error=replies.error("INVALID_ARGUMENT", errors[position])))
        elif position in by_position:
            grades.append(pb.GradeReply(**by_position[position]))
        else:
            grades.append(pb.GradeReply(error=replies.error("RESOURCE_EXHAUSTED", replies.UNGRADED)))
    return replies.grade_many_part(spec["start"], grades), False


def _generate(redis: Redis, spec: dict, work: CallWork) -> tuple[bytes, bool]:
    """spec: {"level", "seeds", "symmetry", "givens", "first": the index of the first puzzle}."""
    keep = spec["givens"] if spec["givens"].strip(".") else None
    made = []
    for offset, seed in enumerate(spec["seeds"]):
        if work.over():
            return replies.delimited(made), True
        made.append(pb.GeneratedPuzzle(index=spec["first"] + offset,
                                       **generate(seed, spec["level"], spec["symmetry"], keep)).SerializeToString())
    return replies.delimited(made), False


PARTS = {"count_batch": _count_batch, "count_many": _count_many, "grade_many": _grade_many, "generate": _generate}


def run(redis: Redis, args: dict[str, Any]) -> None:
    """Runs one part and answers it on its caller's inbox."""
    work = CallWork(redis, args["call_id"], args["budget_ms"])
    try:
        data, cut = PARTS[args["kind"]](redis, args["spec"], work)
        fields = {"c": args["reply"], "r": data, "w": int((time.monotonic() - work.started) * 1000)}
        if cut:
            fields["u"] = "1"
    except NoPuzzle as exc:  # the kept givens rule the level out: the call's error
        fields = {"c": args["reply"], "e": "FAILED_PRECONDITION", "m": str(exc)}
    with redis.pipeline(transaction=False) as pipe:
        pipe.xadd(args["inbox"], fields)
        pipe.expire(args["inbox"], INBOX_TTL_S)
        pipe.execute()


def on_failure(job, connection: Redis, exc_type, exc_value, traceback) -> None:
    """RQ failure callback of a part: when no retry is left, the part's
    caller hears so (its boards get the error in their place)."""
    if job.retries_left:
        return
    args = job.args[0]
    message = f"the job failed on every worker that tried it: {getattr(exc_type, '__name__', 'error')}: {exc_value}"
    with connection.pipeline(transaction=False) as pipe:
        pipe.xadd(args["inbox"], {"c": args["reply"], "e": "ABORTED", "m": message})
        pipe.expire(args["inbox"], INBOX_TTL_S)
        pipe.execute()
