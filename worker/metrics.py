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

import asyncio
import logging
import shutil
import threading
import time
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest, multiprocess

from sudoku import tempdirs

log = logging.getLogger("sudoku.metrics")

ENV = "PROMETHEUS_MULTIPROC_DIR"

# From a cached hint (milliseconds) to a solve at its time limit and beyond.
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


def call_ran(kind: str, outcome: str, seconds: float) -> None:
    """Records one call of a coalesced job (worker/calls.py), as a job of
    its kind: outcome ok, harder (gone on to the heavy lane), refused (the
    call's own error: a Step position the engine refuses) or failed."""
    try:
        JOB_DURATION.labels(kind).observe(seconds)
        JOBS.labels(kind, outcome).inc()
    except Exception as exc:  # noqa: BLE001 - as job_ran
        log.warning("call metrics not recorded: %s", exc)


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
    """An HTTP /metrics endpoint in a thread of its own, bounded: at most
    MAX_CONNECTIONS connections at once (more are closed as they come), each
    given CONNECTION_S to send its request, and the registry rendered at most
    once every RENDER_EVERY_S however often it is scraped (a scrape in
    between gets the last rendering). Prometheus scrapes every few seconds;
    prometheus_client's own server renders on every request, in a thread per
    connection, which let 124 scrapes a second take a core of the service's
    process and 150 idle connections hold 150 threads."""

    MAX_CONNECTIONS = 16
    CONNECTION_S = 5.0
    RENDER_EVERY_S = 1.0

    def __init__(self, registry: CollectorRegistry, host: str, port: int):
        self.registry = registry
        self.rendered: tuple[float, bytes] = (float("-inf"), b"")
        self.renders = 0
        self.writers: set[asyncio.StreamWriter] = set()
        self.refused = 0  # connections closed as they came, MAX_CONNECTIONS being open
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="metrics", daemon=True)
        self.thread.start()
        try:
            self.server = asyncio.run_coroutine_threadsafe(
                asyncio.start_server(self._serve, host, port, backlog=64), self.loop).result(10)
        except OSError as exc:
            self._stop_loop()
            raise OSError(
                f"cannot serve metrics on {host}:{port} ({exc.strerror}); "
                "choose another SUDOKU_METRICS_PORT, or 0 to turn metrics off"
            ) from None
        self.host = host
        self.port = self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self.writers) >= self.MAX_CONNECTIONS:
            self.refused += 1
            writer.transport.abort()
            return
        self.writers.add(writer)
        try:
            async with asyncio.timeout(self.CONNECTION_S):
                request = await reader.readuntil(b"\r\n\r\n")
                writer.write(self._reply(request.split(b" ", 2)))
                await writer.drain()
        except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self.writers.discard(writer)
            writer.close()

    def _reply(self, line: list[bytes]) -> bytes:
        if len(line) < 2 or line[0] not in (b"GET", b"HEAD") or line[1].split(b"?")[0] not in (b"/metrics", b"/"):
            return b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        body = self._body()
        head = (f"HTTP/1.1 200 OK\r\ncontent-type: {CONTENT_TYPE_LATEST}\r\ncontent-length: {len(body)}\r\n"
                "connection: close\r\n\r\n").encode()
        return head + (body if line[0] == b"GET" else b"")

    def _body(self) -> bytes:
        at, body = self.rendered
        now = time.monotonic()
        if now - at >= self.RENDER_EVERY_S:
            body = generate_latest(self.registry)
            self.rendered = (now, body)
            self.renders += 1
        return body

    def close(self) -> None:
        async def stop() -> None:
            self.server.close()
            for writer in list(self.writers):
                writer.transport.abort()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(5)
        self._stop_loop()

    def _stop_loop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()
