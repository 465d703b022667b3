"""Fixtures: one real Redis and two real worker processes per test session,
a service in a thread per session (or per test, with custom settings)."""

from __future__ import annotations

import os

import pytest
from redis import Redis

from service.embedded_redis import EmbeddedRedis
from tests.fixtures import FAULTY_WORKER
from tests.stack import ServiceThread, make_settings, supervise_in_background
from worker.supervisor import Supervisor

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


def pytest_report_header(config):
    return f"workers per session: {WORKERS}; full puzzle sets: {os.environ.get('SUDOKU_PUZZLES', 'not set')}"
