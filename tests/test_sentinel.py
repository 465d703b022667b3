"""A cell that survives losing its primary: a Redis Sentinel group (one
primary, one replica, three sentinels, Debian's redis-server and
redis-sentinel on loopback), its primary SIGKILLed under a mixed load.
No call is lost or answered wrong; every failed call is UNAVAILABLE and
succeeds on retry once Sentinel has promoted the replica, which the
workers and the service follow by themselves (sudoku/connections.py).
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import time
from pathlib import Path

import grpc
import pytest
from redis import Redis

from client import Client, Retry
from sudoku import cells, connections
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.load import CallLoad
from tests.puzzles import puzzles, transformed
from tests.stack import (
    SYSTEM_REDIS,
    ServiceThread,
    SystemRedis,
    free_port,
    make_settings,
    supervise_in_background,
    until,
)
from worker import logic
from worker.run.supervisor import Supervisor

pytestmark = pytest.mark.slow  # seconds of load on each side of a failover

SENTINEL = "/usr/bin/redis-sentinel"
GROUP = "cell0"
LOAD_S = float(os.environ.get("SUDOKU_FAILOVER_LOAD_S", "12"))  # the figure: 60
TIMEOUT = 15


class SentinelGroup:
    """A primary, its replica and three sentinels watching them, on loopback."""

    def __init__(self, folder: Path):
        for name in ("primary", "replica", "sentinels"):
            (folder / name).mkdir()
        self.primary = SystemRedis(str(folder / "primary")).start()
        self.replica = SystemRedis(str(folder / "replica"), "--replicaof", "127.0.0.1", str(self.primary.port),
                                   "--replica-announce-ip", "127.0.0.1").start()
        self.ports = [free_port() for _ in range(3)]
        self.sentinels = [self._sentinel(folder / "sentinels", port) for port in self.ports]

    def _sentinel(self, folder: Path, port: int) -> subprocess.Popen:
        config = folder / f"{port}.conf"  # Sentinel rewrites its config as it learns
        config.write_text(
            f"port {port}\nbind 127.0.0.1\ndir {folder}\nsentinel announce-ip 127.0.0.1\n"
            f"sentinel monitor {GROUP} 127.0.0.1 {self.primary.port} 2\n"
            f"sentinel down-after-milliseconds {GROUP} 1000\nsentinel failover-timeout {GROUP} 10000\n")
        return subprocess.Popen([SENTINEL, str(config), "--loglevel", "warning"], stdout=subprocess.DEVNULL)

    @property
    def url(self) -> str:
        return "redis+sentinel://" + ",".join(f"127.0.0.1:{port}" for port in self.ports) + f"/{GROUP}/0"

    def primary_port(self) -> int | None:
        """The primary's port as the first sentinel that answers says."""
        for port in self.ports:
            try:
                with Redis(port=port, socket_timeout=1) as sentinel:
                    return int(sentinel.sentinel_get_master_addr_by_name(GROUP)[1])
            except Exception:  # noqa: BLE001 - not up yet, or this one is away
                continue
        return None

    def ready(self) -> bool:
        """Every sentinel knows the replica and the others."""
        try:
            for port in self.ports:
                with Redis(port=port, socket_timeout=1) as sentinel:
                    state = sentinel.sentinel_master(GROUP)
                    if int(state["num-slaves"]) < 1 or int(state["num-other-sentinels"]) < 2:
                        return False
            with Redis(port=self.replica.port) as replica:
                return replica.info("replication")["master_link_status"] == "up"
        except Exception:  # noqa: BLE001 - not up yet
            return False

    def stop(self) -> None:
        for proc in self.sentinels:
            proc.kill()
            proc.wait()
        for server in (self.primary, self.replica):
            if server.proc.poll() is None:
                server.kill()


@pytest.fixture
def group(tmp_path):
    for binary in (SYSTEM_REDIS, SENTINEL):
        if not os.path.exists(binary):
            message = f"{binary} is missing: apt-get install redis-server redis-sentinel"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
    group = SentinelGroup(tmp_path)
    try:
        until(group.ready, "the sentinels knew the replica and each other", timeout=30)
        yield group
    finally:
        group.stop()


def assert_a_paced_stream_ends_on_cancel(address: str) -> None:
    """A watched Solve paced over a minute, cancelled from another
    connection: its stream ends CANCELLED at once, which the service
    learns through its cancel follower, not through its own call."""
    board = puzzles("17_clue")[0]
    with grpc.insecure_channel(address) as a, grpc.insecure_channel(
            address, options=[("grpc.use_local_subchannel_pool", 1)]) as b:
        request = pb.SolveRequest(board=board, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                                  pacing=pb.Pacing(duration_ms=60_000))
        for attempt in range(5):  # a connection the failover broke may fail a call once, as under the load
            stream = pb_grpc.SudokuStub(a).Solve(request, timeout=TIMEOUT)
            try:
                job_id = next(stream).job_id
                assert pb_grpc.SudokuStub(b).Cancel(pb.CancelRequest(job_id=job_id), timeout=TIMEOUT).cancelled
                break
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.UNAVAILABLE or attempt == 4:
                    raise
                stream.cancel()
        assert list(stream)[-1].outcome == pb.CANCELLED  # within TIMEOUT, not the minute of pacing


def test_a_burst_of_commands_waits_for_a_free_connection_of_the_group(group):
    """The service's pool of a Sentinel cell, like its pool of a plain URL,
    makes a command wait for a free connection (up to the wait) rather than
    fail at once: a burst of calls queues instead of failing."""

    async def burst(wait_s: float) -> list:
        redis = connections.service_pool(group.url, max_connections=2, wait_s=wait_s)
        try:  # six commands that each hold a connection for 0.3 s, on two connections
            return await asyncio.gather(*(redis.blpop([f"nothing-{i}"], timeout=0.3) for i in range(6)),
                                        return_exceptions=True)
        finally:
            await redis.aclose()

    assert asyncio.run(burst(wait_s=5)) == [None] * 6
    refused = [r for r in asyncio.run(burst(wait_s=0.05)) if isinstance(r, Exception)]
    assert refused and all("No connection available" in str(r) for r in refused), refused  # the wait is bounded


def test_a_cell_follows_sentinel_to_the_promoted_replica_when_its_primary_is_killed(group):
    url = group.url
    assert cells.parse(url) == [url]
    workers = Supervisor(2, url, interactive=1)
    workers.start()
    supervise_in_background(workers)
    service = ServiceThread(make_settings(url)).start()
    try:
        load = CallLoad(service.address, threads=3, mix={"hint": 7, "count": 2, "solve": 1}, retry=True)
        until(lambda: load.answered >= 20, "the load was under way", timeout=30)
        time.sleep(LOAD_S / 2)  # load, not a wait for a state: half of it before the kill
        old = group.primary.port
        group.primary.proc.kill()
        killed = time.monotonic()
        until(lambda: group.primary_port() not in (None, old), "Sentinel promoted the replica", timeout=30)
        promoted = time.monotonic() - killed
        until(lambda: any(t > killed + promoted for t in load.ok_at()), "a call succeeded on the new primary",
              timeout=30)
        recovered = min(t for t in load.ok_at() if t > killed + promoted) - killed
        # Every part of the service follows: the pooled commands (Hint,
        # CountSolutions) and the hub's connections, which read a watched
        # Solve's frames and the cancels.
        until(lambda: all(any(t > killed + promoted for t in load.ok_at(kind)) for kind in load.mix),
              "every kind of call succeeded on the new primary", timeout=30)
        assert_a_paced_stream_ends_on_cancel(service.address)
        time.sleep(LOAD_S / 2)
        load.finish()
        after = sum(t > killed + promoted for t in load.ok_at())
    finally:
        service.stop()
        workers.stop()
    failures = load.failures()
    print(f"failover: {load.answered} calls answered ({after} after the promotion), "
          f"{len(failures)} failed attempts ({sorted(set(failures))}), replica promoted "
          f"{promoted:.1f} s and calls answered again {recovered:.1f} s after the SIGKILL")
    assert not load.wrong, load.wrong[:5]
    assert set(failures) <= {"UNAVAILABLE"}, failures
    assert load.answered > 40


def test_batch_calls_go_on_across_a_failover(group):
    """CountMany and GradeMany through the client library, each paused after
    its first reply while the primary is killed and Sentinel promotes the
    replica; read on after, every board is answered once, in order and
    right (a call that broke off resumes from its first unanswered chunk).
    The pause makes the failover fall inside both calls: at most `window`
    chunks are sent before the first is read, and the rest after."""
    url = group.url
    workers = Supervisor(2, url, interactive=1)
    workers.start()
    supervise_in_background(workers)
    service = ServiceThread(make_settings(url)).start()
    rng = random.Random(3)
    counted = [transformed(b, rng) for b in puzzles("magictour_top1465") * 60]  # 12 chunks of 500
    graded = [transformed(b, rng) for b in (puzzles("qqwing_expert") + puzzles("qqwing_intermediate")) * 5]
    try:
        with Client(service.address, retry=Retry(attempts=20, base=0.2, cap=2.0)) as client:
            counts = client.count_many(counted, chunk=500, window=2)
            grades = client.grade_many(graded, chunk=40, window=2)
            first_counts, first_grade = next(counts), next(grades)
            old = group.primary.port
            group.primary.proc.kill()
            until(lambda: group.primary_port() not in (None, old), "Sentinel promoted the replica", timeout=30)
            count_chunks, grade_replies = [first_counts, *counts], [first_grade, *grades]
    finally:
        service.stop()
        workers.stop()
    assert [chunk.start for chunk in count_chunks] == list(range(0, len(counted), 500))
    assert not any(chunk.errors for chunk in count_chunks)
    assert {v for chunk in count_chunks for v in chunk.verdicts} == {pb.CountReply.UNIQUE}
    assert [g.index for g in grade_replies] == list(range(len(graded)))
    assert [g.score for g in grade_replies] == [logic.grade(b).score for b in graded]
