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
  recovery retries (README, "Delivery and failure semantics").

redis-py's clients made here do not retry a command by themselves: whoever
calls decides (the client library retries UNAVAILABLE with backoff).
"""

from __future__ import annotations

import asyncio

from redis import Redis
from redis.asyncio import BlockingConnectionPool
from redis.asyncio import Redis as AsyncRedis

SERVICE_TIMEOUT_S = 1.0
WORKER_TIMEOUT_S = 3.0
# redis-py PINGs a connection idle this long before using it, so one that
# Redis dropped (a restart, an idle timeout) reconnects instead of failing once.
HEALTH_CHECK_S = 10


def service_pool(url: str, max_connections: int, wait_s: float) -> AsyncRedis:
    """The service's shared asyncio client: a command waits `wait_s` at most
    for a free connection (a burst of calls queues instead of failing), then
    SERVICE_TIMEOUT_S for its reply."""
    pool = BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=wait_s, socket_timeout=SERVICE_TIMEOUT_S,
        socket_connect_timeout=SERVICE_TIMEOUT_S, health_check_interval=HEALTH_CHECK_S,
    )
    return AsyncRedis.from_pool(pool)  # from_pool: aclose() closes the pool too


def service_blocking(url: str, block_s: float) -> AsyncRedis:
    """One asyncio connection for blocking reads of up to `block_s`."""
    return AsyncRedis.from_url(
        url, single_connection_client=True, socket_timeout=block_s + SERVICE_TIMEOUT_S,
        socket_connect_timeout=SERVICE_TIMEOUT_S,
    )


def service_sync(url: str) -> Redis:
    """A blocking client for the service's set-up (RQ's Queue objects hold one)."""
    return Redis.from_url(url, socket_timeout=SERVICE_TIMEOUT_S, socket_connect_timeout=SERVICE_TIMEOUT_S,
                          health_check_interval=HEALTH_CHECK_S)


def worker(url: str) -> Redis:
    """A worker's client (its jobs, heartbeats and maintenance)."""
    return Redis.from_url(url, socket_timeout=WORKER_TIMEOUT_S, socket_connect_timeout=WORKER_TIMEOUT_S,
                          health_check_interval=HEALTH_CHECK_S)


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
