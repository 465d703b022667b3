"""How the service and the workers connect to Redis: every wait has a bound.

A Redis that stops answering (SIGSTOP, a long fork, a network partition)
must become an error a caller can act on, not a hang. redis-py waits 5 s
for each reply by default, and RQ's worker raises its connection's socket
timeout to its dequeue timeout plus 10 s (415 s by default) so that its
blocking BLPOP is not cut short. So the timeouts are set here, once:

- the service's commands are all short: a reply later than
  SERVICE_TIMEOUT_S means Redis is not answering, and the call gets
  UNAVAILABLE;
- a blocking read (the service's XREAD, a worker's BLPOP) waits for at most
  its own block time plus that bound;
- a worker's commands get WORKER_TIMEOUT_S: a worker mid-job rides out a
  shorter stall, and a longer one fails the attempt, which the heartbeat
  recovery retries (docs/delivery.md).

redis-py's clients made here do not retry a command by themselves: whoever
calls decides (the client library retries UNAVAILABLE with backoff).

A URL may name a Redis Sentinel group instead of a server:
`redis+sentinel://[:password@]host:port[,host:port...]/service_name[/db]`.
The client then asks the sentinels for the group's primary as it
connects, so after a failover each connection that failed reconnects to
the promoted replica by itself (redis-py's Sentinel client, and
_PrimaryConnection for a connection that reconnects mid-command). Its pool
does not queue commands for a free connection as service_pool's does.
"""

from __future__ import annotations

import asyncio
from typing import NamedTuple
from urllib.parse import unquote

from redis import Redis
from redis import connection as sync_connection
from redis import sentinel as sync_sentinel
from redis.asyncio import sentinel as asyncio_sentinel
from redis.asyncio import BlockingConnectionPool
from redis.asyncio import connection as asyncio_connection
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import NoPermissionError, OutOfMemoryError, ReadOnlyError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

SERVICE_TIMEOUT_S = 1.0
WORKER_TIMEOUT_S = 3.0
# redis-py PINGs a connection idle this long before using it, so one that
# Redis dropped (a restart, an idle timeout) reconnects instead of failing once.
HEALTH_CHECK_S = 10


# The waits of a loop that reconnects (the service's XREAD readers): its
# first retry comes at once, a Redis that stays away is asked once a second.
RECONNECT_DELAYS = (0.05, 0.1, 0.25, 0.5, 1.0)


def reconnect_delay(failures: int) -> float:
    """Seconds to wait before the next try, after `failures` in a row."""
    return RECONNECT_DELAYS[min(failures, len(RECONNECT_DELAYS) - 1)]


SENTINEL_SCHEME = "redis+sentinel"
SENTINEL_PORT = 26379


class SentinelUrl(NamedTuple):
    sentinels: list[tuple[str, int]]
    service_name: str
    db: int
    password: str | None


def sentinel_url(url: str) -> SentinelUrl | None:
    """The parts of a redis+sentinel:// URL; None for any other URL."""
    scheme, _, rest = url.partition("://")
    if scheme != SENTINEL_SCHEME:
        return None
    netloc, _, path = rest.partition("/")
    password = None
    if "@" in netloc:
        userinfo, _, netloc = netloc.rpartition("@")
        password = unquote(userinfo.partition(":")[2]) or None
    sentinels = []
    for host in netloc.split(","):
        name, _, port = host.rpartition(":") if ":" in host else (host, "", "")
        sentinels.append((name, int(port) if port else SENTINEL_PORT))
    parts = [p for p in path.split("?")[0].split("/") if p]
    if not parts or not all(name for name, _ in sentinels):
        raise ValueError(f"{SENTINEL_SCHEME} URL needs host:port[,host:port...]/service_name[/db]")
    return SentinelUrl(sentinels, parts[0], int(parts[1]) if len(parts) > 1 else 0, password)


class _PrimaryConnection(sync_sentinel.SentinelManagedConnection):
    """redis-py's connection to a group's primary, which asks the sentinels
    for the primary's address however it reconnects. redis-py's asks only
    in connect(); a connection that drops mid-command reconnects through
    connect_check_health() to the address it had (redis/redis-py#3874), so
    a connection held for good (the service's XREAD readers of frames and
    cancels) knocked on the dead primary for as long as the process lived:
    after a failover no watched Solve was answered and no Cancel heard."""

    def connect_to(self, address) -> None:
        self.host, self.port = address
        sync_connection.Connection.connect_check_health(
            self, check_health=self.connection_pool.check_connection, retry_socket_connect=False)

    def connect_check_health(self, check_health: bool = True, retry_socket_connect: bool = True) -> None:
        if not self._sock:
            self.host, self.port = self.connection_pool.get_master_address()
        super().connect_check_health(check_health, retry_socket_connect)


class _AsyncPrimaryConnection(asyncio_sentinel.SentinelManagedConnection):
    """_PrimaryConnection for asyncio."""

    async def connect_to(self, address) -> None:
        self.host, self.port = address
        await asyncio_connection.Connection.connect_check_health(
            self, check_health=self.connection_pool.check_connection, retry_socket_connect=False)

    async def connect_check_health(self, check_health: bool = True, retry_socket_connect: bool = True) -> None:
        if not self.is_connected:
            self.host, self.port = await self.connection_pool.get_master_address()
        await super().connect_check_health(check_health, retry_socket_connect)


class _SentinelPool(sync_sentinel.SentinelConnectionPool):
    """redis-py's pool of a group's primary, which also closes its clients
    of the sentinels when it is closed (redis-py's leaves them open). Only
    then: redis-py also calls disconnect(inuse_connections=False) each time
    the sentinels name another primary (the first time too), while another
    command may be asking them; closing their clients there left that
    command's connection to a sentinel open for good (a ResourceWarning
    when collected, seen in tests/test_sentinel.py's failover)."""

    def disconnect(self, inuse_connections: bool = True) -> None:
        super().disconnect(inuse_connections)
        if inuse_connections:
            for sentinel in self.sentinel_manager.sentinels:
                sentinel.close()


class _AsyncSentinelPool(asyncio_sentinel.SentinelConnectionPool, BlockingConnectionPool):
    """The asyncio pool of a group's primary: one that waits for a free
    connection, as the service's pool of a plain URL does (redis-py's
    Sentinel pool raises "Too many connections" at once)."""

    async def disconnect(self, inuse_connections: bool = True) -> None:
        await super().disconnect(inuse_connections)
        if inuse_connections:  # the pool's close, not a new primary's (_SentinelPool)
            for sentinel in self.sentinel_manager.sentinels:
                await sentinel.aclose()


def _sentinel_pool(parts: SentinelUrl, asynchronous: bool, **kwargs):
    """A pool of connections to the group's primary, as redis-py's Sentinel.master_for makes it."""
    module, pool, connection = ((asyncio_sentinel, _AsyncSentinelPool, _AsyncPrimaryConnection) if asynchronous
                                else (sync_sentinel, _SentinelPool, _PrimaryConnection))
    timeouts = {k: v for k, v in kwargs.items() if k.startswith("socket_")}
    group = module.Sentinel(parts.sentinels, sentinel_kwargs=timeouts)
    return pool(parts.service_name, group, is_master=True, db=parts.db, password=parts.password,
                connection_class=connection, **kwargs)


def service_pool(url: str, max_connections: int, wait_s: float) -> AsyncRedis:
    """The service's shared asyncio client: a command waits `wait_s` at most
    for a free connection (a burst of calls queues instead of failing), then
    SERVICE_TIMEOUT_S for its reply."""
    sentinel = sentinel_url(url)
    if sentinel is not None:
        return AsyncRedis.from_pool(_sentinel_pool(
            sentinel, True, max_connections=max_connections, timeout=wait_s, socket_timeout=SERVICE_TIMEOUT_S,
            socket_connect_timeout=SERVICE_TIMEOUT_S, health_check_interval=HEALTH_CHECK_S))
    pool = BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=wait_s, socket_timeout=SERVICE_TIMEOUT_S,
        socket_connect_timeout=SERVICE_TIMEOUT_S, health_check_interval=HEALTH_CHECK_S,
    )
    return AsyncRedis.from_pool(pool)  # from_pool: aclose() closes the pool too


def service_blocking(url: str, block_s: float) -> AsyncRedis:
    """One asyncio connection for blocking reads of up to `block_s`."""
    sentinel = sentinel_url(url)
    if sentinel is not None:
        pool = _sentinel_pool(sentinel, True, socket_timeout=block_s + SERVICE_TIMEOUT_S,
                              socket_connect_timeout=SERVICE_TIMEOUT_S)
        client = AsyncRedis(connection_pool=pool, single_connection_client=True)
        client.auto_close_connection_pool = True  # as from_pool makes it: aclose() closes the pool too
        return client
    return AsyncRedis.from_url(
        url, single_connection_client=True, socket_timeout=block_s + SERVICE_TIMEOUT_S,
        socket_connect_timeout=SERVICE_TIMEOUT_S,
    )


def service_sync(url: str) -> Redis:
    """A blocking client for the service's set-up (RQ's Queue objects hold one)."""
    return _sync(url, SERVICE_TIMEOUT_S)


def worker(url: str) -> Redis:
    """A worker's client (its jobs, heartbeats and maintenance)."""
    return _sync(url, WORKER_TIMEOUT_S)


def _sync(url: str, timeout: float) -> Redis:
    sentinel = sentinel_url(url)
    if sentinel is not None:
        return Redis.from_pool(_sentinel_pool(sentinel, False, socket_timeout=timeout, socket_connect_timeout=timeout,
                                              health_check_interval=HEALTH_CHECK_S))
    return Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                          health_check_interval=HEALTH_CHECK_S)


class Held:
    """One asyncio connection with `redis`'s settings (its URL, its
    Sentinel group, its timeouts), outside its pool, for a hot path.

    A command through redis-py's client costs the service about 80 us of
    its event loop, and one through a bare connection that bounds its
    write with asyncio.wait_for (a task for every write on Python 3.11)
    about 35 us; here one timer bounds the whole round trip, at about 25
    (PING, one at a time, on a 2-core machine). Nor does a write swallow a
    cancel (see raise_lost_cancel): there is no wait_for to lose it. A call
    cut short by its bound, or cancelled, leaves the connection closed
    (redis-py closes it on any exception mid-read or mid-write), and the
    next call connects afresh.
    """

    def __init__(self, redis: AsyncRedis):
        self.connection = redis.connection_pool.make_connection()
        # The bound of a round trip: the pool's own (SERVICE_TIMEOUT_S, or
        # a blocking reader's block plus that), applied by call() as a whole.
        self.bound = self.connection.socket_timeout
        self.connection.socket_timeout = None

    async def call(self, packed: list[bytes], extra_s: float = 0.0):
        """The reply to the packed command; RedisTimeoutError past the bound (plus `extra_s`)."""
        connection = self.connection
        try:
            async with asyncio.timeout(None if self.bound is None else self.bound + extra_s):
                if not connection.is_connected:
                    # A Sentinel group's connection asks for the primary in
                    # connect() only: a write would connect to its default address.
                    await connection.connect()
                await connection.send_packed_command(packed, check_health=False)
                return await connection.read_response()
        except TimeoutError:
            raise RedisTimeoutError(f"no reply from Redis within {self.bound + extra_s:g} s") from None

    async def close(self) -> None:
        await self.connection.disconnect()


def stream_entries(reply) -> list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]]:
    """XREAD's raw reply (RESP2 or RESP3), as redis-py's client gives it:
    [(stream, [(entry id, fields), ...]), ...]; [] for none."""
    if not reply:
        return []
    streams = reply.items() if isinstance(reply, dict) else reply
    return [(key, [(entry_id, dict(zip(fields[::2], fields[1::2]))) for entry_id, fields in entries])
            for key, entries in streams]


def primary_of(role) -> str:
    """From ROLE's reply: the primary (host:port) of a read-only replica,
    whose every write fails (REDIS_URL naming a replica, or a primary
    demoted by hand); "" for a primary."""
    name = [part.decode() if isinstance(part, bytes) else part for part in role[:3]]
    return f"{name[1]}:{name[2]}" if name[0] == "slave" else ""


# A Redis Cluster spreads keys over nodes by slot; a job's keys, a call's
# and the scripts that write several at once must live in one Redis, so a
# cell is a standalone Redis or a Sentinel group (REDIS_URL lists several
# as cells). A node of a cluster answers MOVED for most keys.
CLUSTER_NODE = ("is a node of a Redis Cluster: each cell must be a standalone Redis or a Sentinel group "
                "(several Redis go in REDIS_URL as cells, comma-separated)")


# Every job's start and end, and every call's submission, is a Lua script.
NO_SCRIPTS = "refuses Lua scripts to its user (an ACL): the service and its workers need them (+@scripting)"
# A script that writes nothing: whether Redis lets this user run scripts.
SCRIPT_PROBE = "return 1"


def is_cluster_node(info: dict) -> bool:
    """From INFO cluster: whether the Redis runs in cluster mode."""
    return str(info.get("cluster_enabled", 0)) == "1"


def _chain(exc: BaseException | None):
    """exc and the exceptions it was raised while handling (in a MULTI,
    redis-py raises ExecAbortError with Redis's refusal as its context)."""
    while exc is not None:
        yield exc
        exc = exc.__context__


def refused(exc: BaseException, kind: type[ResponseError], code: str) -> bool:
    """Redis refused a command with error `code` (redis-py's `kind`): OOM
    for its maxmemory, READONLY as a replica. Inside a script Redis 6 (the
    embedded one) wraps it: "ERR Error running script ... -CODE ..."."""
    return any(isinstance(e, kind) or (isinstance(e, ResponseError) and f"-{code} " in str(e)) for e in _chain(exc))


def refused_for_memory(exc: BaseException) -> bool:
    return refused(exc, OutOfMemoryError, "OOM")


def refused_as_replica(exc: BaseException) -> bool:
    return refused(exc, ReadOnlyError, "READONLY")


def refused_scripts(exc: BaseException) -> bool:
    """An ACL forbids this user Lua scripts (EVAL, EVALSHA); other commands
    an ACL refuses are left as errors: no probe can tell when it allows them."""
    return any(isinstance(e, NoPermissionError) and "eval" in str(e).lower() for e in _chain(exc))


def refusal(exc: BaseException) -> str:
    """How Redis refused a command for a reason that holds until someone or
    something changes it (its memory freed, a primary again, an ACL set
    right), "" for any other error: a worker waits those out (worker/run/readiness.py)."""
    if refused_for_memory(exc):
        return "for its memory (maxmemory)"
    if refused_as_replica(exc):
        return "as a read-only replica"
    if refused_scripts(exc):
        return "by an ACL (Lua scripts)"
    return ""


def raise_lost_cancel() -> None:
    """Raises the current task's cancellation if it was asked for and lost.

    redis-py's asyncio connection writes through asyncio.wait_for, which on
    Python 3.11 returns normally when the write completes in the same loop
    turn as the cancel (CPython gh-86296): the cancel is swallowed, and the
    task goes on (a relay whose client left would play its stream to the
    end; the hub's reader, cancelled by its close(), would wait forever).
    The task still counts the request (Task.cancelling), so a loop that
    awaits redis-py checks it every turn."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError()
