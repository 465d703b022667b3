"""Queueing an RQ job from asyncio: one round trip, the bound checked atomically.

RQ's own enqueue is synchronous and takes two round trips; from the event
loop it needs a thread, and under load the hand-off to that thread and back
(the GIL's 5 ms switch interval) cost more than the work itself. So the job
is built here exactly as Queue.enqueue_call builds it (Queue.create_job,
then Queue._prepare_for_queue), and what Queue._enqueue_async_job writes
(the job's hash with status "queued", its id pushed onto the queue, the
queue in RQ's set of queues), with a note that it was queued (for
worker/recovery.py), is sent as one Lua script, which first checks
the queue's length against the bound: a full queue is refused exactly, not
after a separate LLEN that others could race. A solve's frame 1 goes in the
same script, so a client never sees a job id whose stream does not exist.
tests/test_enqueue.py checks that RQ reads back the same job as its own
enqueue would have written.
"""

from __future__ import annotations

import time
from typing import Any

from redis.asyncio import Redis
from rq import Queue
from rq.job import JobStatus

from sudoku import keys

# KEYS: queue list, job hash, RQ's set of queues, pending jobs[, frame stream]
# ARGV: bound, job id, frame 1 (or ""), now, then the job hash's field/value pairs
SCRIPT = """
local waiting = redis.call('LLEN', KEYS[1])
if waiting >= tonumber(ARGV[1]) then return {0, waiting} end
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[3], KEYS[1])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[2])
if KEYS[5] then
  redis.call('XADD', KEYS[5], '0-1', 'f', ARGV[3])
  redis.call('EXPIRE', KEYS[5], 86400)
end
return {1, waiting}
"""


class Enqueuer:
    def __init__(self, redis: Redis):
        self.script = redis.register_script(SCRIPT)

    async def enqueue(
        self, queue: Queue, bound: int, func: str, args: Any, job_id: str, *,
        stream: str | None = None, first_frame: bytes = b"", **options: Any,
    ) -> tuple[bool, int]:
        """Queues func(args) as job `job_id` unless `bound` jobs are waiting.

        Returns (queued, jobs waiting before). `options` are enqueue_call's
        (timeout, result_ttl, retry, on_failure, ...). With `stream`, writes
        `first_frame` as the stream's frame 1 in the same step.
        """
        job = queue.create_job(func, args=(args,), job_id=job_id, status=JobStatus.QUEUED, **options)
        queue._prepare_for_queue(job)
        fields = [part for pair in job.to_dict().items() for part in pair]
        keys_ = [queue.key, job.key, queue.redis_queues_keys, keys.PENDING] + ([stream] if stream else [])
        args = [bound, job.id, first_frame, repr(time.time()), *fields]
        queued, waiting = await self.script(keys=keys_, args=args)
        return bool(queued), int(waiting)
