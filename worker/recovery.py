"""Finding jobs that a dying worker took with it, and queueing them again.

RQ takes a job off its queue and only then registers it as started. With
one queue it moves the id to an "intermediate" list (LMOVE) and cleans that
list later; with several queues, as here (interactive first, then batch),
it uses BLPOP, and a worker killed between the pop and the registration
leaves the job in no list and no registry: nothing would ever run it. The
10-minute load run (bench/load.py) lost 4 of 73,034 calls that way, with a
worker SIGKILLed every 30 s.

So every job the service queues is also noted, with the time, in a sorted
set (service/enqueue.py). Every second one worker (under the maintenance
lock) looks at the notes older than a few seconds: a job that has ended, or
is gone, is struck off; a job whose status still says "queued" but whose id
is on no queue is a suspect, and a suspect still missing a second later is
pushed back onto its queue. (The second look is what keeps a job that a
live worker has just popped, and is about to register, from running twice;
if one ever does, our jobs are safe to run twice: README, "Delivery".)
Jobs lost after registration are RQ's StartedJobRegistry's business
(heartbeats; worker/process.py).
"""

from __future__ import annotations

import logging
import time

from redis import Redis
from rq import Queue
from rq.job import Job

from sudoku import keys

log = logging.getLogger("sudoku.worker")

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
