"""The supervising process: `sudoku-worker`, and the N worker processes it
starts, restarts when they die, and stops.

`sudoku-worker` (main, below) runs workers only, against a Redis that
REDIS_URL names, for scaling out: point any number of machines at the same
Redis and each runs jobs from the same queues; nothing else needs
configuring. It is configured like sudoku-server, by the same environment
variables (sudoku/config.py), with a few flags of its own. sudoku-server
(the embedded default) uses the same Supervisor.

Each worker is its own process running worker.run.process; a worker that dies
(a crash, a SIGKILL) is replaced after a short, growing back-off so a crash
loop does not spin the CPU. Its job, if it had one, is retried by the other
workers (worker.run.process).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry

from sudoku import cells, metrics
from sudoku.config import Settings

log = logging.getLogger("sudoku.supervisor")

MAX_BACKOFF = 10.0
# Each worker is told its supervisor's pid rather than reading its parent's:
# a supervisor killed before the worker looked would leave it taking init
# for its supervisor, waiting for a Redis that is gone, for ever.
SUPERVISOR_PID = "SUDOKU_SUPERVISOR_PID"


@dataclass
class _Slot:
    url: str  # REDIS_URL of its process: the one cell it serves
    queues: str = "all"  # SUDOKU_WORKER_QUEUES of its process
    proc: subprocess.Popen | None = None
    backoff: float = 0.5
    restart_at: float = 0.0
    started_at: float = field(default_factory=time.monotonic)


class Supervisor:
    """`count` workers on every queue, and `interactive` more that take only
    interactive jobs (Solve, Hint, CountSolutions), so that batch calls,
    however long, never occupy every worker (docs/operations.md, "Limits").

    When `redis_url` lists several cells (sudoku/cells.py), each worker
    serves one: the `count` are dealt out over the cells, at least one
    each, and each cell gets `interactive` of its own."""

    def __init__(self, count: int, redis_url: str, log_level: str = "WARNING", env: dict[str, str] | None = None,
                 interactive: int = 0):
        urls = cells.parse(redis_url)
        self.count = max(count, len(urls)) if count else 0
        self.env = dict(os.environ, SUDOKU_LOG_LEVEL=log_level, **(env or {}))
        self.slots = [_Slot(urls[i % len(urls)]) for i in range(self.count)]
        self.slots += [_Slot(url, "interactive") for url in urls for _ in range(interactive)]
        self.stopping = False
        self.metrics_dir: str | None = None

    def start(self) -> None:
        # The workers write their metrics to files here (prometheus_client's
        # multiprocess mode); whoever runs the supervisor serves their sum.
        self.metrics_dir = metrics.new_dir()
        self.env[metrics.ENV] = self.metrics_dir
        for slot in self.slots:
            self._spawn(slot)

    def pids(self) -> list[int]:
        return [s.proc.pid for s in self.slots if s.proc and s.proc.poll() is None]

    def _spawn(self, slot: _Slot) -> None:
        slot.proc = subprocess.Popen([sys.executable, "-m", "worker.run.process"],
                                     env={**self.env, "REDIS_URL": slot.url, "SUDOKU_WORKER_QUEUES": slot.queues,
                                          SUPERVISOR_PID: str(os.getpid())})
        slot.started_at = time.monotonic()

    def check(self) -> None:
        """Replaces workers that exited; call every fraction of a second."""
        if self.stopping:
            return
        now = time.monotonic()
        for slot in self.slots:
            if slot.proc is not None and slot.proc.poll() is not None:
                code = slot.proc.returncode
                metrics.process_dead(self.metrics_dir, slot.proc.pid)
                # A worker that ran a while before dying is not a crash loop.
                slot.backoff = 0.5 if now - slot.started_at > 30 else min(slot.backoff * 2, MAX_BACKOFF)
                slot.restart_at = now + slot.backoff
                log.warning("worker %d exited with %s; restarting in %.1fs", slot.proc.pid, code, slot.backoff)
                slot.proc = None
            if slot.proc is None and now >= slot.restart_at:
                self._spawn(slot)

    def stop(self, timeout: float = 10.0) -> None:
        """Warm shutdown (each finishes its job), then SIGKILL at `timeout`."""
        self.stopping = True
        live = [s.proc for s in self.slots if s.proc is not None and s.proc.poll() is None]
        for proc in live:
            proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for proc in live:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("worker %d did not stop in %.0fs; killing it", proc.pid, timeout)
                proc.kill()
                proc.wait()
        if self.metrics_dir is not None:
            metrics.remove_dir(self.metrics_dir)


# Within Docker's default 10 s between SIGTERM and SIGKILL: each worker
# finishes its job in that time, or is killed and its job retried elsewhere.
STOP_GRACE_S = 8.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="sudoku-worker",
        description="Run Sudoku workers against a Redis (REDIS_URL).",
        epilog="example: REDIS_URL=redis://10.0.0.5:6379/0 sudoku-worker -n 4",
    )
    parser.add_argument("-n", "--workers", type=int, default=None,
                        help="worker processes on every queue (default: SUDOKU_WORKERS, else the CPUs it may use)")
    parser.add_argument("--interactive", type=int, default=None, metavar="N",
                        help="more worker processes that take only interactive jobs "
                             "(default: SUDOKU_INTERACTIVE_WORKERS, else 1)")
    parser.add_argument("--log-level", default=None, help="(default: SUDOKU_LOG_LEVEL, else WARNING)")
    parser.add_argument("--metrics-port", type=int, default=None,
                        help="Prometheus endpoint of these workers' metrics, 0: off (default: SUDOKU_METRICS_PORT, "
                             "else 9464)")
    parser.add_argument("--metrics-host", default=None,
                        help="address of the metrics endpoint (default: SUDOKU_METRICS_HOST, else 127.0.0.1)")
    args = parser.parse_args(argv)
    settings = Settings.from_env(workers=args.workers, interactive_workers=args.interactive,
                                 log_level=args.log_level, metrics_port=args.metrics_port,
                                 metrics_host=args.metrics_host)
    if settings.workers < 1:
        parser.error("--workers must be at least 1")
    if settings.interactive_workers < 0:
        parser.error("--interactive must be 0 or more")
    if not settings.redis_url:
        parser.error("REDIS_URL is not set (sudoku-server starts an embedded Redis; sudoku-worker needs one to join)")
    try:
        cells.one(settings.redis_url, "sudoku-worker")
    except cells.BadCells as exc:
        parser.error(str(exc))
    logging.basicConfig(level=settings.log_level, format="%(asctime)s sudoku-worker %(levelname)s %(message)s")
    supervisor = Supervisor(settings.workers, settings.redis_url, settings.log_level,
                            env={"SUDOKU_WORKER_CLASS": settings.worker_class},
                            interactive=settings.interactive_workers)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    supervisor.start()
    try:
        endpoint = _serve_metrics(supervisor, settings.metrics_host, settings.metrics_port)
    except OSError as exc:
        supervisor.stop()
        sys.exit(f"sudoku-worker: {exc}")
    logging.getLogger("sudoku.worker").warning("%d workers (+ %d interactive) running against %s",
                                               settings.workers, settings.interactive_workers,
                                               _safe(settings.redis_url))
    while not stop.wait(0.5):
        supervisor.check()
    if endpoint is not None:
        endpoint.close()
    supervisor.stop(STOP_GRACE_S)

def _serve_metrics(supervisor: Supervisor, host: str, port: int) -> metrics.Endpoint | None:
    if port == 0:
        return None
    registry = CollectorRegistry(auto_describe=False)
    metrics.add_workers(registry, supervisor.metrics_dir)
    return metrics.Endpoint(registry, host, port)


def _safe(url: str) -> str:
    """The URL without its password, for logs."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.password:
        return url.replace(parts.password, "***")
    return url


if __name__ == "__main__":
    main()
