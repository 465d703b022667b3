"""Traces across the hops (sudoku/tracing.py): sudoku-server and its
workers, real processes configured by the standard OTEL_* variables only,
export to a real OTLP/HTTP receiver in the test; a Hint and a watched Solve
sent with a client's W3C traceparent each come back as one trace with
spans from the service's process and a worker's.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import secrets
import urllib.request

import grpc
import pytest

from sudoku import tracing
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.puzzles import WIKIPEDIA
from tests.stack import free_port, reap, start_sudoku_server, until

pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2",
                    reason="OpenTelemetry is not installed: pip install -e '.[test]'")
from tests.otlp import Receiver  # noqa: E402 - after the skip
TIMEOUT = 30


@pytest.fixture
def traced():
    receiver = Receiver()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_") and k != "REDIS_URL"}
    env.update(OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url, OTEL_BSP_SCHEDULE_DELAY="100")
    proc, banner = start_sudoku_server("--listen", f"127.0.0.1:{port}", "--workers", "1", env=env)
    try:
        assert "listening" in banner, banner
        http_address = re.search(r"page and browser API at http://([\d.:]+)/", banner).group(1)
        yield receiver, f"127.0.0.1:{port}", proc, http_address
    finally:
        proc.terminate()
        proc.wait(30)
        reap(proc)
        receiver.close()


def traceparent() -> tuple[str, str]:
    """A client's span: (its trace id, the traceparent metadata it sends)."""
    trace_id = secrets.token_hex(16)
    return trace_id, f"00-{trace_id}-{secrets.token_hex(8)}-01"


def test_a_hint_and_a_watched_solve_are_each_one_trace_across_the_service_and_a_worker(traced):
    receiver, address, proc, _ = traced
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        hint_trace, parent = traceparent()
        reply = stub.Hint(pb.HintRequest(givens=WIKIPEDIA), metadata=[("traceparent", parent)], timeout=TIMEOUT)
        assert reply.kind in (pb.HintReply.NEXT_MOVE, pb.HintReply.ELIMINATION)
        solve_trace, parent = traceparent()
        frames = list(stub.Solve(pb.SolveRequest(board=WIKIPEDIA, view=pb.VIEW_SEARCH, pacing=pb.Pacing(unpaced=True)),
                                 metadata=[("traceparent", parent)], timeout=TIMEOUT))
        assert frames[-1].outcome == pb.SOLVED

    wanted = {hint_trace: {"enqueue", "reply wait", "queue wait", "hint", "/sudoku.v1.Sudoku/Hint"},
              solve_trace: {"enqueue", "relay", "queue wait", "step search", "/sudoku.v1.Sudoku/Solve"}}
    for trace_id, names in wanted.items():
        until(lambda: names <= {name for name, _, _ in receiver.of(trace_id)},  # noqa: B023
              f"the spans {sorted(names)} of trace {trace_id}", timeout=TIMEOUT)
        spans = receiver.of(trace_id)
        services = {service for _, service, _ in spans}
        assert services == {"sudoku-server", "sudoku-worker"}, spans
        server_pids = {pid for _, service, pid in spans if service == "sudoku-server"}
        worker_pids = {pid for _, service, pid in spans if service == "sudoku-worker"}
        assert server_pids == {proc.pid} and len(worker_pids) == 1 and worker_pids != server_pids, spans
        assert {name for name, service, _ in spans if service == "sudoku-worker"} >= {"queue wait"}


def test_tracing_is_off_unless_the_otel_variables_ask_for_it():
    assert not tracing.wanted({})
    assert not tracing.wanted({"OTEL_SERVICE_NAME": "x"})
    assert tracing.wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})
    assert tracing.wanted({"OTEL_TRACES_EXPORTER": "console"})
    assert not tracing.wanted({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"})
    assert not tracing.wanted({"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"})


def test_with_tracing_on_the_http_port_answers_as_before(traced):
    """The HTTP port's calls carry no trace context yet (docs/operations.md, Traces):
    with tracing on they are answered as ever, plain and gzipped."""
    _, _, _, http_address = traced
    body = json.dumps({"givens": WIKIPEDIA}).encode()
    for data, headers in ((body, {}), (gzip.compress(body), {"Content-Encoding": "gzip"})):
        request = urllib.request.Request(f"http://{http_address}/sudoku.v1.Sudoku/Hint", data=data,
                                         headers={"Content-Type": "application/json", **headers})
        with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:
            assert reply.status == 200
            assert json.loads(reply.read())["kind"] == "NEXT_MOVE"
