"""The RQ job functions: what the service can ask a worker to do.

The service queues each by its name ("worker.jobs.calls", ...), so these
names are the contract between the two, and they stay put when the work
moves. Each takes its arguments as a dict (jobs travel as JSON) and hands
them to the module that does the work. A solve's answer is its frames on
the job's stream; the others answer on their caller's inbox (keys.inbox)
with the reply messages' bytes, and keep no result in RQ:

- solve, on_solve_failure: worker/solving.py (the frames on the job's stream);
- calls, on_calls_failure: a coalesced job of unary calls (Hint,
  CountSolutions, Grade, Explain, Step; worker/calls.py, a Step's work
  worker/stepping.py);
- part, on_part_failure: a part of a batch or streaming call (CountBatch,
  CountMany, GradeMany, Generate; worker/batches.py).
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from redis import Redis
from rq import get_current_job
from rq.job import Job

from sudoku import tracing
from sudoku.specs import SolveSpec
from worker import batches, solving
from worker import calls as coalesced


def _current() -> Job:
    job = get_current_job()
    assert job is not None, "job functions run inside an RQ job"
    return job


def solve(spec: dict[str, Any]) -> dict[str, Any]:
    """RQ job: run one solve and stream its frames."""
    trace = spec.get("trace") if tracing.enabled() else None
    if not trace:
        return solving.solve(_current(), SolveSpec.from_dict(spec))
    started = time.time_ns()
    tracing.record("queue wait", trace, spec["queued_ns"], started, job=spec["job_id"])
    try:
        return solving.solve(_current(), SolveSpec.from_dict(spec))
    finally:
        tracing.record("step search", trace, started, time.time_ns(), job=spec["job_id"])


def on_solve_failure(job, connection: Redis, exc_type, exc_value, traceback) -> None:
    """RQ failure callback of a solve: end its stream when no retry is left."""
    solving.on_failure(job, connection, exc_type, exc_value)


def _waited_s(job) -> float:
    """How long the job waited in its queue before it started."""
    if job.enqueued_at is None or job.started_at is None:
        return 0.0
    return (_utc(job.started_at) - _utc(job.enqueued_at)).total_seconds()


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)  # RQ's dates are UTC


def calls(args: dict[str, Any]) -> None:
    """RQ job: the unary calls of a coalesced job (worker/calls.py), each answered to its caller's inbox."""
    job = _current()
    coalesced.run(job.connection, job.id, args["kind"], args["cheap"], args["inbox"], args["cache_ttl_s"],
                  getattr(job, "started_fields", None), _waited_s(job), args.get("max_calls", 1),
                  job.worker_name or "", **{k: args[k] for k in ("linger_ms", "takes_calls_s") if k in args})


def on_calls_failure(job, connection: Redis, exc_type, exc_value, traceback) -> None:
    """RQ failure callback of a coalesced job: its calls get the error when no retry is left."""
    coalesced.on_failure(job, connection, exc_type, exc_value, traceback)


def part(args: dict[str, Any]) -> None:
    """RQ job: a part of a batch or streaming call (worker/batches.py), answered to its caller's inbox."""
    batches.run(_current().connection, args)


def on_part_failure(job, connection: Redis, exc_type, exc_value, traceback) -> None:
    """RQ failure callback of a part: its caller hears of it when no retry is left."""
    batches.on_failure(job, connection, exc_type, exc_value, traceback)
