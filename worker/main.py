"""`sudoku-worker`: run N workers against a Redis, for scaling out.

Point any number of machines at the same Redis (REDIS_URL) and each runs
jobs from the same queues; nothing else needs configuring. Configured like
sudoku-server, by the same environment variables (sudoku/config.py), with
a few flags of its own.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from prometheus_client import CollectorRegistry

from sudoku import cells
from sudoku.config import Settings
from worker import metrics
from worker.supervisor import Supervisor

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
