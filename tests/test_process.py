"""worker/process.py: one worker process, and when it gives up."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

# A stand-in supervisor: starts one worker as worker/supervisor.py does and
# dies at once, before the worker has even imported its modules.
SHORT_LIVED = """
import os, subprocess, sys
env = {**os.environ, "REDIS_URL": sys.argv[1], "SUDOKU_SUPERVISOR_PID": str(os.getpid())}
worker = subprocess.Popen([sys.executable, "-m", "worker.process"], env=env, stdout=subprocess.DEVNULL,
                          stderr=open(sys.argv[2], "w"))
print(worker.pid)
"""


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


def test_a_worker_whose_supervisor_died_before_it_started_exits(tmp_path):
    """Its Redis never answers and its supervisor is gone: it stops waiting
    instead of living on as an orphan."""
    log = tmp_path / "worker.log"
    started = subprocess.run([sys.executable, "-c", SHORT_LIVED, f"unix://{tmp_path}/no-redis.sock", str(log)],
                             capture_output=True, text=True, check=True)
    pid = int(started.stdout)
    deadline = time.monotonic() + 20
    try:
        while not gone(pid):
            assert time.monotonic() < deadline, "the orphaned worker is still waiting for Redis"
            time.sleep(0.1)
    finally:
        if not gone(pid):
            subprocess.run(["kill", "-9", str(pid)])
    assert "the supervisor is gone" in log.read_text()
