"""Where a call's time goes: one Hint at a time, split by the spans of every process. Run by hand, prints figures.

    python bench/timeline.py [--calls 500] [--kind hint|count]

sudoku-server as `make up` runs it (2 workers and the interactive one,
embedded Redis, the result cache off: every call is worked out) exports
its traces (sudoku/tracing.py: the standard OTEL_* variables) to an
OTLP/HTTP receiver in this process (tests/otlp.py). The calls go one at a
time from this process's gRPC client on fresh top1465 boards (a Hint: a
puzzle with part of its solution filled in), each with a traceparent of
its own, so every span of a call is found by its trace id. Each call's
time is cut at the spans' ends (wall clocks of one machine):

- the client's round trip less the service's RPC span: gRPC in and out
  (both processes' gRPC, the loopback, the wake-ups);
- in the RPC span: before `enqueue` (checks, the cache key), `enqueue`
  (the SUBMIT round trip, or waiting for the open job), between it and
  the reply (`reply wait`), after (the reply to gRPC);
- in `reply wait`: until the worker starts on the call (a job's
  dequeue and start, or a running job's wait for more calls ending), the
  work itself (the kind's span: the step search, the sentence, the reply),
  and from its end to the reply's arrival (the reply's write, the inbox's
  read, waking the call).

Medians and means over the calls (the means add up); tracing's own cost is
in the figures (a span's export runs off the request path, in a thread).
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402

from bench.pipeline import requests_of  # noqa: E402
from bench.stack import free_port  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc  # noqa: E402
from tests.otlp import Receiver  # noqa: E402
from tests.stack import installed_script  # noqa: E402

METHODS = {"hint": ("Hint", pb.HintRequest), "count": ("CountSolutions", pb.CountRequest)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--kind", choices=sorted(METHODS), default="hint")
    args = parser.parse_args()
    method, request_type = METHODS[args.kind]
    receiver = Receiver()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_") and k != "REDIS_URL"}
    env.update(OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url, OTEL_BSP_SCHEDULE_DELAY="200", PYTHONUNBUFFERED="1")
    server = subprocess.Popen([installed_script("sudoku-server"), "--listen", f"127.0.0.1:{port}", "--workers", "2",
                               "--metrics-port", "0", "--http-listen", "", "--cache-ttl-s", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    calls: dict[str, float] = {}
    try:
        if "listening" not in server.stdout.readline():
            raise SystemExit("sudoku-server did not start")
        requests = [request_type.FromString(r) for r in requests_of(args.kind, args.calls + 50, random.Random(5))]
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = getattr(pb_grpc.SudokuStub(channel), method)
            for i, request in enumerate(requests):
                trace_id = secrets.token_hex(16)
                started = time.time_ns()
                call(request, metadata=[("traceparent", f"00-{trace_id}-{secrets.token_hex(8)}-01")], timeout=30)
                if i >= 50:  # the first ones warm the processes up
                    calls[trace_id] = (time.time_ns() - started) / 1e6
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len({s.trace_id for s in receiver.spans} & calls.keys()) < len(calls):
            time.sleep(0.2)  # the exporters send their last batches
    finally:
        server.terminate()
        server.wait(30)
        receiver.close()
    by_trace: dict[str, dict[str, tuple[int, int]]] = {}
    for span in receiver.spans:
        by_trace.setdefault(span.trace_id, {})[span.name] = (span.start_ns, span.end_ns)
    kind_span = {"hint": "hint", "count": "count"}[args.kind]
    parts: dict[str, list[float]] = {}
    for trace_id, round_trip in calls.items():
        spans = by_trace.get(trace_id, {})
        names = (f"/sudoku.v1.Sudoku/{method}", "enqueue", "reply wait", "queue wait", kind_span)
        if not all(name in spans for name in names):
            continue
        rpc, enqueue, reply, queued, work = (spans[name] for name in names)
        ms = lambda a, b: (b - a) / 1e6  # noqa: E731
        for name, value in (
            ("round trip, at the client", round_trip),
            ("gRPC in and out (round trip less the RPC span)", round_trip - ms(*rpc)),
            ("the service, before the job (checks, cache key)", ms(rpc[0], enqueue[0])),
            ("into a job (SUBMIT round trip)", ms(*enqueue)),
            ("until a worker takes it up", ms(enqueue[1], work[0])),
            (f"the worker's {kind_span} (C and Python)", ms(*work)),
            ("its reply back to the call (write, inbox, wake)", ms(work[1], reply[1])),
            ("the service, after the reply", ms(reply[1], rpc[1])),
        ):
            parts.setdefault(name, []).append(value)
    found = len(parts.get("round trip, at the client", []))
    print(f"{found} of {len(calls)} {method} calls with every span; ms (the means add up to the round trip's)")
    print(f"{'':50} {'median':>7} {'mean':>7}")
    for name, values in parts.items():
        print(f"{name:50} {statistics.median(values):7.3f} {statistics.fmean(values):7.3f}")


if __name__ == "__main__":
    main()
