"""worker/run/process.py: one worker process, and when it gives up."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from tests.stack import alive, left_behind

# A stand-in supervisor: starts one worker as worker/run/supervisor.py does and
# dies at once, before the worker has even imported its modules.
SHORT_LIVED = """
import os, subprocess, sys
env = {**os.environ, "REDIS_URL": sys.argv[1], "SUDOKU_SUPERVISOR_PID": str(os.getpid())}
worker = subprocess.Popen([sys.executable, "-m", "worker.run.process"], env=env, stdout=subprocess.DEVNULL,
                          stderr=open(sys.argv[2], "w"))
print(worker.pid)
"""


def test_a_worker_whose_supervisor_died_before_it_started_exits(tmp_path):
    """Its Redis never answers and its supervisor is gone: it stops waiting
    instead of living on as an orphan."""
    log = tmp_path / "worker.log"
    started = subprocess.run([sys.executable, "-c", SHORT_LIVED, f"unix://{tmp_path}/no-redis.sock", str(log)],
                             capture_output=True, text=True, check=True)
    pid = int(started.stdout)
    try:
        assert not left_behind([pid], within=20), "the orphaned worker is still waiting for Redis"
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    assert "the supervisor is gone" in log.read_text()
