"""The workers' Prometheus metrics, across processes.

Workers are separate processes, several per machine, so each writes its
metrics to files in a directory its supervisor made for it
(prometheus_client's multiprocess mode, switched on by
PROMETHEUS_MULTIPROC_DIR in the worker's environment), and the supervising
process (sudoku-server or sudoku-worker) serves the sum of them. The
metrics are not registered in a worker's own registry: nothing scrapes a
worker directly, and the service process, which imports this module for
the collector, must not expose empty copies of them. The files and the
endpoint that serves their sum are sudoku/metrics.py.

A steps-per-second figure for solves is
rate(sudoku_worker_search_steps_total[1m])
/ rate(sudoku_worker_job_duration_seconds_sum{kind="solve"}[1m]).
"""

from __future__ import annotations

import logging
from typing import Any

from prometheus_client import Counter, Histogram

from sudoku.metrics import DURATION_BUCKETS

log = logging.getLogger("sudoku.metrics")


JOBS = Counter(
    "sudoku_worker_jobs",
    "Jobs run by the workers, by kind and outcome (solved/exhausted/gave_up/cancelled for a solve, ok otherwise; "
    "failed when the job raised)",
    ["kind", "outcome"],
    registry=None,
)
JOB_DURATION = Histogram(
    "sudoku_worker_job_duration_seconds",
    "Time a worker spent on one job, by kind",
    ["kind"],
    buckets=DURATION_BUCKETS,
    registry=None,
)
SEARCH_STEPS = Counter(
    "sudoku_worker_search_steps",
    "Search steps taken by finished solves",
    registry=None,
)


def job_ran(job, ok: bool, seconds: float) -> None:
    """Records one attempt at a job. Never raises: metrics must not fail a job."""
    try:
        kind = (job.func_name or "unknown").rpartition(".")[2]
        result = getattr(job, "_result", None) if ok else None  # RQ keeps the return value here
        JOB_DURATION.labels(kind).observe(seconds)
        if kind == "solve" and isinstance(result, dict):
            SEARCH_STEPS.inc(result.get("steps", 0))
        # Last, so that a reader who sees the job counted sees all of it.
        JOBS.labels(kind, _outcome(kind, ok, result)).inc()
    except Exception as exc:  # noqa: BLE001 - e.g. the metrics directory is gone
        log.warning("job metrics not recorded: %s", exc)


def call_ran(kind: str, outcome: str, seconds: float, steps: int = 0) -> None:
    """Records one call of a coalesced job (worker/calls.py), as a job of
    its kind: outcome ok (a solve's own: solved, exhausted, gave_up),
    harder (gone on to the heavy lane), refused (the call's own error: a
    Step position the engine refuses) or failed."""
    try:
        JOB_DURATION.labels(kind).observe(seconds)
        if steps:
            SEARCH_STEPS.inc(steps)
        JOBS.labels(kind, outcome).inc()
    except Exception as exc:  # noqa: BLE001 - as job_ran
        log.warning("call metrics not recorded: %s", exc)


def _outcome(kind: str, ok: bool, result: Any) -> str:
    if not ok:
        return "failed"
    if kind == "solve" and isinstance(result, dict):
        return str(result.get("outcome", "ok"))
    return "ok"
