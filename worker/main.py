"""`sudoku-worker`: run N workers against a Redis, for scaling out.

Point any number of machines at the same Redis (REDIS_URL) and each runs
jobs from the same queues; nothing else needs configuring.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading

from prometheus_client import CollectorRegistry

from worker import metrics
from worker.supervisor import Supervisor


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="sudoku-worker",
        description="Run Sudoku workers against a Redis (REDIS_URL).",
        epilog="example: REDIS_URL=redis://10.0.0.5:6379/0 sudoku-worker -n 4",
    )
    parser.add_argument("-n", "--workers", type=int, default=int(os.environ.get("SUDOKU_WORKERS", os.cpu_count() or 1)),
                        help="worker processes (default: SUDOKU_WORKERS or the CPU count)")
    parser.add_argument("--log-level", default=os.environ.get("SUDOKU_LOG_LEVEL", "WARNING"))
    parser.add_argument("--metrics-port", type=int, default=int(os.environ.get("SUDOKU_METRICS_PORT") or 9464),
                        help="Prometheus endpoint of these workers' metrics, 0: off (default: SUDOKU_METRICS_PORT or 9464)")
    parser.add_argument("--metrics-host", default=os.environ.get("SUDOKU_METRICS_HOST") or "127.0.0.1",
                        help="address of the metrics endpoint (default: SUDOKU_METRICS_HOST or 127.0.0.1)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        parser.error("REDIS_URL is not set (sudoku-server starts an embedded Redis; sudoku-worker needs one to join)")
    logging.basicConfig(level=args.log_level, format="%(asctime)s sudoku-worker %(levelname)s %(message)s")
    supervisor = Supervisor(args.workers, redis_url, args.log_level)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    supervisor.start()
    try:
        endpoint = _serve_metrics(supervisor, args.metrics_host, args.metrics_port)
    except OSError as exc:
        supervisor.stop()
        sys.exit(f"sudoku-worker: {exc}")
    logging.getLogger("sudoku.worker").warning("%d workers running against %s", args.workers, _safe(redis_url))
    while not stop.wait(0.5):
        supervisor.check()
    if endpoint is not None:
        endpoint.close()
    supervisor.stop()


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
