"""Waiting for a Redis a worker cannot work with yet.

A worker needs a Redis that answers and takes its writes and scripts. One
that is away (a restart, an outage), is a read-only replica (REDIS_URL
naming a replica, or a primary demoted by hand) or refuses writes for its
memory (maxmemory, with running jobs' results still in it) will be usable
again without anything the worker could do; a node of a Redis Cluster, or
a user an ACL forbids scripts, once someone sets it right, as the warning
says. So the worker waits, with one warning, instead of failing and being
restarted in a loop by its supervisor, which backs off up to seconds and
would leave the queues without workers after Redis is back. It stops waiting when its supervisor goes (a worker must
not outlive it) or it is asked to stop.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable

from redis import Redis
from redis.exceptions import RedisError, ResponseError

from sudoku import connections, keys

log = logging.getLogger("sudoku.worker")

FIRST_WAIT_S = 0.1
LONGEST_WAIT_S = 2.0


def why_unusable(redis: Redis) -> str | None:
    """Why the worker cannot work with Redis now, or None when it can."""
    try:
        primary = _primary_of(redis)
        if primary:
            return f"it is a read-only replica of {primary}; REDIS_URL must name the primary, or Sentinel"
        if _cluster_node(redis):
            return f"it {connections.CLUSTER_NODE}"
        redis.eval(connections.SCRIPT_PROBE, 0)
        redis.set(keys.WRITE_PROBE, b"1", px=1000)
    except RedisError as exc:
        if connections.refused_for_memory(exc):
            return "it refuses writes for its memory (maxmemory); waiting until running jobs' results are read"
        if connections.refused_as_replica(exc):
            return "it is a read-only replica; REDIS_URL must name the primary, or Sentinel"
        if connections.refused_scripts(exc):
            return f"it {connections.NO_SCRIPTS}"
        if isinstance(exc, ResponseError):
            return None  # e.g. an ACL that refuses the probe: the worker's own writes will tell
        return str(exc)
    return None


def wait_until_usable(redis: Redis, parent: int, stopping: Callable[[], bool] = lambda: False) -> bool:
    """Returns once Redis is usable (True), or when `stopping()` says so (False).
    Exits when the supervisor (`parent`) is gone."""
    wait = FIRST_WAIT_S
    while (why := why_unusable(redis)) is not None:
        if os.getppid() != parent:
            raise SystemExit("worker: the supervisor is gone; not waiting for Redis any more")
        if stopping():
            return False
        if wait == FIRST_WAIT_S:
            log.warning("waiting for Redis (%s)", why)
        time.sleep(wait)
        wait = min(wait * 2, LONGEST_WAIT_S)
    if wait != FIRST_WAIT_S:
        log.warning("Redis is usable again")
    return True


def _cluster_node(redis: Redis) -> bool:
    try:
        return connections.is_cluster_node(redis.info("cluster"))
    except ResponseError:  # INFO refused (an ACL, a renaming): we cannot tell
        return False


def _primary_of(redis: Redis) -> str:
    """connections.primary_of for this Redis; "" when ROLE is refused (an ACL: we cannot tell)."""
    try:
        return connections.primary_of(redis.execute_command("ROLE"))
    except ResponseError:
        redis.ping()  # a Redis that answers: taken as a primary
        return ""
