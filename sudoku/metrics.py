"""Metrics that cross processes, and the endpoint that serves them.

Workers are separate processes, so each writes its metrics to files in a
directory its supervisor made for it (prometheus_client's multiprocess
mode, switched on by PROMETHEUS_MULTIPROC_DIR in the worker's environment),
and the supervising process (sudoku-server or sudoku-worker) serves their
sum beside its own: worker/run/metrics.py defines the workers' metrics,
service/rpc/metrics.py the service's; both use the buckets and the endpoint
here.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
import time

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess

from sudoku import tempdirs

ENV = "PROMETHEUS_MULTIPROC_DIR"

# From a cached hint (milliseconds) to a solve at its time limit and beyond.
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)


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
