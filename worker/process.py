"""One worker process: an RQ SimpleWorker tuned for short jobs and fast
recovery.

Why SimpleWorker: RQ's default Worker forks a work horse per job, and most
of its ~27 ms per job is RQ's set-up in the child; SimpleWorker runs the job
in-process (~7 ms round trip for a trivial job, see bench/service.py and
README). Its drawbacks are handled here:

- It sends no heartbeat while a job runs, so a killed worker's job would sit
  in STARTED for job_timeout + 60 s. A heartbeat thread renews the job's
  registry entry every second with a short TTL instead (the C engine
  releases the GIL, so the thread runs even mid-search).
- RQ cleans its registries every 10 minutes by default. A maintenance thread
  here runs the StartedJobRegistry cleanup every second (one process at a
  time, under a Redis lock), so an abandoned job is retried within seconds.
- A worker must not outlive its supervisor: the maintenance thread asks for
  a warm shutdown when the parent process is gone.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import threading
import time

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, Worker
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

from sudoku import heap, keys
from worker.lifecycle import LeanWorker
from worker.recovery import recover_lost_jobs
from worker import metrics

log = logging.getLogger("sudoku.worker")

HEARTBEAT_TTL = 4  # seconds a job's registry entry survives its worker
HEARTBEAT_EVERY = 1.0
MAINTENANCE_EVERY = 1.0


class SudokuWorker(LeanWorker):
    """LeanWorker (RQ's job lifecycle in three round trips, worker/lifecycle.py)
    with a live heartbeat during jobs and job metrics."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._beating: tuple[Queue, object] | None = None
        self._beat_thread: threading.Thread | None = None

    def get_heartbeat_ttl(self, job, working_time: float = 0.0) -> int:
        return HEARTBEAT_TTL

    def worker_key_ttl(self, job_ttl: int | None) -> int:
        # RQ gives the worker's key the job's short heartbeat TTL when a job
        # starts, then must renew it afterwards. Dead jobs are found through
        # their own registry entry (see _beat), not the worker's key, so the
        # key always gets the worker's long TTL and needs no renewal.
        return max(job_ttl or 0, self.worker_ttl + 60)

    def heartbeat(self, timeout: int | None = None, pipeline=None):
        return super().heartbeat(self.worker_key_ttl(timeout), pipeline)

    def run_job(self, job, queue, execution) -> bool:
        self._beating = (queue, execution)
        if self._beat_thread is None:
            self._beat_thread = threading.Thread(target=self._beat, name="heartbeat", daemon=True)
            self._beat_thread.start()
        started = time.monotonic()
        ok = False
        try:
            ok = super().run_job(job, queue, execution)
        finally:
            self._beating = None
            metrics.job_ran(job, ok, time.monotonic() - started)
        return ok

    def _beat(self) -> None:
        """Renews the running job's registry entry every second. A thread, so
        it beats while the job's C search runs (the engine releases the GIL);
        if the process dies, the beats stop and the job is retried."""
        while True:
            time.sleep(HEARTBEAT_EVERY)
            current = self._beating
            if current is None:
                continue
            queue, execution = current
            try:
                with self.connection.pipeline() as pipe:
                    execution.heartbeat(queue.started_job_registry, HEARTBEAT_TTL, pipe)
                    Worker.heartbeat(self, self.worker_ttl + 60, pipeline=pipe)
                    pipe.execute()
            except RedisError as exc:  # Redis away: the job itself will notice
                log.warning("heartbeat failed: %s", exc)


class ForkingSudokuWorker(Worker):
    """RQ's default forking worker, with the same short heartbeat.

    Each job runs in a forked child, so a crash in a job cannot take the
    worker down, at the cost of RQ's per-job set-up in the child (see
    README: "Workers"). SUDOKU_WORKER_CLASS=fork selects it.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("job_monitoring_interval", int(HEARTBEAT_EVERY))
        super().__init__(*args, **kwargs)

    def get_heartbeat_ttl(self, job, working_time: float = 0.0) -> int:
        return HEARTBEAT_TTL


WORKER_CLASSES = {"simple": SudokuWorker, "fork": ForkingSudokuWorker}


def clean_abandoned(redis: Redis) -> None:
    """Retries (or fails) jobs whose worker stopped sending heartbeats, and
    requeues those a dying worker took off a queue (worker/recovery.py).

    Several processes run this; the lock makes one of them do it per tick,
    because two cleanups racing could each requeue the same job.
    """
    if not redis.set(keys.MAINTENANCE_LOCK, os.getpid(), nx=True, px=int(MAINTENANCE_EVERY * 900)):
        return
    for name in keys.QUEUES:
        queue = Queue(name, connection=redis, serializer=JSONSerializer)
        # The default death penalty uses SIGALRM, which only the main thread
        # may set; this runs in a thread, so time the failure callback with
        # a timer instead.
        registry = StartedJobRegistry(queue=queue, death_penalty_class=TimerDeathPenalty)
        registry.cleanup()
    recover_lost_jobs(redis)


def _maintain(redis: Redis, parent: int) -> None:
    while True:
        time.sleep(MAINTENANCE_EVERY)
        if os.getppid() != parent:
            log.warning("supervisor %d is gone; finishing the current job and stopping", parent)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        try:
            clean_abandoned(redis)
        except RedisError as exc:
            log.warning("maintenance failed: %s", exc)


def connect(redis_url: str) -> Redis:
    # Health checks make a connection that Redis dropped (restart, idle
    # timeout) reconnect on next use instead of failing once.
    return Redis.from_url(redis_url, health_check_interval=10)


def run(redis_url: str, log_level: str = "WARNING") -> None:
    """Runs one worker until SIGTERM/SIGINT (warm; a second one is cold)."""
    logging.basicConfig(level=log_level, format="%(asctime)s worker[%(process)d] %(levelname)s %(message)s")
    redis = connect(redis_url)
    kind = os.environ.get("SUDOKU_WORKER_CLASS", "simple")
    if kind not in WORKER_CLASSES:
        raise SystemExit(f"SUDOKU_WORKER_CLASS={kind!r}: use one of {', '.join(WORKER_CLASSES)}")
    # Names, not Queue objects: each worker class makes its own kind of queue.
    worker = WORKER_CLASSES[kind](list(keys.QUEUES), connection=redis, serializer=JSONSerializer)
    threading.Thread(target=_maintain, args=(connect(redis_url), os.getppid()), daemon=True).start()
    heap.settle()
    worker.work(logging_level=log_level, with_scheduler=False)


def main() -> None:
    parser = argparse.ArgumentParser(description="One Sudoku RQ worker (use sudoku-worker to run several).")
    # The URL comes by environment, not argv, so a password never shows in ps.
    parser.add_argument("--log-level", default=os.environ.get("SUDOKU_LOG_LEVEL", "WARNING"))
    args = parser.parse_args()
    run(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"), args.log_level)


if __name__ == "__main__":
    main()
