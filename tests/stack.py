"""Starting the real pieces for tests: redis-server, workers, the service.

The service runs in a background thread with its own event loop, so a test
can start one with any settings (a tiny queue bound, a short stream) and
talk to it over a real gRPC channel on loopback. Workers are real
processes (worker.supervisor), Redis is the embedded redis-server.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import threading
from pathlib import Path
import grpc

from service.config import Settings
from service.server import App, start
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc

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


def reap(proc: subprocess.Popen) -> None:
    """Kills `proc` if a test left it running, and closes its stdout pipe."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def start_sudoku_server(*args: str, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """`sudoku-server ARGS` in its own process, as README runs it: the process
    (its stdout and stderr on one pipe) and the first line it printed."""
    proc = subprocess.Popen(
        [installed_script("sudoku-server"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    return proc, proc.stdout.readline()


class ServiceThread:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="service", daemon=True)
        self.app: App | None = None

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

    def stub(self) -> tuple[grpc.Channel, pb_grpc.SudokuStub]:
        channel = grpc.insecure_channel(self.address)
        return channel, pb_grpc.SudokuStub(channel)

    def stop(self, grace: float = 0.5) -> None:
        if self.loop.is_closed():
            return  # a test stopped it already
        if self.app is not None:
            self.call(self.app.stop(grace))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
