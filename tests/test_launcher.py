"""`sudoku-server` run exactly as README says: it answers over gRPC and
health, and SIGTERM stops everything it started."""

from __future__ import annotations

import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from redis import Redis
from rq import Worker

from launcher.embedded_redis import redis_server_binary
from sudoku import tempdirs
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.puzzles import long_boards
from tests.stack import alive, free_port, left_behind, reap, start_sudoku_server, until

BOARD = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


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
        assert not left_behind(started, within=10), "processes left behind"
    finally:
        reap(proc)


def embedded_redis(banner: str) -> str:
    """The unix socket of the embedded Redis, from sudoku-server's banner."""
    found = re.search(r"embedded redis-server at (\S+?)[,;]", banner)
    assert found, banner
    return found.group(1)


def redis_server_pid(proc: subprocess.Popen) -> int | None:
    """The live redis-server below sudoku-server, if any."""
    for pid in descendants(proc.pid):
        if alive(pid) and "redis-server" in subprocess.run(["ps", "-o", "comm=", "-p", str(pid)],
                                                           capture_output=True, text=True).stdout:
            return pid
    return None


def health_of(channel) -> int:
    try:
        return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=2).status
    except grpc.RpcError:
        return health_pb2.HealthCheckResponse.UNKNOWN


@pytest.mark.slow
def test_a_killed_embedded_redis_is_started_again():
    """SIGKILL of the embedded redis-server (an OOM kill): sudoku-server starts
    it again, empty, on the same socket; a stream in flight ends UNAVAILABLE
    (no hang), health is SERVING again within 10 s, the workers register
    again (RQ's own Worker.all sees all three), and a retry of the solve with the
    same request_id is served."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    proc, banner = start_sudoku_server("--listen", f"127.0.0.1:{port}", "--workers", "2", "--metrics-port", "0", env=env)
    try:
        socket_path = embedded_redis(banner)
        first_redis = redis_server_pid(proc)
        long_solve = pb.SolveRequest(board=BOARD, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                                     pacing=pb.Pacing(duration_ms=30_000, fps=10), request_id="redis-dies-1")
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.SudokuStub(channel)
            call = stub.Solve(long_solve, timeout=60)
            next(call)
            os.kill(first_redis, signal.SIGKILL)
            killed = time.monotonic()
            with pytest.raises(grpc.RpcError) as err:
                list(call)
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
            assert time.monotonic() - killed < 5
            while redis_server_pid(proc) in (None, first_redis):
                assert time.monotonic() - killed < 5, "redis-server was not started again"
                time.sleep(0.05)
            while health_of(channel) != health_pb2.HealthCheckResponse.SERVING:
                assert time.monotonic() - killed < 10, "not SERVING 10 s after Redis died"
                time.sleep(0.1)
            redis = Redis(unix_socket_path=socket_path)
            while len(Worker.all(connection=redis)) != 3:  # and the one kept for interactive jobs
                assert time.monotonic() - killed < 15, "the workers did not register again"
                time.sleep(0.2)
            redis.close()
            retried = list(stub.Solve(pb.SolveRequest(board=BOARD, request_id="redis-dies-1"), timeout=30))
            assert retried[-1].outcome == pb.SOLVED
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(30)
        reap(proc)


@pytest.mark.slow
def test_sudoku_server_exits_when_its_redis_cannot_be_started_again(tmp_path):
    """The embedded redis-server dies and its binary is gone: sudoku-server
    stops everything and exits non-zero, saying why, for its supervisor."""
    binary = tmp_path / "redis-server"
    shutil.copy(redis_server_binary(), binary)
    port = free_port()
    env = {**{k: v for k, v in os.environ.items() if k != "REDIS_URL"}, "SUDOKU_REDIS_SERVER": str(binary)}
    proc, banner = start_sudoku_server("--listen", f"127.0.0.1:{port}", "--workers", "1", "--metrics-port", "0", env=env)
    try:
        assert "listening" in banner, banner
        started = descendants(proc.pid)
        binary.unlink()
        os.kill(redis_server_pid(proc), signal.SIGKILL)
        assert proc.wait(30) != 0
        output = proc.stdout.read()
        assert "could not be started again" in output, output
        assert not left_behind(started, within=10), "processes left behind"
    finally:
        reap(proc)


def test_a_killed_sudoku_servers_temporary_folders_are_swept_by_the_next():
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    args = ("--listen", f"127.0.0.1:{port}", "--workers", "1", "--metrics-port", "0")
    proc, banner = start_sudoku_server(*args, env=env)
    folder = os.path.dirname(embedded_redis(banner))
    metrics_folders = {p for p in glob.glob(os.path.join(tempfile.gettempdir(), "sudoku-metrics-*"))
                       if tempdirs.owner_of(p) == proc.pid}
    assert os.path.isdir(folder) and metrics_folders
    proc.kill()
    proc.wait()
    reap(proc)
    assert os.path.isdir(folder)  # SIGKILL: nothing removed it
    again, banner = start_sudoku_server(*args, env=env)
    try:
        assert "listening" in banner, banner
        assert not os.path.exists(folder)
        assert not any(os.path.exists(p) for p in metrics_folders)
    finally:
        again.terminate()
        again.wait(30)
        reap(again)


def test_sigterm_with_streams_and_batches_open_stops_within_ten_seconds():
    """Docker's default stop timeout is 10 s: with watched solves and a
    maximal CountMany open, sudoku-server ends its streams, stops its calls'
    jobs, its workers and Redis, and exits 0 within it."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    proc, banner = start_sudoku_server("--listen", f"127.0.0.1:{port}", "--workers", "2", env=env)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        stub = pb_grpc.SudokuStub(channel)
        watched = [stub.Solve(pb.SolveRequest(board=BOARD, view=pb.VIEW_SEARCH, strategy=pb.STRATEGY_NAIVE,
                                              pacing=pb.Pacing(duration_ms=60_000, fps=5)), timeout=60)
                   for _ in range(3)]
        for call in watched:
            next(call)
        greedy = pb.CountManyRequest(boards=long_boards(16), limit=1_000_000, time_limit_ms=10_000)
        batch = stub.CountMany(iter([greedy] * 10), timeout=60)
        redis = Redis(unix_socket_path=embedded_redis(banner))
        until(lambda: sum(w.get_state() == "busy" for w in Worker.all(connection=redis)) >= 2,
              "both workers took the batch's jobs", timeout=60, every=0.05)
        redis.close()
        started = descendants(proc.pid)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        took = time.monotonic() - t0
        print(f"stopped in {took:.1f} s")
        assert took < 10, f"{took:.1f} s"
        assert not left_behind(started, within=5), "processes left behind"
        batch.cancel()
    finally:
        channel.close()
        reap(proc)
