"""Another player's Hint while an attacker does its worst. Run by hand, prints figures.

    python bench/attacks.py [--seconds 15] [--only json-bomb,expensive-count]

sudoku-server as `make up` runs it (embedded Redis, 2 workers and the
interactive one, the HTTP port on) takes, from one honest client, Hint
calls one after the other on boards no cache has seen (a top1465 puzzle
with part of its solution filled in) and health Checks on a connection of
their own. Each attack of the hostile-input issue then runs for
`--seconds` from processes of its own (tests/attacker.py: what it costs to
mount an attack is not charged to the service), and the script prints the
honest Hint's p50 and p99 and the slowest Check, quiet and during the
attack, and what the attacker got back. The targets: a Hint's p99 under
100 ms while a request bomb arrives, under a second while anything else
does; a Check within 50 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402

from bench.pipeline import fresh_hints  # noqa: E402
from bench.stack import ROOT, free_port, percentile, sudoku_server  # noqa: E402

# (attack, processes of it): item 1, request bombs; item 2, legal but
# dear calls; items 3-5, attacks on the HTTP port's connections.
ATTACKS = [
    ("json-bomb", 1), ("arrays-bomb", 1), ("proto-bomb-http", 1), ("proto-bomb-grpc", 1),
    ("expensive-count", 3), ("expensive-count", 6), ("naive-solve", 3), ("explain-hardest", 4),
    ("capped-solve", 1), ("long-mrv-solve", 1),
    ("half-bodies", 1), ("unread-streams", 1), ("rapid-reset", 1),
]
CONNECTION_ATTACKS = {"half-bodies", "unread-streams", "rapid-reset"}
# Calls each process keeps in flight (one a process unless said): the
# solves the cheap lane coalesces, as many as one connection's share of
# that lane (SUDOKU_CALLER_CHEAP_CALLS).
IN_FLIGHT = {"capped-solve": 64, "long-mrv-solve": 64}


class Honest:
    """Hints one after the other, and health Checks, each on its own connection, timed."""

    def __init__(self, address: str):
        self.hints: list[float] = []
        self.checks: list[float] = []
        self.failed: list[str] = []
        self.stop = threading.Event()
        self.requests = fresh_hints(2000, random.Random(7))
        self.threads = [threading.Thread(target=self._hints, args=(address,), daemon=True),
                        threading.Thread(target=self._checks, args=(address,), daemon=True)]
        for thread in self.threads:
            thread.start()

    def _channel(self, address: str) -> grpc.Channel:
        return grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])

    def _hints(self, address: str) -> None:
        with self._channel(address) as channel:
            call = channel.unary_unary("/sudoku.v1.Sudoku/Hint")
            i = 0
            while not self.stop.is_set():
                t0 = time.perf_counter()
                try:
                    call(self.requests[i % len(self.requests)], timeout=30)
                    self.hints.append(time.perf_counter() - t0)
                except grpc.RpcError as exc:
                    self.failed.append(exc.code().name)
                i += 1

    def _checks(self, address: str) -> None:
        with self._channel(address) as channel:
            check = health_pb2_grpc.HealthStub(channel).Check
            while not self.stop.wait(0.05):
                t0 = time.perf_counter()
                check(health_pb2.HealthCheckRequest(), timeout=30)
                self.checks.append(time.perf_counter() - t0)

    def take(self) -> tuple[list[float], list[float], list[str]]:
        """What was timed since the last take."""
        hints, checks, failed = self.hints, self.checks, self.failed
        self.hints, self.checks, self.failed = [], [], []
        return hints, checks, failed

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)


def attack(name: str, copies: int, address: str, http_address: str, seconds: float) -> dict:
    options = ["source=127.0.0.3"] if name in CONNECTION_ATTACKS else [f"in_flight={IN_FLIGHT.get(name, 1)}"]
    procs = [subprocess.Popen([sys.executable, "-m", "tests.attacker", name, address, http_address, str(seconds),
                               *options], stdout=subprocess.PIPE, text=True, cwd=ROOT) for _ in range(copies)]
    got: dict = {}
    for proc in procs:
        out, _ = proc.communicate(timeout=seconds + 120)
        report = json.loads(next(line for line in reversed(out.splitlines()) if line.startswith("{")))
        for key, value in (report.get("outcomes") or report).items():
            if isinstance(value, int):
                got[key] = got.get(key, 0) + value
    return got


def row(label: str, hints: list[float], checks: list[float]) -> str:
    if not hints:
        return f"| {label} | no Hint answered | |"
    return (f"| {label} | {len(hints)} | {percentile(hints, .5) * 1000:.1f} | {percentile(hints, .99) * 1000:.1f} "
            f"| {max(checks, default=0) * 1000:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15, help="how long each attack runs")
    parser.add_argument("--only", default="", help="comma-separated attacks to run (default: all)")
    args = parser.parse_args()
    chosen = [(n, c) for n, c in ATTACKS if not args.only or n in args.only.split(",")]
    http_address = f"127.0.0.1:{free_port()}"
    with sudoku_server(workers=2, http_listen=http_address) as (address, _):
        honest = Honest(address)
        print("| while | Hints | p50 ms | p99 ms | slowest Check ms |\n|---|---|---|---|---|")
        try:
            for name, copies in chosen:
                time.sleep(args.seconds / 3)  # quiet: the same honest client with nothing else
                quiet = honest.take()
                got = attack(name, copies, address, http_address, args.seconds)
                during = honest.take()
                print(row("quiet", quiet[0], quiet[1]))
                many = f", {IN_FLIGHT[name]} in flight each" if name in IN_FLIGHT else ""
                print(row(f"{copies} x {name}{many}", during[0], during[1]))
                print(f"|  | attacker got {got}; honest failures {sorted(set(during[2])) or 'none'} | | | |",
                      flush=True)
        finally:
            honest.close()


if __name__ == "__main__":
    main()
