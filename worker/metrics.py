"""The workers' Prometheus metrics, across processes, and the endpoint.

Workers are separate processes, several per machine, so each writes its
metrics to files in a directory its supervisor made for it
(prometheus_client's multiprocess mode, switched on by
PROMETHEUS_MULTIPROC_DIR in the worker's environment), and the supervising
process (sudoku-server or sudoku-worker) serves the sum of them. The
metrics are not registered in a worker's own registry: nothing scrapes a
worker directly, and the service process, which imports this module for
the collector, must not expose empty copies of them.

A steps-per-second figure for solves is
rate(sudoku_worker_search_steps_total[1m])
/ rate(sudoku_worker_job_duration_seconds_sum{kind="solve"}[1m]).
"""

from __future__ import annotations

import logging
import shutil
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, multiprocess, start_http_server

from sudoku import tempdirs

log = logging.getLogger("sudoku.metrics")

ENV = "PROMETHEUS_MULTIPROC_DIR"

# From a cached 1 ms hint to a solve at its 10 s time limit and beyond.
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)

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


def _outcome(kind: str, ok: bool, result: Any) -> str:
    if not ok:
        return "failed"
    if kind == "solve" and isinstance(result, dict):
        return str(result.get("outcome", "ok"))
    return "ok"


def new_dir() -> str:
    """A fresh directory for one supervisor's workers' metric files."""
    return tempdirs.owned("sudoku-metrics-")


def process_dead(path: str, pid: int) -> None:
    """Drops a dead worker's live gauges; its counters stay, so sums never go back."""
    multiprocess.mark_process_dead(pid, path)


def remove_dir(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def add_workers(registry: CollectorRegistry, path: str) -> None:
    """Makes `registry` expose the sum of the metric files in `path`."""
    multiprocess.MultiProcessCollector(registry, path=path)


class Endpoint:
    """An HTTP /metrics endpoint in a daemon thread."""

    def __init__(self, registry: CollectorRegistry, host: str, port: int):
        try:
            self.httpd, self.thread = start_http_server(port, host, registry)
        except OSError as exc:
            raise OSError(
                f"cannot serve metrics on {host}:{port} ({exc.strerror}); "
                "choose another SUDOKU_METRICS_PORT, or 0 to turn metrics off"
            ) from None
        self.host = host
        self.port = self.httpd.server_port

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)
