"""The RQ job functions: what the service can ask a worker to do.

The service queues each by its name ("worker.jobs.count", ...), so these
names are the contract between the two, and they stay put when the work
moves. Each takes a spec from sudoku.specs as a dict (jobs travel as JSON),
hands it to the module that does the work, and returns a JSON-able dict,
which RQ stores as the job's result:

- solve, on_solve_failure: worker/solving.py (the frames on the job's stream);
- count, count_batch, count_many: worker/counting.py;
- hint, explain: worker/hints.py; grade: worker/grades.py; generate: worker/generate.py;
- calls, on_calls_failure: a coalesced job of unary calls (worker/calls.py).
"""

from __future__ import annotations

from typing import Any

from redis import Redis
from rq import get_current_job
from rq.job import Job

from sudoku.specs import CountManySpec, CountSpec, ExplainSpec, GenerateSpec, GradeSpec, HintSpec, SolveSpec
from worker import calls as coalesced
from worker import counting, solving


def _current() -> Job:
    job = get_current_job()
    assert job is not None, "job functions run inside an RQ job"
    return job


def solve(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: run one solve and stream its frames."""
    return solving.solve(_current(), SolveSpec.from_dict(spec))


def on_solve_failure(job, connection: Redis, exc_type, exc_value, traceback) -> None:
    """RQ failure callback of a solve: end its stream when no retry is left."""
    solving.on_failure(job, connection, exc_type, exc_value)


def calls(args: dict[str, Any]) -> dict[str, Any]:
    """RQ job: the unary calls of a coalesced job (worker/calls.py), each answered to its caller's inbox."""
    job = _current()
    return coalesced.run(job.connection, job.id, args["kind"], args["cheap"], args["inbox"], args["cache_ttl_s"])


def on_calls_failure(job, connection: Redis, exc_type, exc_value, traceback) -> None:
    """RQ failure callback of a coalesced job: its calls get the error when no retry is left."""
    coalesced.on_failure(job, connection, exc_type, exc_value, traceback)


def count(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: count one puzzle's solutions."""
    return counting.count_one(CountSpec.from_dict(spec))


def count_batch(batch: dict[str, Any]) -> dict[str, Any]:
    """RQ job: count a CountBatch group of puzzles (counting.count_batch)."""
    return counting.count_batch(_current().connection, batch)


def count_many(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: count a CountMany job's boards (counting.count_many)."""
    return counting.count_many(_current().connection, CountManySpec.from_dict(spec))


def hint(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: a hint for a player's board (see worker.hints)."""
    from worker.hints import hint as make_hint

    s = HintSpec.from_dict(spec)
    return make_hint(s.givens, s.entries, s.include_candidates, s.pencil_marks)


def explain(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: the whole logical solution of a board (see worker.hints.explain)."""
    from worker.hints import explain as make_explain

    s = ExplainSpec.from_dict(spec)
    return make_explain(s.board, s.pencil_marks)


def grade(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: grade boards (81 chars each, concatenated), in one C call.

    Returns {"grades": a sudoku.v1.GradeReply in protobuf JSON form per board}.
    """
    from worker.grades import grade_boards

    return {"grades": grade_boards(GradeSpec.from_dict(spec).boards)}


def generate(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: one puzzle per seed (worker.generate).

    Returns {"puzzles": GeneratedPuzzle dicts, in seed order}, or
    {"error": why} when a seed found no puzzle of the level.
    """
    from worker.generate import NoPuzzle
    from worker.generate import generate as make

    s = GenerateSpec.from_dict(spec)
    keep = s.givens if s.givens.strip(".") else None
    try:
        return {"puzzles": [make(seed, s.level, s.symmetry, keep) for seed in s.seeds]}
    except NoPuzzle as exc:
        return {"error": str(exc)}
