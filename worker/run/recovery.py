"""Recovering the work of workers that died: one pass a second, by one worker.

Two kinds of job are lost when a worker dies (docs/delivery.md, "Delivery
and failure semantics"):

- A job it was running. Its heartbeat (worker/run/classes.py) stops, so the
  job's entry in RQ's StartedJobRegistry expires within seconds, and RQ's
  registry cleanup retries it (or fails it when no retry is left). RQ runs
  that cleanup every 10 minutes; here it runs every second.
- A job it had taken off a queue but not registered yet. RQ takes a job off its queue and only then registers it as started. With
one queue it moves the id to an "intermediate" list (LMOVE) and cleans that
list later; with several queues, as here (interactive first, then batch),
it uses BLPOP, and a worker killed between the pop and the registration
leaves the job in no list and no registry: nothing would ever run it
(bench/load.py, which SIGKILLs workers under load, lost calls that way).

So every job the service queues is also noted, with the time, in a sorted
set (service/jobs/enqueue.py). Every second one worker (under the maintenance
lock) looks at the notes older than a few seconds: a job that has ended, or
is gone, is struck off; a job whose status still says "queued" but whose id
is on no queue is a suspect, and a suspect still missing a second later is
pushed back onto its queue. (The second look is what keeps a job that a
live worker has just popped, and is about to register, from running twice;
if one ever does, our jobs are safe to run twice: docs/delivery.md.)
"""

from __future__ import annotations

import logging
import os
import signal
import time

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue
from rq.job import Job
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

from sudoku import keys

log = logging.getLogger("sudoku.worker")

EVERY = 1.0  # seconds between passes

GRACE = 3.0  # seconds a job is given to leave its queue and register before it is checked
BATCH = 500
ACTIVE = {b"queued", b"started", b"deferred", b"scheduled"}


def recover_lost_jobs(redis: Redis, now: float | None = None) -> int:
    """One pass; returns how many jobs were queued again."""
    now = time.time() if now is None else now
    requeued = 0
    while True:
        ids = redis.zrangebyscore(keys.PENDING, "-inf", now - GRACE, start=0, num=BATCH)
        if not ids:
            return requeued
        done, missing = _sort(redis, ids)
        requeued += _requeue_twice_missing(redis, missing, now)
        if done:
            redis.zrem(keys.PENDING, *done)
        if len(ids) < BATCH or not done:
            return requeued


def _sort(redis: Redis, ids: list[bytes]) -> tuple[list[bytes], list[tuple[bytes, str]]]:
    """(ended or gone, queued but on no queue)."""
    with redis.pipeline(transaction=False) as pipe:
        for job_id in ids:
            pipe.hmget(Job.key_for(job_id.decode()), "status", "origin")
        rows = pipe.execute()
    done, queued = [], []
    for job_id, (status, origin) in zip(ids, rows):
        if status not in ACTIVE:
            done.append(job_id)
        elif status == b"queued" and origin:
            queued.append((job_id, Queue(origin.decode(), connection=redis).key))
    if not queued:
        return done, []
    with redis.pipeline(transaction=False) as pipe:
        for job_id, queue_key in queued:
            pipe.lpos(queue_key, job_id)
        positions = pipe.execute()
    return done, [q for q, position in zip(queued, positions) if position is None]


def _requeue_twice_missing(redis: Redis, missing: list[tuple[bytes, str]], now: float) -> int:
    requeued = 0
    seen = set(redis.hkeys(keys.SUSPECTS)) if missing else set()
    with redis.pipeline(transaction=False) as pipe:
        for job_id, queue_key in missing:
            if job_id in seen:
                pipe.rpush(queue_key, job_id)
                pipe.hdel(keys.SUSPECTS, job_id)
                log.warning("job %s was taken off %s by a worker that died; queued again", job_id.decode(), queue_key)
                requeued += 1
            else:
                pipe.hset(keys.SUSPECTS, job_id, repr(now))
                pipe.expire(keys.SUSPECTS, 60)
        # A suspect found again (on its queue, or started) is no longer one.
        for job_id in seen - {j for j, _ in missing}:
            pipe.hdel(keys.SUSPECTS, job_id)
        pipe.execute()
    return requeued


def clean_abandoned(redis: Redis) -> None:
    """One pass: retries (or fails) jobs whose worker stopped sending
    heartbeats, and queues again those a dying worker took off a queue.

    Every worker process runs this; the lock makes one of them do it per
    pass, because two cleanups racing could each requeue the same job.
    """
    if not redis.set(keys.MAINTENANCE_LOCK, os.getpid(), nx=True, px=int(EVERY * 900)):
        return
    for name in keys.QUEUES:
        queue = Queue(name, connection=redis, serializer=JSONSerializer)
        # The default death penalty uses SIGALRM, which only the main thread
        # may set; this runs in a thread, so time the failure callback with
        # a timer instead.
        registry = StartedJobRegistry(queue=queue, death_penalty_class=TimerDeathPenalty)
        registry.cleanup()
    recover_lost_jobs(redis)


def maintain(redis: Redis, parent: int) -> None:
    """The worker's maintenance thread: clean_abandoned every second, and a
    warm shutdown when the supervisor (`parent`) is gone, since a worker
    must not outlive it."""
    outage = False
    while True:
        time.sleep(EVERY)
        if os.getppid() != parent:
            log.warning("supervisor %d is gone; finishing the current job and stopping", parent)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        try:
            clean_abandoned(redis)
        except RedisError as exc:
            if not outage:  # once per outage, not every second of it
                log.warning("maintenance paused: Redis is unavailable (%s)", exc)
            outage = True
        else:
            outage = False
