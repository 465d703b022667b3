"""An OTLP/HTTP trace receiver on loopback, for the tests of traces and
for bench/timeline.py: every span sent to it, with its times."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NamedTuple

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2


class Span(NamedTuple):
    trace_id: str
    name: str
    service: str  # the resource's service.name
    pid: int  # the resource's process.pid
    start_ns: int
    end_ns: int


class Receiver:
    """The spans it was sent; `url` is its OTEL_EXPORTER_OTLP_ENDPOINT."""

    def __init__(self):
        self.spans: list[Span] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
                for resource_spans in request.resource_spans:
                    attributes = {a.key: a.value for a in resource_spans.resource.attributes}
                    service = attributes["service.name"].string_value
                    pid = attributes["process.pid"].int_value
                    for scope in resource_spans.scope_spans:
                        for span in scope.spans:
                            receiver.spans.append(Span(span.trace_id.hex(), span.name, service, pid,
                                                       span.start_time_unix_nano, span.end_time_unix_nano))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def of(self, trace_id: str) -> list[tuple[str, str, int]]:
        """The trace's spans as (name, service, pid)."""
        return [(s.name, s.service, s.pid) for s in list(self.spans) if s.trace_id == trace_id]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
