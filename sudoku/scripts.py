"""Every Lua script the service and the workers run on Redis, and how they
are called.

A script is one round trip that nothing can come between: the service's
enqueue checks the queue's bound and writes the job in one step, a worker
starts and finishes a job in one step each, and an attempt's writes are
fenced by a check in the same step. Each script's comment names its KEYS and
ARGV and the code that calls it, as sudoku/keys.py names every key.

How a call survives what Redis does to it is written once, in Recovery, and
followed by both ways of calling:

- HeldConnection (a worker's main thread) calls on one connection held for
  the purpose, blocking;
- ScriptPool (the service's event loop) calls on up to `slots` connections
  of its own, from asyncio.

Both pack the command with hiredis and write and read it directly on the
connection: redis-py's client runs its pool, retry and observability layers
on every command, which for these calls cost more than Redis's own work
(bench/scripts.py measures both). The fenced writes of worker/run/attempt.py
are made on the job's own client (Job.connection) through redis-py's
register_script, which loads a lost script again by itself, and so are the
few rarer scripts at the end (a finished stream's expiry, a cancel's stop
point).
"""

from __future__ import annotations

import asyncio
import hashlib

import hiredis
from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from sudoku import keys
from sudoku.connections import Held


class Script:
    """A script's source and the SHA1 that EVALSHA names it by."""

    __slots__ = ("source", "sha")

    def __init__(self, source: str):
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    def pack(self, connection, keys: list, args: list) -> list[bytes]:
        """The EVALSHA command, as the chunks to write on `connection`."""
        command = ("EVALSHA", self.sha, len(keys), *keys, *args)
        try:
            return [hiredis.pack_command(command)]
        except TypeError:  # a type hiredis does not take: redis-py's encoder says what is wrong
            return connection.pack_command(*command)


# What to do before calling again (Recovery.after).
LOAD = "load"  # Redis has lost the script (a restart, SCRIPT FLUSH): load it
RECONNECT = "reconnect"  # the connection broke: drop it; the next write connects afresh


class Recovery:
    """What one call does when it fails: load a lost script once, and
    reconnect once after a broken connection (Redis restarted, or dropped
    an idle connection). Anything else, or the same failure again, is the
    caller's to handle.

    With `after_timeout` False, a reply that did not come in time is not
    tried again: a Redis that has stopped answering must cost the caller
    one bound (sudoku/connections.py), not two.

    A call that gives up leaves no unread reply behind: redis-py's
    connection closes itself on a connection error, a timeout or a
    cancellation while it writes or reads.
    """

    __slots__ = ("after_timeout", "reloaded", "reconnected")

    def __init__(self, after_timeout: bool):
        self.after_timeout = after_timeout
        self.reloaded = self.reconnected = False

    def after(self, error: RedisError) -> str:
        """LOAD or RECONNECT, to do before calling again; raises `error`
        when the call should give up."""
        if isinstance(error, NoScriptError) and not self.reloaded:
            self.reloaded = True
            return LOAD
        broken = isinstance(error, RedisConnectionError) or (
            self.after_timeout and isinstance(error, RedisTimeoutError))
        if broken and not self.reconnected:
            self.reconnected = True
            return RECONNECT
        raise error


class HeldConnection:
    """Calls scripts on a connection of its own, blocking.

    For one thread (a worker's main loop), so it needs no pool. A call is
    tried again after a timeout as after a broken connection; the worker's
    scripts bear running twice: START writes the same values again, and a
    FINISH that ran already finds the job no longer started and changes
    nothing.
    """

    def __init__(self, redis: Redis):
        self.redis = redis
        self._connection = redis.connection_pool.make_connection()

    def __call__(self, script: Script, keys: list, args: list):
        connection = self._connection
        packed = script.pack(connection, keys, args)
        recovery = Recovery(after_timeout=True)
        while True:
            try:
                if not connection.is_connected:
                    connection.connect()  # a Sentinel group's connection asks for the primary here only
                connection.send_packed_command(packed)
                return connection.read_response()
            except RedisError as error:
                if recovery.after(error) == LOAD:
                    self.redis.script_load(script.source)
                else:
                    connection.disconnect()

    def close(self) -> None:
        self._connection.disconnect()


class ScriptPool:
    """Calls scripts from asyncio on connections of its own, at most `slots`
    at once (more calls wait their turn).

    `redis`: the service's client; the connections are made with its pool's
    settings but are not in its pool (its per-command layers are what this
    avoids: connections.Held), and it loads a lost script.
    """

    def __init__(self, redis: AsyncRedis, slots: int):
        self.redis = redis
        self._slots = asyncio.Semaphore(slots)
        self._free: list[Held] = []  # idle connections, at most `slots`

    async def __call__(self, script: Script, keys: list, args: list):
        async with self._slots:
            held = self._free.pop() if self._free else Held(self.redis)
            try:
                packed = script.pack(held.connection, keys, args)
                recovery = Recovery(after_timeout=False)
                while True:
                    try:
                        return await held.call(packed)
                    except RedisError as error:
                        if recovery.after(error) == LOAD:
                            await self.redis.script_load(script.source)
                        else:
                            await held.connection.disconnect()
            finally:
                # Back to the free list even when the caller was cancelled
                # mid-call: the connection closed itself then (see Recovery).
                self._free.append(held)

    async def close(self) -> None:
        while self._free:
            await self._free.pop().close()


# ---- The service (service/jobs/enqueue.py) ----

# A job queued where every worker is busy waits for one to end its job. A
# job that only waits for more calls (worker/calls.py: up to LINGER_MS)
# then waits no longer than it did before it waited so long
# (BUSY_LINGER_MS). While it waits, a job's added calls are on the
# lingering list of its worker's kind (keys.lingering). A job queued takes
# the oldest off its queue's lists (keys.lingering_for) and rings it (a
# "y" entry). The worker looks at its queues then, and waits on as long
# as it was going to if another worker took the job meanwhile. The TTL (the
# waker's, ADDED_TTL_S in worker/calls.py) is for a ring on a job whose
# worker died while it waited (its added calls may be gone).
RING = """
local ringing = redis.call('LPOP', KEYS[{0}])
if not ringing and KEYS[{1}] ~= '' then ringing = redis.call('LPOP', KEYS[{1}]) end
if ringing then
  redis.call('XADD', ringing, '*', 'y', '1')
  if redis.call('TTL', ringing) == -1 then redis.call('EXPIRE', ringing, 7200) end
end"""

# Enqueuer.enqueue: what RQ's Queue._enqueue_async_job writes (the job's
# hash, its id pushed onto the queue, the queue in RQ's set of queues), a
# note that it was queued (for worker/run/recovery.py), the bound checked first;
# a cached reply looked up, frame 1 and the request_id claimed, all in the
# same step.
# KEYS: queue list, job hash, RQ's set of queues, pending jobs, frame stream
#       (or ""), cached reply (or ""), request_id (or ""), then the two
#       lingering lists of the queue (keys.lingering_for; see RING)
# ARGV: bound, job id, frame 1 (or ""), now, the request's fingerprint (or
#       ""), the request_id's TTL, the frame streams' key prefix, then the job
#       hash's field/value pairs
# Returns {1, jobs waiting before} queued, {0, jobs waiting} refused,
# {2, the reply} found in the cache, {3, job id} the request_id's job, which
# still has its stream, or {4, ""} the request_id names another request
# (nothing queued in the last four cases). A request_id whose job's stream
# is gone (expired, or lost with a Redis restart) is claimed afresh.
# HEADER_ID is frame 1's entry id (sudoku/keys.py: HEADER_SEQ).
ENQUEUE = Script("""
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
RING(8, 9)
if KEYS[5] ~= '' then
  redis.call('XADD', KEYS[5], 'HEADER_ID', 'f', ARGV[3])
  redis.call('EXPIRE', KEYS[5], 86400)
end
if KEYS[7] ~= '' then
  redis.call('SET', KEYS[7], ARGV[2] .. ' ' .. ARGV[5], 'EX', ARGV[6])
end
return {1, waiting}
""".replace("HEADER_ID", keys.frame_id(keys.HEADER_SEQ)).replace("RING(8, 9)", RING.format(8, 9)))


# Coalescer.submit (service/jobs/calls.py): coalesced calls. Each call whose
# cache key holds a reply is answered from it; the others go into the open
# job (KEYS[1]) while it is queued, or started and not closed yet (its
# worker takes calls as they come until it closes the job: CLOSE_CALLS),
# and has room, in one entry of its stream of added calls (KEYS[2]), or
# else into a new job, queued as ENQUEUE queues one (the bound checked
# first), which carries them in its hash (keys.CALLS_FIELD).
# KEYS: open job's hash (or ""), open job's added calls (or ""), queue list,
#       new job hash, RQ's set of queues, pending jobs, the two lingering
#       lists of the queue (keys.lingering_for; see RING), then a cache key
#       (or "") per call
# ARGV: calls a job holds at most, n (calls), the added calls' TTL, bound,
#       new job id, now, then the n calls, then the new job hash's
#       field/value pairs
# Returns {status, jobs waiting, hits}: status 3 added to the open job, 1
# queued the new job, 2 every call was cached, 0 refused (queue full: no
# call stored); hits = {i, reply, ...} for the calls (1-based) the cache answered.
SUBMIT = Script("""
local n = tonumber(ARGV[2])
local hits, rest = {}, {}
for i = 1, n do
  local cached = false
  if KEYS[8 + i] ~= '' then
    local reply = redis.call('GET', KEYS[8 + i])
    if reply then
      hits[#hits + 1] = i
      hits[#hits + 1] = reply
      cached = true
    end
  end
  if not cached then rest[#rest + 1] = ARGV[6 + i] end
end
if #rest == 0 then return {2, 0, hits} end
if KEYS[1] ~= '' then
  local open = redis.call('HMGET', KEYS[1], 'status', 'COUNT', 'ADDED', 'CLOSED')
  if (open[1] == 'queued' or open[1] == 'started' and not open[4])
     and tonumber(open[2]) + tonumber(open[3] or 0) + #rest <= tonumber(ARGV[1]) then
    redis.call('XADD', KEYS[2], '*', 'c', table.concat(rest, '\\n'))
    redis.call('EXPIRE', KEYS[2], ARGV[3])
    redis.call('HINCRBY', KEYS[1], 'ADDED', #rest)
    return {3, 0, hits}
  end
end
local waiting = redis.call('LLEN', KEYS[3])
if waiting >= tonumber(ARGV[4]) then return {0, waiting, hits} end
redis.call('HSET', KEYS[4], 'CALLS', table.concat(rest, '\\n'), 'COUNT', #rest, unpack(ARGV, 7 + n))
redis.call('RPUSH', KEYS[3], ARGV[5])
redis.call('SADD', KEYS[5], KEYS[3])
redis.call('ZADD', KEYS[6], ARGV[6], ARGV[5])
RING(7, 8)
return {1, waiting, hits}
""".replace("RING(7, 8)", RING.format(7, 8))
  .replace("CALLS", keys.CALLS_FIELD).replace("COUNT", keys.CALLS_COUNT_FIELD).replace("ADDED", keys.ADDED_FIELD)
  .replace("CLOSED", keys.CLOSED_FIELD))



# ---- A job's lifecycle in a worker (worker/run/lifecycle.py) ----

# LeanWorker.start_job: what RQ's Execution.create, Worker.set_state(BUSY),
# Worker.heartbeat, Job.prepare_for_execution and a PERSIST of the job
# write, in that order, then the job as it now stands.
# KEYS: execution, the job's executions, started registry, worker's
#       executions, worker, job[, intermediate queue]
# ARGV: execution id, job id, execution timestamp, worker name, heartbeat
#       ttl, executions score, executions ttl, started score, composite key,
#       worker heartbeat, worker key ttl, job timestamp
START = Script("""
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'job_id', ARGV[2], 'created_at', ARGV[3],
           'last_heartbeat', ARGV[3], 'worker_name', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[8], ARGV[9])
redis.call('SADD', KEYS[4], ARGV[9])
redis.call('EXPIRE', KEYS[4], ARGV[7])
redis.call('HSET', KEYS[5], 'state', 'busy', 'last_heartbeat', ARGV[10])
redis.call('EXPIRE', KEYS[5], ARGV[11])
redis.call('EXPIRE', KEYS[4], ARGV[11])
redis.call('HSET', KEYS[6], 'last_heartbeat', ARGV[12], 'status', 'started', 'started_at', ARGV[12],
           'worker_name', ARGV[4])
redis.call('PERSIST', KEYS[6])
if KEYS[7] then redis.call('LREM', KEYS[7], 1, ARGV[2]) end
return redis.call('HGETALL', KEYS[6])
""")

# LeanWorker.handle_job_success: what RQ's handle_job_success writes for a
# result kept result_ttl seconds (worker stats, the job finished, its
# Result, the finished registry, the job's expiry, the execution removed,
# the worker idle), then whether the workers are suspended and whether the
# job has dependents. Unless the attempt was superseded (worker/run/attempt.py):
# then nothing, and {-1, 0}.
# KEYS: worker, job, results, finished registry, dependents, dependencies,
#       execution, started registry, the job's executions, worker's
#       executions, suspension flag
# ARGV: working time, started_at, ended_at, result ttl, finished score,
#       job id, composite key, execution id, worker name, then the Result's fields
# A result ttl of 0 (a job that answered on an inbox: worker/calls.py) is
# RQ's "deleted on success": the job's hash, its Result and its links go
# instead of being kept, the rest as above. Such a job with dependents
# returns {-2, 1} before writing anything, for RQ's own code to finish it.
FINISH = Script("""
local owner = redis.call('HMGET', KEYS[2], 'status', 'worker_name')
if owner[1] ~= 'started' or owner[2] ~= ARGV[9] then return {-1, 0} end
if ARGV[4] == '0' and redis.call('EXISTS', KEYS[5]) == 1 then return {-2, 1} end
redis.call('HINCRBY', KEYS[1], 'successful_job_count', 1)
redis.call('HINCRBYFLOAT', KEYS[1], 'total_working_time', ARGV[1])
if ARGV[4] == '0' then
  redis.call('DEL', KEYS[2], KEYS[5], KEYS[6], KEYS[3], KEYS[7], KEYS[9])
  redis.call('ZREM', KEYS[8], ARGV[7])
  redis.call('SREM', KEYS[10], ARGV[7])
  redis.call('HSET', KEYS[1], 'state', 'idle')
  return {redis.call('EXISTS', KEYS[11]), 0}
end
redis.call('HSET', KEYS[2], 'status', 'finished', 'started_at', ARGV[2], 'ended_at', ARGV[3],
           'last_heartbeat', ARGV[3])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', '10', '*', unpack(ARGV, 10))
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[5], ARGV[4])
redis.call('EXPIRE', KEYS[6], ARGV[4])
redis.call('DEL', KEYS[7])
redis.call('ZREM', KEYS[8], ARGV[7])
redis.call('ZREM', KEYS[9], ARGV[8])
redis.call('SREM', KEYS[10], ARGV[7])
redis.call('HSET', KEYS[1], 'state', 'idle')
return {redis.call('EXISTS', KEYS[11]), redis.call('EXISTS', KEYS[5])}
""")


# ---- An attempt's fenced writes (worker/run/attempt.py) ----

# The fence, at the head of each script below: the write happens only while
# the job's hash says it is started and run by this attempt's worker.
# KEYS[1]: the job's hash; ARGV[1]: the worker name the attempt runs under.
FENCE = """
local owner = redis.call('HMGET', KEYS[1], 'status', 'worker_name')
if owner[1] ~= 'started' or owner[2] ~= ARGV[1] then return -1 end
"""

# Attempt.append: appends frames, skipping seqs the stream has (a previous
# attempt wrote them; frames are deterministic, so its copy is ours).
# Returns -1 when superseded, else whether the job's cancel flag is up.
# KEYS: job, frames, cancel flag; ARGV: worker, maxlen, then seq/frame pairs
APPEND = Script(FENCE + """
local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local last = 0
if newest[1] then last = tonumber(string.match(newest[1][1], '-(%d+)$')) end
for i = 3, #ARGV, 2 do
  local seq = tonumber(ARGV[i])
  if seq > last then
    redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[2], '0-' .. seq, 'f', ARGV[i + 1])
    last = seq
  end
end
return redis.call('EXISTS', KEYS[3])
""")

# Attempt.set_plan: sets fields of the job's plan hash. Returns -1 when
# superseded, else 0.
# KEYS: job, plan; ARGV: worker, ttl, then field/value pairs
SET_PLAN = Script(FENCE + """
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 0
""")

# Attempt.cancelled: whether the attempt may go on: -1 superseded, else the
# cancel flag.
# KEYS: job, cancel flag; ARGV: worker
CHECK = Script(FENCE + """
return redis.call('EXISTS', KEYS[2])
""")


# worker/calls.py: a coalesced job about to wait for more calls lists
# itself to be rung (RING), unless a job already waits on one of its
# worker's queues (queued when no job waited to be rung): then it rings
# itself, so that its wait is short. Called with EVAL, in the round trip
# of the job's replies and its wait.
# KEYS: its workers' lingering list, its added calls, its worker's queues
LINGER = Script("""
for i = 3, #KEYS do
  if redis.call('LLEN', KEYS[i]) > 0 then
    redis.call('XADD', KEYS[2], '*', 'y', '1')
    if redis.call('TTL', KEYS[2]) == -1 then redis.call('EXPIRE', KEYS[2], 7200) end
    return 1
  end
end
redis.call('RPUSH', KEYS[1], KEYS[2])
return 0
""")

# worker/calls.py: closes a coalesced job to more calls (SUBMIT adds none
# once it is marked), and returns the calls added since the worker's last
# read (the entries of its added calls after ARGV[2]), which it must still
# answer; when there are none, the job's added calls and cancelled set go.
# Returns -1 when superseded (another attempt runs the job, or it ended).
# KEYS: job, added calls, cancelled calls; ARGV: worker, the last entry read
CLOSE_CALLS = Script(FENCE + """
redis.call('HSET', KEYS[1], 'CLOSED', '1')
local ms, seq = string.match(ARGV[2], '^(%d+)-(%d+)$')
local new = redis.call('XRANGE', KEYS[2], ms .. '-' .. (tonumber(seq) + 1), '+')
if #new > 0 then return new end
redis.call('DEL', KEYS[2], KEYS[3])
return {}
""".replace("CLOSED", keys.CLOSED_FIELD))

# worker/calls.py: an unwatched solve answered in a coalesced job writes its
# stream whole, frame 1 and its last frame, with its expiry, and claims its
# request_id (if any) for it as ENQUEUE would, unless the id names another
# solve whose stream is still there (a call it overlapped claimed it
# first); a retried job that answers it again adds nothing (the stream
# exists). Called with EVAL, in the round trip of the job's replies.
# A new stream's first node has room for 4 KB of entries (Redis
# preallocates it, up to stream-node-max-bytes), so two frames written
# so took 4.7 KB for the TTL; the stream is whole, so it is dumped and
# restored, which stores the node at its size (1.3 KB for frames of 315
# and 362 bytes, for ~3 µs more of Redis's time). A Redis that refuses
# DUMP or RESTORE (an ACL, a renamed command) keeps the stream as written.
# KEYS: frames, request_id (or "")
# ARGV: frame 1, the last frame, ttl, the claim ("job fingerprint"), the
#       frame streams' key prefix
SOLVED_STREAM = Script("""
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('XADD', KEYS[1], '0-HEADER', 'f', ARGV[1])
redis.call('XADD', KEYS[1], '0-LAST', 'f', ARGV[2])
local dump = redis.pcall('DUMP', KEYS[1])
local restored = type(dump) == 'string'
  and redis.pcall('RESTORE', KEYS[1], tonumber(ARGV[3]) * 1000, dump, 'REPLACE').ok ~= nil
if not restored then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
if KEYS[2] ~= '' then
  local held = redis.call('GET', KEYS[2])
  local job = held and string.match(held, '^(%S+) ')
  if not job or redis.call('EXISTS', ARGV[5] .. job) == 0 then
    redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[3])
  end
end
return 1
""".replace("HEADER", str(keys.HEADER_SEQ)).replace("LAST", str(keys.WORKER_FIRST_SEQ)))

# ---- A finished stream's expiry, and where a cancel stopped ----
# Called through redis-py (register_script, eval), like the fenced writes.

# FrameSink.close (worker/stream.py): sets a finished stream's expiry,
# `watched` seconds if a service instance marked it as being read
# (service/streams/watched.py), else `unwatched`.
# KEYS: frames, watched marker; ARGV: watched, unwatched
EXPIRE_FINISHED = Script("""
local ttl = ARGV[2]
if redis.call('EXISTS', KEYS[2]) == 1 then ttl = ARGV[1] end
return redis.call('EXPIRE', KEYS[1], ttl)
""")

# Watched.reading (service/streams/watched.py): extends a finished stream's expiry
# back to the full TTL when a watcher attaches (it was shortened because
# nobody was reading); a running job's stream, whose expiry is longer, is
# left alone. Returns the TTL it found.
# KEYS: frames; ARGV: ttl
EXTEND_FINISHED = Script("""
local left = redis.call('TTL', KEYS[1])
if left >= 0 and left < tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return left
""")

# Stops.record (service/streams/stops.py): sets the cancel hash's `seq` (where the
# streams stopped) to ARGV[1] unless it already holds a greater one.
# KEYS: cancel hash; ARGV: seq
RECORD_MAX = Script("""
local seq = tonumber(ARGV[1])
local now = tonumber(redis.call('HGET', KEYS[1], 'seq') or '-1')
if seq > now then redis.call('HSET', KEYS[1], 'seq', seq) end
return 1
""")
