"""The worker classes: RQ workers that prove they are alive every second.

A module of their own, not part of worker/run/process.py: that one runs as
`python -m worker.run.process` (__main__), and a subclass naming these classes
(SUDOKU_WORKER_CLASS, the tests' fault-injecting workers) must find the
same class objects the process checks it against.

Why SimpleWorker by default: RQ's default Worker forks a work horse per
job, and most of that cost is RQ's set-up in the child; SimpleWorker runs
the job in-process (docs/architecture.md, "Workers", has the figures). Its
drawbacks are handled here and in worker/run/recovery.py:

- It sends no heartbeat while a job runs, so a killed worker's job would sit
  in STARTED for job_timeout + 60 s. A thread renews the job's registry
  entry every second with a short TTL instead (the C engine releases the
  GIL, so the thread runs even mid-search), and the cleanup in
  worker/run/recovery.py retries the job within seconds of the beats stopping.
- RQ's worker key lives worker_ttl + 60 s (8 minutes), so `rq info` showed
  a killed worker as busy for that long, and a worker whose Redis restarted
  empty was never registered again. The same thread renews the key with a
  TTL of seconds and registers the worker again when the key is gone, or
  its place in RQ's set of workers.
- RQ's worker raises its connection's socket timeout above its dequeue
  timeout (415 s by default) so that BLPOP is not cut short; a short
  dequeue timeout keeps every read of the worker bounded (sudoku/connections.py).
"""

from __future__ import annotations

import logging
import os
import threading
import time

from redis.exceptions import RedisError
from rq import Queue, Worker, worker_registration
from rq.job_lifecycle import call_exception_handlers
from rq.utils import now, utcformat
from rq.worker import WorkerStatus

from sudoku.connections import WORKER_TIMEOUT_S, refusal
from worker.counting import BoardsGone
from worker.run import metrics, readiness
from worker.run.attempt import Superseded
from worker.run.lifecycle import LeanWorker, PromptTeardown

log = logging.getLogger("sudoku.worker")

HEARTBEAT_TTL = 4  # seconds a job's registry entry survives its worker
HEARTBEAT_EVERY = 1.0
WORKER_KEY_TTL = 5  # seconds a worker stays in `rq info` after its last beat
DEQUEUE_TIMEOUT = 1  # seconds of one BLPOP; the worker loops on it


class Liveness:
    """Mixin for an RQ worker class: a thread that renews the worker's key
    (and the running job's heartbeat, see `beating`) every second."""

    beating: tuple[Queue, object] | None = None  # (queue, execution) of a job run in this process
    # RQ waits up to a minute between tries when Redis is away; a worker
    # should be back at work within seconds of Redis.
    max_connection_wait_time = 2.0
    _alive: threading.Thread | None = None
    _dying = False
    _outage_logged = False
    _born = False

    @property
    def dequeue_timeout(self) -> int:
        return DEQUEUE_TIMEOUT

    def handle_exception(self, job, *exc_info) -> None:
        """RQ logs every failed job with its traceback, at ERROR. A job whose
        boards a Redis restart lost fails by design (the service answers its
        call, the client sends the boards again), and one whose commands
        Redis refused for a while (connections.refusal) is an outage, not a
        bug (see execute_job): one warning line, and a deployer's exception
        handlers still hear of it."""
        exc, refused = exc_info[1], refusal(exc_info[1])
        if isinstance(exc, BoardsGone) or refused:
            log.warning("job %s: %s", job.id, f"Redis refused its commands {refused}" if refused else exc)
            call_exception_handlers(self._exc_handlers, job, *exc_info)
            return
        super().handle_exception(job, *exc_info)

    @property
    def connection_timeout(self) -> float:
        return DEQUEUE_TIMEOUT + WORKER_TIMEOUT_S

    def get_heartbeat_ttl(self, job, working_time: float = 0.0) -> int:
        return HEARTBEAT_TTL

    def worker_key_ttl(self, job_ttl: int | None = None) -> int:
        return WORKER_KEY_TTL

    # Redis refusing commands until something changes (writes for its
    # memory, as a replica, scripts by an ACL: connections.refusal) is an
    # outage the worker rides out, as it rides out Redis being away, at
    # each step of RQ's loop (which quits on any other error; the
    # supervisor's restarts back off for seconds). A job whose commands
    # were refused stops; its heartbeat runs out and worker/run/recovery.py
    # retries it, as for a worker that died.
    supervisor = 0  # the supervisor's pid (worker/run/process.py sets it); 0: the parent's

    def heartbeat(self, timeout: int | None = None, pipeline=None):
        try:
            return super().heartbeat(WORKER_KEY_TTL, pipeline)
        except RedisError as exc:
            if pipeline is not None or not refusal(exc):
                raise
            return None  # the liveness thread renews the key (and says it failed) once Redis takes it

    def execute_job(self, job, queue):
        try:
            return super().execute_job(job, queue)
        except RedisError as exc:
            if not refusal(exc):
                raise
            log.warning("job %s stopped: Redis refused its commands %s; it is retried once Redis takes them",
                        job.id, refusal(exc))
        if self._ride_out():
            self._retried(lambda: self.set_state(WorkerStatus.IDLE))
        return None

    def dequeue_job_and_maintain_ttl(self, timeout, max_idle_time=None):
        # None when asked to stop while it waited: RQ's loop ends.
        return self._retried(lambda: super(Liveness, self).dequeue_job_and_maintain_ttl(timeout, max_idle_time))

    def check_for_suspension(self, burst: bool) -> None:
        self._retried(lambda: super(Liveness, self).check_for_suspension(burst))

    def run_maintenance_tasks(self):
        try:
            super().run_maintenance_tasks()
        except RedisError as exc:  # its next turn comes; worker/run/recovery.py cleans every second meanwhile
            if not refusal(exc):
                raise

    def _retried(self, call):
        """call(), again each time Redis takes the commands it refused;
        None if the worker is asked to stop while it waits."""
        while True:
            try:
                return call()
            except RedisError as exc:
                if not refusal(exc):
                    raise
            if not self._ride_out():
                return None

    def _ride_out(self) -> bool:
        """Waits until Redis takes its commands again; False if asked to stop meanwhile."""
        return readiness.wait_until_usable(self.connection, self.supervisor or os.getppid(),
                                           lambda: self._stop_requested)

    def bootstrap(self, *args, **kwargs) -> None:
        self._retried(lambda: super(Liveness, self).bootstrap(*args, **kwargs))

    def register_birth(self) -> None:
        if not self._born:  # once: a bootstrap tried again finds its key (RQ would refuse it)
            super().register_birth()
            self._born = True
        if self._alive is None:
            self._alive = threading.Thread(target=self._prove_alive, name="liveness", daemon=True)
            self._alive.start()

    def register_death(self) -> None:
        self._dying = True
        try:
            super().register_death()
        except RedisError as exc:  # the worker's key runs out within WORKER_KEY_TTL
            if not refusal(exc):
                raise
            log.warning("worker %s: Redis refused to register its death %s; its key runs out", self.name,
                        refusal(exc))

    def _prove_alive(self) -> None:
        while not self._dying:
            time.sleep(HEARTBEAT_EVERY)
            try:
                self._beat()
            except RedisError as exc:  # Redis away: the job itself will notice
                if not self._outage_logged:
                    log.warning("worker %s: heartbeat failed (%s); retrying every second", self.name, exc)
                    self._outage_logged = True
                continue
            if self._outage_logged:
                log.warning("worker %s: Redis answers again", self.name)
                self._outage_logged = False

    def _beat(self) -> None:
        current = self.beating
        with self.connection.pipeline(transaction=False) as pipe:
            if current is not None:
                queue, execution = current
                # RQ adds to the registries with ZADD XX: a beat that comes
                # after the cleanup gave the job up (a stalled worker waking)
                # does not bring the job back to life.
                execution.heartbeat(queue.started_job_registry, HEARTBEAT_TTL, pipe)
            pipe.hexists(self.key, "birth")
            # RQ's Worker.all drops a worker from the set when it finds its
            # key gone, a check and a write apart: one that read the key gone
            # during a stall could drop it just after this worker registered
            # again, and the key alone would never show it.
            pipe.sismember(self.redis_workers_keys, self.key)
            pipe.hset(self.key, "last_heartbeat", utcformat(now()))
            pipe.expire(self.key, WORKER_KEY_TTL)
            born, listed = pipe.execute()[-4:-2]
        if self._dying:
            return
        if not born:
            self._register_again()
        elif not listed:  # the key is whole: back in the set is enough
            log.warning("worker %s: it is gone from RQ's set of workers; listed again", self.name)
            worker_registration.register(self)

    def _register_again(self) -> None:
        """RQ's register_birth, for a worker whose key vanished (its Redis
        restarted empty, or it stalled past the key's TTL)."""
        log.warning("worker %s: its key is gone from Redis; registering again", self.name)
        state = self.get_state()
        with self.connection.pipeline() as pipe:
            pipe.delete(self.key)
            pipe.hset(self.key, mapping={**self.serialize(), "state": state})
            worker_registration.register(self, pipe)
            pipe.expire(self.key, WORKER_KEY_TTL)
            pipe.execute()
        # The job's thread may have changed the state meanwhile (a stalled
        # attempt waking and dropping its job): the last write must be its,
        # or `rq info` shows this worker busy forever (set_state skips a
        # state it believes written).
        while (current := self.get_state()) != state:
            self.connection.hset(self.key, "state", current)
            state = current


class SudokuWorker(Liveness, LeanWorker):
    """LeanWorker (RQ's job lifecycle in two Lua scripts, worker/run/lifecycle.py)
    with a live heartbeat, job metrics, and attempts that stop quietly when
    another attempt has taken their job over (worker/run/attempt.py)."""

    def run_job(self, job, queue, execution) -> bool:
        self.beating = (queue, execution)
        started = time.monotonic()
        ok = False
        try:
            ok = super().run_job(job, queue, execution)
        finally:
            self.beating = None
            metrics.job_ran(job, ok, time.monotonic() - started)
        return ok

    def _finalize_failure(self, job, queue, execution, exc_info) -> None:
        if isinstance(exc_info[1], Superseded) or not self.owns(job):
            # Another attempt runs the job now (or it was given up): its
            # state is theirs. Only this worker's own bookkeeping is undone.
            log.warning("job %s: this attempt was superseded while it stalled; dropped", job.id)
            self.drop(job, execution)
            return
        super()._finalize_failure(job, queue, execution, exc_info)


class ForkingSudokuWorker(Liveness, PromptTeardown, Worker):
    """RQ's default forking worker, with the same short heartbeat.

    Each job runs in a forked child, so a crash in a job cannot take the
    worker down, at the cost of RQ's per-job set-up in the child (see
    docs/architecture.md: "Workers"). SUDOKU_WORKER_CLASS=fork selects it.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("job_monitoring_interval", int(HEARTBEAT_EVERY))
        super().__init__(*args, **kwargs)


WORKER_CLASSES = {"simple": SudokuWorker, "fork": ForkingSudokuWorker}
