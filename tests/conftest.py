"""Fixtures: one real Redis and two real worker processes per test session,
a service in a thread per session (or per test, with custom settings)."""

from __future__ import annotations

import os

import pytest
from redis import Redis

from launcher.embedded_redis import EmbeddedRedis
from sudoku.v1 import sudoku_pb2 as pb
from tests.faults import FAULTY_WORKER
from tests.puzzles import puzzles
from tests.stack import ServiceThread, make_settings, supervise_in_background
from tests.tls import self_signed
from worker.run.supervisor import Supervisor

WORKERS = 2


@pytest.fixture(scope="session")
def redis_url():
    server = EmbeddedRedis().start()
    yield server.url
    server.stop()


@pytest.fixture
def redis(redis_url):
    client = Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def fresh_redis():
    """fresh_redis() starts a Redis of the test's own and returns a client:
    for runs that must not see each other, or faults that must not reach
    the session's Redis."""
    servers, clients = [], []

    def make() -> Redis:
        servers.append(EmbeddedRedis().start())
        clients.append(Redis.from_url(servers[-1].url))
        return clients[-1]

    yield make
    for client in clients:
        client.close()
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def workers(redis_url):
    supervisor = Supervisor(WORKERS, redis_url, env={"SUDOKU_WORKER_CLASS": FAULTY_WORKER})
    supervisor.start()
    supervise_in_background(supervisor)  # fault tests kill workers; replace them
    yield supervisor
    supervisor.stop()


@pytest.fixture(scope="session")
def service(redis_url, workers):
    running = ServiceThread(make_settings(redis_url)).start()
    yield running
    running.stop()


@pytest.fixture
def stub(service):
    channel, stub = service.stub()
    yield stub
    channel.close()


@pytest.fixture
def custom_service(redis_url, workers):
    """A service with other settings: custom_service(queue_bound=1)."""
    started = []

    def make(**overrides) -> ServiceThread:
        running = ServiceThread(make_settings(redis_url, **overrides)).start()
        started.append(running)
        return running

    yield make
    for running in started:
        running.stop()


@pytest.fixture(scope="module")
def finished_job(service) -> list[pb.Frame]:
    """Every frame of a solve that has finished: naive search of
    norvig_hardest's first board (671,215 steps) drawn as 1 s at 30 fps,
    unpaced, so 31 frames, the last SOLVED."""
    channel, stub = service.stub()
    request = pb.SolveRequest(board=puzzles("norvig_hardest")[0], strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                              pacing=pb.Pacing(duration_ms=1_000, fps=30, unpaced=True))
    frames = list(stub.Solve(request, timeout=60))
    channel.close()
    assert frames[-1].outcome == pb.SOLVED
    return frames


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for localhost and 127.0.0.1: (cert, key) paths."""
    return self_signed(tmp_path_factory.mktemp("tls"))


def pytest_report_header(config):
    return f"workers per session: {WORKERS}; full puzzle sets: {os.environ.get('SUDOKU_PUZZLES', 'not set')}"
