"""Traces across the hops (OpenTelemetry): off unless the standard OTEL_*
variables ask for them.

A call's trace runs client -> service -> queue wait -> worker -> reply. The
service's gRPC port is instrumented by opentelemetry-instrumentation-grpc
(a span per RPC, its parent the caller's W3C `traceparent` metadata); the
hops after it carry the RPC's context in the job as a W3C traceparent (a
coalesced call in its entry, worker/calls.py; a solve in its job's
arguments), with the wall-clock time it was queued, and each process adds
its spans to that trace: `enqueue` and `reply wait` (a coalesced call) or
`enqueue` and `relay` (a solve) in the service, `queue wait` and the work
itself (`hint`, `count`, `grade`, `explain`, `step`, `step search` for a
solve) in the worker. Spans after the fact (record) keep async generators
and threads out of OpenTelemetry's context juggling.

Tracing is on in a process when OTEL_TRACES_EXPORTER names an exporter
(`otlp`, `console`), or when OTEL_EXPORTER_OTLP_ENDPOINT or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and OTEL_SDK_DISABLED is not
`true`; the exporter, its endpoint, the batch delays and the resource
(OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) are the SDK's own settings.
With tracing off nothing of OpenTelemetry is imported, and a call pays one
test of a module global (bench/pipeline.py measures it).
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Mapping

_tracer = None
_inject = _extract = None  # opentelemetry.propagate's, once tracing is on


def wanted(env: Mapping[str, str] = os.environ) -> bool:
    """Whether the OTEL_* variables ask for traces."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip()
    if exporter:
        return exporter != "none"
    return bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def setup(name: str) -> bool:
    """Starts tracing in this process when wanted(), as service `name`
    (unless OTEL_SERVICE_NAME gives another); returns whether it is on."""
    global _tracer, _inject, _extract
    if _tracer is not None or not wanted():
        return _tracer is not None
    try:
        from opentelemetry import trace
        from opentelemetry.propagate import extract, inject
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError as exc:
        raise SystemExit(f"OTEL_* asks for traces, but OpenTelemetry is not installed ({exc}): "
                         "pip install 'sudoku-service[tracing]'") from None
    if os.environ.get("OTEL_TRACES_EXPORTER", "otlp").strip() == "console":
        exporter = ConsoleSpanExporter()
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or name,
                                "process.pid": os.getpid()})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    atexit.register(provider.shutdown)  # sends what is left
    _inject, _extract = inject, extract
    _tracer = trace.get_tracer("sudoku")
    return True


def enabled() -> bool:
    return _tracer is not None


def server_interceptors() -> list:
    """The gRPC port's span per RPC, when tracing is on."""
    if _tracer is None:
        return []
    from opentelemetry.instrumentation.grpc import aio_server_interceptor

    return [aio_server_interceptor()]


def carrier() -> str:
    """The current span's W3C traceparent, to carry into a job ("" when off or none)."""
    if _tracer is None:
        return ""
    headers: dict[str, str] = {}
    _inject(headers)
    return headers.get("traceparent", "")


def record(name: str, parent: str, start_ns: int, end_ns: int, **attributes) -> None:
    """A span that has ended, child of `parent` (a traceparent; none: a
    trace of its own)."""
    if _tracer is None:
        return
    context = _extract({"traceparent": parent}) if parent else None
    span = _tracer.start_span(name, context=context, start_time=start_ns, attributes=attributes)
    span.end(end_time=end_ns)
