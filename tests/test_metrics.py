"""Prometheus metrics: `sudoku-server` run as docs/operations.md says, scraped over HTTP
after a few calls, with its workers' metrics from their own processes; and
the request counter's status codes in-process."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import tempfile
import threading
import time
import urllib.request

import grpc
import pytest
from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector
from rq import Queue

from service.rpc.metrics import QueueDepth
from sudoku import keys
from sudoku.metrics import Endpoint
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.stack import free_port, reap, start_sudoku_server, until

BOARD = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
TIMEOUT = 30


def scrape(port: int) -> dict[tuple[str, frozenset], float]:
    """Every sample of the endpoint, keyed by (name, labels)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples, name: str, **labels) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def requests(samples, method: str, code: str) -> float | None:
    return value(samples, "sudoku_requests_total", service="sudoku.v1.Sudoku", method=method, code=code)


@pytest.fixture
def server(tmp_path_factory):
    """sudoku-server with two workers and its metrics on a free port:
    (gRPC port, metrics port, the TMPDIR its temporary folders go to)."""
    # A short private TMPDIR: redis-server's unix socket goes there too.
    tmp = tempfile.mkdtemp(prefix="sm-")
    port, metrics_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PROMETHEUS_MULTIPROC_DIR")}
    env["TMPDIR"] = tmp
    proc, banner = start_sudoku_server(
        "--listen", f"127.0.0.1:{port}", "--workers", "2", "--metrics-port", str(metrics_port), "--http-listen", "127.0.0.1:0", env=env
    )
    try:
        assert f"metrics at http://127.0.0.1:{metrics_port}/metrics" in banner, banner
        yield proc, port, metrics_port, tmp
    finally:
        reap(proc)
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.slow
def test_sudoku_server_serves_service_and_worker_metrics(server):
    proc, port, metrics_port, tmp = server
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.SudokuStub(channel)
        for _ in range(2):
            assert stub.CountSolutions(pb.CountRequest(board=BOARD), timeout=TIMEOUT).verdict == pb.CountReply.UNIQUE
        with pytest.raises(grpc.RpcError):
            stub.CountSolutions(pb.CountRequest(board="x"), timeout=TIMEOUT)
        assert list(stub.Solve(pb.SolveRequest(board=BOARD), timeout=TIMEOUT))[-1].outcome == pb.SOLVED
        watched = stub.Solve(
            pb.SolveRequest(board=BOARD, view=pb.VIEW_SEARCH, pacing=pb.Pacing(duration_ms=5_000)), timeout=TIMEOUT
        )
        next(watched)  # the stream is open now

        def counted_both() -> dict | None:
            """A scrape once the workers counted both solves and no job waits:
            a worker counts a job just after the service has its result, so
            the two race by a moment. CI once scraped a job in the heavy
            queue after both solves were counted: a worker starved of CPU
            past its heartbeat's TTL loses its job, which is queued again
            and may run twice (docs/delivery.md), so each is counted at
            least once."""
            s = scrape(metrics_port)
            solved = value(s, "sudoku_worker_jobs_total", kind="solve", outcome="solved") or 0
            timed = value(s, "sudoku_worker_job_duration_seconds_count", kind="solve") or 0
            idle = all(value(s, "sudoku_queue_depth", cell="0", queue=queue) == 0 for queue in keys.QUEUES)
            return s if solved >= 2 and timed >= 2 and idle else None

        samples = until(counted_both, "the workers counted both solves and took every job", timeout=10, every=0.1)
        watched.cancel()

    # The service: requests by RPC and code, open streams, job latency, queue depth.
    assert requests(samples, "CountSolutions", "OK") == 2  # the second from the cache: one job
    assert requests(samples, "CountSolutions", "INVALID_ARGUMENT") == 1
    assert requests(samples, "Solve", "OK") == 1
    assert value(samples, "sudoku_active_streams", method="Solve") == 1
    assert value(samples, "sudoku_job_latency_seconds_count", kind="count") == 1
    assert value(samples, "sudoku_job_latency_seconds_count", kind="solve") == 1
    assert value(samples, "sudoku_job_latency_seconds_bucket", kind="count", le="+Inf") == 1
    # Every job was taken: each queue's depth is 0 (QueueDepth's own test is below).
    assert {value(samples, "sudoku_queue_depth", cell="0", queue=queue) for queue in keys.QUEUES} == {0}
    assert value(samples, "sudoku_cell_up", cell="0") == 1
    # The workers, summed over their processes.
    assert value(samples, "sudoku_worker_jobs_total", kind="count", outcome="ok") == 1
    assert value(samples, "sudoku_worker_jobs_total", kind="solve", outcome="solved") >= 2  # at least once: above
    assert value(samples, "sudoku_worker_job_duration_seconds_count", kind="solve") >= 2
    assert value(samples, "sudoku_worker_search_steps_total") > 0
    # This process's own figures come too.
    assert value(samples, "process_cpu_seconds_total") > 0
    assert value(samples, "process_open_fds") > 0

    folders = os.listdir(tmp)
    assert [f for f in folders if f.startswith("sudoku-metrics-")], folders
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    assert not [f for f in os.listdir(tmp) if f.startswith("sudoku-metrics-")], "the workers' metric files were left"


def test_queue_depth_is_read_from_redis_at_each_scrape(fresh_redis):
    redis = fresh_redis()
    depth = QueueDepth({"0": redis})

    def depths() -> dict[str, float]:
        (family,) = depth.collect()
        assert {sample.labels["cell"] for sample in family.samples} == {"0"}
        return {sample.labels["queue"]: sample.value for sample in family.samples}

    assert depths() == {queue: 0 for queue in keys.QUEUES}
    redis.rpush(Queue(keys.QUEUE_BATCH, connection=redis).key, "a", "b", "c")
    redis.rpush(Queue(keys.QUEUE_INTERACTIVE, connection=redis).key, "d")
    assert depths() == {keys.QUEUE_INTERACTIVE: 1, keys.QUEUE_HEAVY: 0, keys.QUEUE_BATCH: 3}


def counted(method: str, code: str) -> float:
    labels = {"service": "sudoku.v1.Sudoku", "method": method, "code": code}
    return REGISTRY.get_sample_value("sudoku_requests_total", labels) or 0.0


def test_refused_and_invalid_calls_are_counted_by_code(custom_service):
    running = custom_service(auth_token="metrics-test-token")
    good = (("authorization", "Bearer metrics-test-token"),)
    before = {code: counted("Hint", code) for code in ("OK", "UNAUTHENTICATED", "INVALID_ARGUMENT")}
    with grpc.insecure_channel(running.address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        stub.Hint(pb.HintRequest(givens=BOARD), timeout=TIMEOUT, metadata=good)
        for metadata, request in ((None, pb.HintRequest(givens=BOARD)), (good, pb.HintRequest(givens="x"))):
            with pytest.raises(grpc.RpcError):
                stub.Hint(request, timeout=TIMEOUT, metadata=metadata)
    expected = {"OK": 1, "UNAUTHENTICATED": 1, "INVALID_ARGUMENT": 1}
    # An aborted call's status reaches the client before the handler has
    # returned (and been counted), so give the count a moment.
    delta = lambda: {code: counted("Hint", code) - before[code] for code in before}  # noqa: E731
    until(lambda: delta() == expected, lambda: f"Hint's counts moved by {expected}, not {delta()}", timeout=5, every=0.01)


class CountedCollector(Collector):
    """A registry's only collector, counting the times it is rendered."""

    def __init__(self):
        self.collected = 0

    def collect(self):
        self.collected += 1
        yield GaugeMetricFamily("sudoku_test_gauge", "a gauge", value=1)


def test_the_endpoint_is_bounded_however_it_is_used():
    """124 scrapes a second took a core of the service's process (a render
    per scrape), and 150 idle connections held 150 threads: now the registry
    is rendered at most once a RENDER_EVERY_S, connections are capped at
    MAX_CONNECTIONS and each is dropped after CONNECTION_S, in one thread."""
    collector = CountedCollector()
    registry = CollectorRegistry()
    registry.register(collector)
    endpoint = Endpoint(registry, "127.0.0.1", 0)
    threads = threading.active_count()
    idle = [socket.create_connection(("127.0.0.1", endpoint.port)) for _ in range(150)]
    try:
        until(lambda: len(endpoint.writers) + endpoint.refused == len(idle))
        assert len(endpoint.writers) == Endpoint.MAX_CONNECTIONS and threading.active_count() <= threads
        for sock in idle:
            sock.close()
        until(lambda: not endpoint.writers)  # room again for scrapes, once the endpoint has seen them go
        started = time.monotonic()
        for _ in range(200):
            with urllib.request.urlopen(f"http://127.0.0.1:{endpoint.port}/metrics", timeout=10) as reply:
                assert b"sudoku_test_gauge 1.0" in reply.read()
        took = time.monotonic() - started
        assert collector.collected <= took / Endpoint.RENDER_EVERY_S + 2, (collector.collected, took)
    finally:
        endpoint.close()
