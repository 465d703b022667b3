"""Starts N worker processes, restarts any that die, stops them all.

Used by `sudoku-worker` (workers only, for scaling out) and by
`sudoku-server` (the embedded default). Each worker is its own process
running worker.process; a worker that dies (a crash, a SIGKILL) is replaced
after a short, growing back-off so a crash loop does not spin the CPU. Its
job, if it had one, is retried by the other workers (worker.process).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

from sudoku import cells
from worker import metrics

log = logging.getLogger("sudoku.supervisor")

MAX_BACKOFF = 10.0
# Each worker is told its supervisor's pid rather than reading its parent's:
# a supervisor killed before the worker looked would leave it taking init
# for its supervisor, waiting for a Redis that is gone, for ever.
SUPERVISOR_PID = "SUDOKU_SUPERVISOR_PID"


@dataclass
class _Slot:
    url: str  # REDIS_URL of its process: the one cell it serves
    queues: str = "all"  # SUDOKU_WORKER_QUEUES of its process
    proc: subprocess.Popen | None = None
    backoff: float = 0.5
    restart_at: float = 0.0
    started_at: float = field(default_factory=time.monotonic)


class Supervisor:
    """`count` workers on every queue, and `interactive` more that take only
    interactive jobs (Solve, Hint, CountSolutions), so that batch calls,
    however long, never occupy every worker (docs/operations.md, "Limits").

    When `redis_url` lists several cells (sudoku/cells.py), each worker
    serves one: the `count` are dealt out over the cells, at least one
    each, and each cell gets `interactive` of its own."""

    def __init__(self, count: int, redis_url: str, log_level: str = "WARNING", env: dict[str, str] | None = None,
                 interactive: int = 0):
        urls = cells.parse(redis_url)
        self.count = max(count, len(urls)) if count else 0
        self.env = dict(os.environ, SUDOKU_LOG_LEVEL=log_level, **(env or {}))
        self.slots = [_Slot(urls[i % len(urls)]) for i in range(self.count)]
        self.slots += [_Slot(url, "interactive") for url in urls for _ in range(interactive)]
        self.stopping = False
        self.metrics_dir: str | None = None

    def start(self) -> None:
        # The workers write their metrics to files here (prometheus_client's
        # multiprocess mode); whoever runs the supervisor serves their sum.
        self.metrics_dir = metrics.new_dir()
        self.env[metrics.ENV] = self.metrics_dir
        for slot in self.slots:
            self._spawn(slot)

    def pids(self) -> list[int]:
        return [s.proc.pid for s in self.slots if s.proc and s.proc.poll() is None]

    def _spawn(self, slot: _Slot) -> None:
        slot.proc = subprocess.Popen([sys.executable, "-m", "worker.process"],
                                     env={**self.env, "REDIS_URL": slot.url, "SUDOKU_WORKER_QUEUES": slot.queues,
                                          SUPERVISOR_PID: str(os.getpid())})
        slot.started_at = time.monotonic()

    def check(self) -> None:
        """Replaces workers that exited; call every fraction of a second."""
        if self.stopping:
            return
        now = time.monotonic()
        for slot in self.slots:
            if slot.proc is not None and slot.proc.poll() is not None:
                code = slot.proc.returncode
                metrics.process_dead(self.metrics_dir, slot.proc.pid)
                # A worker that ran a while before dying is not a crash loop.
                slot.backoff = 0.5 if now - slot.started_at > 30 else min(slot.backoff * 2, MAX_BACKOFF)
                slot.restart_at = now + slot.backoff
                log.warning("worker %d exited with %s; restarting in %.1fs", slot.proc.pid, code, slot.backoff)
                slot.proc = None
            if slot.proc is None and now >= slot.restart_at:
                self._spawn(slot)

    def stop(self, timeout: float = 10.0) -> None:
        """Warm shutdown (each finishes its job), then SIGKILL at `timeout`."""
        self.stopping = True
        live = [s.proc for s in self.slots if s.proc is not None and s.proc.poll() is None]
        for proc in live:
            proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for proc in live:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("worker %d did not stop in %.0fs; killing it", proc.pid, timeout)
                proc.kill()
                proc.wait()
        if self.metrics_dir is not None:
            metrics.remove_dir(self.metrics_dir)
