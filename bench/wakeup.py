"""How long a round trip takes after the callee has slept: run by hand.

    python bench/wakeup.py

A sequential client of sudoku-server crosses five processes (client,
service, Redis, worker, Redis again, service, client), each of which has
usually been asleep for a few milliseconds. On some machines (VMs whose
idle vCPUs halt) a sleeping process takes hundreds of microseconds to wake,
and that, more than CPU, sets a unary call's round trip. This measures it
for the two hops we cannot remove: a Redis PING (embedded redis-server,
unix socket) and a gRPC health check of sudoku-server, each after the
caller busy-waits 0 to 5 ms (so the caller itself stays awake).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402
from redis import Redis  # noqa: E402

from bench.stack import sudoku_server  # noqa: E402
from launcher.embedded_redis import EmbeddedRedis  # noqa: E402

GAPS_MS = (0, 0.2, 0.5, 1, 2, 5)
CALLS = 600


def after_gaps(call) -> list[float]:
    """Median round trip (ms) of `call` after each idle gap."""
    medians = []
    for gap in GAPS_MS:
        for _ in range(50):
            call()
        times = []
        for _ in range(CALLS):
            start = time.perf_counter()
            while time.perf_counter() - start < gap / 1000:
                pass
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        medians.append(statistics.median(times) * 1000)
    return medians


def main() -> None:
    redis_server = EmbeddedRedis().start()
    try:
        redis = Redis.from_url(redis_server.url)
        rows = [("Redis PING", after_gaps(redis.ping))]
        redis.close()
    finally:
        redis_server.stop()
    with sudoku_server(workers=0) as (address, _):
        with grpc.insecure_channel(address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            rows.append(("gRPC health check", after_gaps(lambda: health.Check(health_pb2.HealthCheckRequest()))))
    print("median round trip (ms) after the caller idles for:")
    print(f"{'':18}" + "".join(f"{g:>8g} ms" for g in GAPS_MS))
    for name, medians in rows:
        print(f"{name:18}" + "".join(f"{m:>11.2f}" for m in medians))


if __name__ == "__main__":
    main()
