"""launcher/embedded_redis.py: the private redis-server does not outlive the
process that started it, even when that process is SIGKILLed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

import pytest

from tests.stack import alive, reap, until

STARTER = """
import sys, time
from launcher.embedded_redis import EmbeddedRedis
server = EmbeddedRedis().start()
print(server.proc.pid, server.dir, flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_redis_server_dies_with_a_killed_parent():
    parent = subprocess.Popen([sys.executable, "-c", STARTER], stdout=subprocess.PIPE, text=True)
    folder = ""
    try:
        pid, folder = parent.stdout.readline().split()
        redis_pid = int(pid)
        assert alive(redis_pid)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        until(lambda: not alive(redis_pid), "redis-server ended with its parent", timeout=10, every=0.05)
    finally:
        reap(parent)
        shutil.rmtree(folder, ignore_errors=True)
