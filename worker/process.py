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
from rq import Queue, SimpleWorker, Worker
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty
from rq.worker import WorkerStatus

from sudoku import keys
from worker import metrics

log = logging.getLogger("sudoku.worker")

HEARTBEAT_TTL = 4  # seconds a job's registry entry survives its worker
HEARTBEAT_EVERY = 1.0
MAINTENANCE_EVERY = 1.0


class SudokuWorker(SimpleWorker):
    """SimpleWorker with a live heartbeat during jobs."""

    def get_heartbeat_ttl(self, job, working_time: float = 0.0) -> int:
        return HEARTBEAT_TTL

    def execute_job(self, job, queue):
        execution = self.prepare_execution(job)
        beat = _Heartbeat(self, queue, execution)
        beat.start()
        started = time.monotonic()
        ok = False
        try:
            ok = self.perform_job(job, queue, execution)
        finally:
            beat.stop()
            metrics.job_ran(job, ok, time.monotonic() - started)
        self.set_state(WorkerStatus.IDLE)


class _Heartbeat(threading.Thread):
    def __init__(self, worker: SudokuWorker, queue: Queue, execution):
        super().__init__(name="heartbeat", daemon=True)
        self.worker = worker
        self.queue = queue
        self.execution = execution
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(HEARTBEAT_EVERY):
            try:
                with self.worker.connection.pipeline() as pipe:
                    self.execution.heartbeat(self.queue.started_job_registry, HEARTBEAT_TTL, pipe)
                    self.worker.heartbeat(self.worker.worker_ttl + 60, pipeline=pipe)
                    pipe.execute()
            except RedisError as exc:  # Redis away: the job itself will notice
                log.warning("heartbeat failed: %s", exc)

    def stop(self) -> None:
        self.stopped.set()


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
    """Retries (or fails) jobs whose worker stopped sending heartbeats.

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
    queues = [Queue(name, connection=redis, serializer=JSONSerializer) for name in keys.QUEUES]
    kind = os.environ.get("SUDOKU_WORKER_CLASS", "simple")
    if kind not in WORKER_CLASSES:
        raise SystemExit(f"SUDOKU_WORKER_CLASS={kind!r}: use one of {', '.join(WORKER_CLASSES)}")
    worker = WORKER_CLASSES[kind](queues, connection=redis, serializer=JSONSerializer)
    threading.Thread(target=_maintain, args=(connect(redis_url), os.getppid()), daemon=True).start()
    worker.work(logging_level=log_level, with_scheduler=False)


def main() -> None:
    parser = argparse.ArgumentParser(description="One Sudoku RQ worker (use sudoku-worker to run several).")
    # The URL comes by environment, not argv, so a password never shows in ps.
    parser.add_argument("--log-level", default=os.environ.get("SUDOKU_LOG_LEVEL", "WARNING"))
    args = parser.parse_args()
    run(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"), args.log_level)


if __name__ == "__main__":
    main()
