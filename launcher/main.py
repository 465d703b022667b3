"""`sudoku-server`: the whole service in one command.

With no REDIS_URL it starts an embedded redis-server (launcher.embedded_redis);
with REDIS_URL it uses that one. Then it starts the worker processes and the
gRPC server (and the HTTP port for browsers, service.http.web), prints where
they listen, and on Ctrl-C or SIGTERM stops everything it started, in
order: the servers (health goes NOT_SERVING, open streams end), the
workers (each finishes its current job), Redis. While it runs it restarts
whatever of its own dies: a worker, or the embedded Redis; if the embedded
Redis cannot be brought back it stops everything and exits non-zero, for
its own supervisor to act.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys

from launcher.embedded_redis import EmbeddedRedis, RedisGone
from service.http import web
from service.rpc import metrics, security
from service.rpc.app import check_cells, start
from sudoku import heap, tracing
from sudoku.config import Settings
from worker.run.supervisor import Supervisor

# A stop must fit in Docker's default 10 s between SIGTERM and SIGKILL: unary
# calls get GRACE_S to finish, then the workers WORKERS_GRACE_S for their
# jobs (the batch calls' jobs stop as their calls end), then Redis stops.
GRACE_S = 5.0
WORKERS_GRACE_S = 3.0

EXAMPLES = """examples:
  sudoku-server                         embedded Redis, one worker per CPU, 127.0.0.1:50051
  sudoku-server --workers 4 --listen 0.0.0.0:50051
  sudoku-server --http-listen 0.0.0.0:8080 --http-origins https://game.example   the page, and the API for that origin's pages
  REDIS_URL=redis://redis:6379/0 sudoku-server --workers 0   service only; workers elsewhere
  SUDOKU_TLS_CERT=cert.pem SUDOKU_TLS_KEY=key.pem SUDOKU_AUTH_TOKEN=... sudoku-server --listen 0.0.0.0:50051
"""


def worker_env(settings: Settings) -> dict[str, str]:
    """What the workers sudoku-server starts take from its settings: the
    worker class, and the key of Step positions, which they sign with."""
    env = {"SUDOKU_WORKER_CLASS": settings.worker_class}
    if settings.position_key:
        env["SUDOKU_POSITION_KEY"] = settings.position_key
    return env


async def serve(settings: Settings) -> None:
    embedded = None
    if not settings.redis_url:
        embedded = EmbeddedRedis(settings.redis_server, settings.redis_maxmemory_mb).start()
        settings.redis_url = embedded.url
    supervisor = Supervisor(
        settings.workers, settings.redis_url, settings.log_level, env=worker_env(settings),
        interactive=settings.interactive_workers if settings.workers else 0,
    )
    app = endpoint = None
    try:
        supervisor.start()
        app = await start(settings)
        heap.settle()
        endpoint = metrics.serve(settings, app, supervisor.metrics_dir)
        where = "embedded redis-server at " + embedded.socket if embedded else "REDIS_URL"
        host = settings.listen.rsplit(":", 1)[0]
        scheme = "TLS" if settings.tls_cert else "plaintext"
        scrape = f"metrics at http://{endpoint.host}:{endpoint.port}/metrics" if endpoint else "metrics off"
        page = f"page and browser API at {app.http.url}" if app.http else "browser API off"
        print(
            f"sudoku-server listening on {host}:{app.port} ({scheme}, {_workers(supervisor)}, {where}, {scrape},"
            f" {page}); Ctrl-C stops it",
            flush=True,
        )
        await _until_signalled(supervisor, embedded)
    finally:
        if endpoint is not None:
            endpoint.close()
        if app is not None:
            await app.stop(GRACE_S)
        supervisor.stop(WORKERS_GRACE_S)
        if embedded is not None:
            embedded.stop()


def _workers(supervisor: Supervisor) -> str:
    reserved = len(supervisor.slots) - supervisor.count
    return f"{supervisor.count} workers" + (f" + {reserved} interactive" if reserved else "")


async def _until_signalled(supervisor: Supervisor, embedded: EmbeddedRedis | None) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    while not stop.is_set():
        try:
            async with asyncio.timeout(0.5):
                await stop.wait()
        except TimeoutError:
            if embedded is not None:
                embedded.check()  # before the workers: they need it
            supervisor.check()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="sudoku-server",
        description="Run the Sudoku service: gRPC API, RQ workers and (unless REDIS_URL is set) an embedded Redis.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    Settings.add_arguments(parser)
    settings = Settings.from_args(parser.parse_args(argv))
    logging.basicConfig(level=settings.log_level, format="%(asctime)s sudoku-server %(levelname)s %(message)s")
    tracing.setup("sudoku-server")  # only when OTEL_* asks for it
    try:
        security.check(settings)
        web.check(settings)
        if settings.redis_url:
            check_cells(settings)  # before a worker is started on a URL it cannot use
        asyncio.run(serve(settings))
    except (OSError, security.ConfigError, RedisGone) as exc:
        sys.exit(f"sudoku-server: {exc}")


if __name__ == "__main__":
    main()
