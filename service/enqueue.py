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
RQ's objects cost ~160 µs a job to build, so the fields that are the same
for every job of one function and set of options are built by RQ once, and
only the call and the time are filled in per job. The call is compressed
with a 512-byte window: zlib's default state is ~256 KB, whose allocation
took 108 µs a job here against 19 µs (RQ decompresses either).
A hint or count first looks for its reply in the result cache
(service/cache.py), in the same script: a miss costs no extra round trip.
A solve with a request_id claims the id in the same script, together with
the job it names or not at all: a retry finds either the job (and attaches
to it) or nothing, never an id with no job behind it.
tests/test_enqueue.py checks that RQ reads back the same job as its own
enqueue would have written.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import zlib
from typing import Any, NamedTuple

import hiredis
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue
from rq.job import JobStatus
from rq.utils import get_call_string, now, utcformat

from sudoku import keys

# KEYS: queue list, job hash, RQ's set of queues, pending jobs, frame stream
#       (or ""), cached reply (or ""), request_id (or "")
# ARGV: bound, job id, frame 1 (or ""), now, the request's fingerprint (or
#       ""), the request_id's TTL, the frame streams' key prefix, then the job
#       hash's field/value pairs
# Returns {1, jobs waiting before} queued, {0, jobs waiting} refused,
# {2, the reply} found in the cache, {3, job id} the request_id's job, which
# still has its stream, or {4, ""} the request_id names another request
# (nothing queued in the last four cases). A request_id whose job's stream
# is gone (expired, or lost with a Redis restart) is claimed afresh.
SCRIPT = """
if KEYS[6] ~= '' then
  local cached = redis.call('GET', KEYS[6])
  if cached then return {2, cached} end
end
if KEYS[7] ~= '' then
  local held = redis.call('GET', KEYS[7])
  if held then
    local job, print = string.match(held, '^(%S+) (%S+)$')
    if print ~= ARGV[5] then return {4, ''} end
    if redis.call('EXISTS', ARGV[7] .. job) == 1 then return {3, job} end
  end
end
local waiting = redis.call('LLEN', KEYS[1])
if waiting >= tonumber(ARGV[1]) then return {0, waiting} end
redis.call('HSET', KEYS[2], unpack(ARGV, 8))
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[3], KEYS[1])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[2])
if KEYS[5] ~= '' then
  redis.call('XADD', KEYS[5], '0-1', 'f', ARGV[3])
  redis.call('EXPIRE', KEYS[5], 86400)
end
if KEYS[7] ~= '' then
  redis.call('SET', KEYS[7], ARGV[2] .. ' ' .. ARGV[5], 'EX', ARGV[6])
end
return {1, waiting}
"""


# The job hash's fields that differ between two jobs of one function and
# set of options.
PER_JOB = ("created_at", "enqueued_at", "data", "description")
MAX_TEMPLATES = 256  # sets of options remembered (time limits vary per request)


def _hashable(value: Any) -> Any:
    """Options (with their Retry and Callback objects) as a dictionary key."""
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if hasattr(value, "__dict__") and not callable(value):
        return (type(value).__name__, _hashable(vars(value)))
    return value


class Enqueued(NamedTuple):
    queued: bool
    waiting: int  # jobs waiting before this one (or instead of it, when refused)
    cached: bytes | None = None  # the cached reply that made the job unnecessary
    attached: str | None = None  # the job the request_id names, which made this one unnecessary


class Claim(NamedTuple):
    """A request_id to claim with the job: its key, the request's
    fingerprint, and how long the claim lasts."""

    key: str
    fingerprint: str
    ttl_s: int


class RequestIdReused(Exception):
    """The request_id was claimed by a different request."""


class Enqueuer:
    """Writes the script on connections of its own, at most `slots` at once
    (more enqueues wait their turn). redis-py's client took ~0.2 ms of the
    event loop per call here (its pool, command layers and pure-Python
    packing, cold); the command is packed by hiredis and written and read
    directly. Like redis-py it loads the script again when Redis has lost
    it, and retries once on a broken connection.

    `redis`: the service's client; the Enqueuer's connections are made with
    its pool's settings but are not in its pool, and it loads the script.
    """

    def __init__(self, redis: Redis, slots: int = 100):
        self.redis = redis
        self.sha = hashlib.sha1(SCRIPT.encode()).hexdigest()
        self._slots = asyncio.Semaphore(slots)
        self._free: list = []  # idle connections, at most `slots`
        self._templates: dict[Any, list] = {}

    async def close(self) -> None:
        while self._free:
            await self._free.pop().disconnect()

    async def _run(self, keys_: list, args: list):
        command = ("EVALSHA", self.sha, len(keys_), *keys_, *args)
        reloaded = reconnected = False
        async with self._slots:
            connection = self._free.pop() if self._free else self.redis.connection_pool.make_connection()
            try:
                try:
                    packed = hiredis.pack_command(command)
                except TypeError:  # a type hiredis does not take: redis-py's encoder says what is wrong
                    packed = connection.pack_command(*command)
                while True:
                    try:
                        await connection.send_packed_command(packed)
                        return await connection.read_response()
                    except NoScriptError:
                        if reloaded:
                            raise
                        await self.redis.script_load(SCRIPT)  # Redis restarted, or SCRIPT FLUSH
                        reloaded = True
                    except (RedisConnectionError, RedisTimeoutError) as exc:
                        await connection.disconnect()
                        # A broken connection (Redis restarted) is worth one
                        # more try; a Redis that did not answer in time is
                        # not: the caller gets UNAVAILABLE within the bound.
                        if reconnected or isinstance(exc, RedisTimeoutError):
                            raise
                        reconnected = True
            finally:
                # Cancelled (the caller left) mid-call, redis-py's connection
                # has disconnected itself: no unread reply is left for the next.
                self._free.append(connection)

    async def enqueue(
        self, queue: Queue, bound: int, func: str, args: Any, job_id: str, *,
        stream: str | None = None, first_frame: bytes = b"", cached: str | None = None,
        claim: Claim | None = None, **options: Any,
    ) -> Enqueued:
        """Queues func(args) as job `job_id` unless `bound` jobs are waiting.

        `options` are enqueue_call's (timeout, result_ttl, retry,
        on_failure, ...). With `stream`, writes `first_frame` as the
        stream's frame 1 in the same step. With `cached`, a cache key: if it
        holds a reply, nothing is queued and the reply is returned. With
        `claim`, a request_id: if it names a job that still has its stream,
        nothing is queued and that job is returned; raises RequestIdReused if
        it names another request.
        """
        fields = self._fields(queue, func, args, job_id, options)
        keys_ = [queue.key, queue.job_class.key_for(job_id), queue.redis_queues_keys, keys.PENDING, stream or "",
                 cached or "", claim.key if claim else ""]
        args = [bound, job_id, first_frame, repr(time.time()), claim.fingerprint if claim else "",
                claim.ttl_s if claim else 0, keys.frames(""), *fields]
        status, value = await self._run(keys_, args)
        if status == 2:
            return Enqueued(False, 0, value)
        if status == 3:
            return Enqueued(False, 0, attached=value.decode())
        if status == 4:
            raise RequestIdReused()
        return Enqueued(bool(status), int(value))

    def _fields(self, queue: Queue, func: str, args: Any, job_id: str, options: dict[str, Any]) -> list:
        """The job hash's field/value pairs, as Queue.create_job,
        Queue._prepare_for_queue and Job.to_dict make them."""
        template_key = (queue.name, func, _hashable(options))
        constant = self._templates.get(template_key)
        if constant is None:
            job = queue.create_job(func, args=(args,), job_id=job_id, status=JobStatus.QUEUED, **options)
            queue._prepare_for_queue(job)
            constant = [part for name, value in job.to_dict().items() if name not in PER_JOB for part in (name, value)]
            if len(self._templates) >= MAX_TEMPLATES:
                self._templates.clear()
            self._templates[template_key] = constant
        call, stamp = (args,), utcformat(now())
        return [
            *constant,
            "created_at", stamp,
            "enqueued_at", stamp,
            "data", compress(queue.serializer.dumps((func, None, call, {}))),
            "description", get_call_string(func, call, {}, max_length=75),
        ]


def compress(data: bytes) -> bytes:
    """zlib data that zlib.decompress (RQ's Job.restore) reads, from a
    512-byte window and the smallest state (see the module docstring)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 9, 1)
    return packer.compress(data) + packer.flush()
