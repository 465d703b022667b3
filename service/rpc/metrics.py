"""The service's Prometheus metrics, and the endpoint sudoku-server serves.

Everything here is kept off the request path's Redis: counters and
histograms are in-process (a few dictionary look-ups per call), and the
queue depth is read only when Prometheus scrapes, one pipelined round trip
per scrape. The workers' metrics (worker/run/metrics.py) come from their
multiprocess files and are served by the same endpoint (sudoku/metrics.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Iterator

import grpc
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from redis import Redis
from redis.exceptions import RedisError
from rq import Queue

from service.rpc import handlers
from sudoku import keys
from sudoku import metrics as shared_metrics

log = logging.getLogger("sudoku.metrics")

SUDOKU_SERVICE = "sudoku.v1.Sudoku"

REQUESTS = Counter(
    "sudoku_requests",
    "gRPC calls handled, by service, method and status code",
    ["service", "method", "code"],
)
ACTIVE_STREAMS = Gauge(
    "sudoku_active_streams",
    "Open streaming calls of sudoku.v1.Sudoku (Solve, Watch, CountBatch, CountMany, GradeMany, Generate)",
    ["method"],
)
HTTP_REFUSED = Counter(
    "sudoku_http_refused",
    "HTTP port requests and connections refused before any RPC ran, by reason",
    ["reason"],
)
JOB_LATENCY = Histogram(
    "sudoku_job_latency_seconds",
    "Time from queueing a job to its result reaching the service, by job kind",
    ["kind"],
    buckets=shared_metrics.DURATION_BUCKETS,
)


def job_done(kind: str, queued_at: float) -> None:
    """Records a job's latency; `queued_at` is time.monotonic() before queueing."""
    JOB_LATENCY.labels(kind).observe(time.monotonic() - queued_at)


class RequestMetrics(handlers.Rewrapping):
    """Counts every call by its final status code; tracks open streams.

    Placed first, so it also counts calls that a later interceptor refuses
    (UNAUTHENTICATED). Unknown methods are not counted: their names come
    from the client and would make a label per typo.
    """

    def wrap(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        return instrumented(handler, method)


def instrumented(handler: grpc.RpcMethodHandler, method_path: str) -> grpc.RpcMethodHandler:
    service, _, method = method_path.lstrip("/").rpartition("/")
    streams = ACTIVE_STREAMS.labels(method) if service == SUDOKU_SERVICE and handler.response_streaming else None
    behavior = handlers.behavior(handler)
    if inspect.isasyncgenfunction(behavior):
        wrapped = _counted_stream(behavior, service, method, streams)
    elif inspect.iscoroutinefunction(behavior):
        wrapped = _counted_call(behavior, service, method, streams)
    else:  # a synchronous handler runs in a thread pool; leave it alone
        return handler
    return handlers.like(handler, wrapped)


def _counted_call(behavior, service: str, method: str, streams: Gauge | None):
    async def call(request, context):
        if streams is not None:
            streams.inc()
        error = None
        try:
            return await behavior(request, context)
        except BaseException as exc:
            error = exc
            raise
        finally:
            _finish(context, service, method, streams, error)

    return call


def _counted_stream(behavior, service: str, method: str, streams: Gauge | None):
    async def stream(request, context):
        if streams is not None:
            streams.inc()
        error = None
        try:
            async with contextlib.aclosing(behavior(request, context)) as items:
                async for item in items:
                    yield item
        except BaseException as exc:
            error = exc
            raise
        finally:
            _finish(context, service, method, streams, error)

    return stream


def _finish(context, service: str, method: str, streams: Gauge | None, error: BaseException | None) -> None:
    if streams is not None:
        streams.dec()
    REQUESTS.labels(service, method, _code_name(context, error)).inc()


def _code_name(context, error: BaseException | None) -> str:
    """The call's status: the one the handler set (or aborted with), else
    OK, else what the escaping exception becomes for the client."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code.name
    if isinstance(code, int):
        return _BY_VALUE.get(code, "UNKNOWN")
    if error is None:
        return "OK"
    # The client went away (or the server is stopping) mid-call.
    return "CANCELLED" if isinstance(error, (asyncio.CancelledError, GeneratorExit)) else "UNKNOWN"


_BY_VALUE = {status.value[0]: status.name for status in grpc.StatusCode}


class QueueDepth(Collector):
    """sudoku_queue_depth{cell,queue}: jobs waiting in each RQ queue of each cell, read at scrape time."""

    def __init__(self, cells: dict[str, Redis]):
        self.cells = cells  # each cell's blocking client, by the cell's name
        # RQ's own Queue objects name the keys (no key built by hand here).
        self.queues = [Queue(name, connection=next(iter(cells.values()))) for name in keys.QUEUES]

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily("sudoku_queue_depth", "Jobs waiting in each RQ queue (at scrape time)",
                                   labels=["cell", "queue"])
        for cell, redis in self.cells.items():
            try:
                with redis.pipeline(transaction=False) as pipe:
                    for queue in self.queues:
                        pipe.llen(queue.key)
                    depths = pipe.execute()
            except RedisError as exc:  # no samples: the scrape shows the gap (and sudoku_cell_up says why)
                log.warning("queue depth of cell %s unavailable: %s", cell, exc)
                depths = []
            for name, depth in zip(keys.QUEUES, depths):
                family.add_metric([cell, name], depth)
        yield family


class _Forward(Collector):
    """Everything in another registry (the default one: this process's metrics)."""

    def __init__(self, registry: CollectorRegistry):
        self.registry = registry

    def collect(self):
        return self.registry.collect()


def registry(cells, workers_dir: str | None) -> CollectorRegistry:
    """What sudoku-server exposes: its own metrics, queue depths, its workers'."""
    exposed = CollectorRegistry(auto_describe=False)
    exposed.register(_Forward(REGISTRY))
    exposed.register(QueueDepth({cell.name: cell.sync_redis for cell in cells.all}))
    if workers_dir:
        shared_metrics.add_workers(exposed, workers_dir)
    return exposed


def serve(settings, app, workers_dir: str | None) -> shared_metrics.Endpoint | None:
    """sudoku-server's /metrics endpoint (None when metrics_port is 0)."""
    if settings.metrics_port == 0:
        return None
    exposed = registry(app.cells, workers_dir)
    return shared_metrics.Endpoint(exposed, settings.metrics_host, settings.metrics_port)
