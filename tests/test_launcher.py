"""`sudoku-server` run exactly as README says: it answers over gRPC and
health, and SIGTERM stops everything it started."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.stack import reap, start_sudoku_server

BOARD = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (via ps, which Linux and macOS both have)."""
    out = subprocess.run(["ps", "-A", "-o", "pid=,ppid="], capture_output=True, text=True, check=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        child, parent = map(int, line.split())
        children.setdefault(parent, []).append(child)
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but still listed until its parent reaps it.
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout
    return bool(state.strip()) and not state.strip().startswith("Z")


@pytest.mark.slow
def test_sudoku_server_serves_then_stops_everything_it_started():
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    # Metrics off: the default port may be taken by a sudoku-server already running.
    proc, banner = start_sudoku_server("--listen", f"127.0.0.1:{port}", "--workers", "2", "--metrics-port", "0", "--http-listen", "127.0.0.1:0", env=env)
    try:
        assert re.search(rf"listening on 127\.0\.0\.1:{port}", banner), banner
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            frames = list(pb_grpc.SudokuStub(channel).Solve(pb.SolveRequest(board=BOARD), timeout=30))
            assert frames[-1].outcome == pb.SOLVED
        started = descendants(proc.pid)
        assert len(started) >= 3, "redis-server and two workers"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        deadline = time.monotonic() + 10
        while any(alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in started if alive(p)], "processes left behind"
    finally:
        reap(proc)
