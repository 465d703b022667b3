"""Health follows the cells: a monitor per cell, one health status for all.

Each cell's Redis is PINGed every HEALTH_EVERY; FAILED_PINGS missed in a
row mark the cell down. A cell down takes no new calls (service/jobs/cells.py
routes around it), and every reader waiting on its streams and its inbox
gets UNAVAILABLE at once instead of waiting out a blocked read (clients
retry, or resume with Watch). The instance says SERVING while at least one
cell serves, so a load balancer sends nobody here who could only get
UNAVAILABLE. Every MEMORY_EVERY ticks the monitor also reads the cell's
memory (new work is refused while it is near its bound: memory_verdict;
and a policy that evicts keys when full is warned of: eviction_warning),
counts the workers of each queue (the coalescers' jobs in flight), and asks
the Redis its role: a read-only replica (REDIS_URL naming one, or a primary
demoted by hand) refuses every write, so its cell is down until it is a
primary again, rather than SERVING while every call fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from grpc_health.v1 import health_pb2
from grpc_health.v1.health import aio as health_aio
from prometheus_client import Counter, Gauge
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoPermissionError, RedisError, ResponseError

from service.jobs.cells import Cell, Cells
from service.jobs.queueing import eviction_warning, memory_verdict
from sudoku import connections
from sudoku.v1 import sudoku_pb2 as pb

log = logging.getLogger("sudoku.service")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Sudoku"].full_name
HEALTH_EVERY = 0.5  # seconds between Redis pings of the health monitor, and the longest a ping may take
MEMORY_EVERY = 4  # pings between two looks at Redis's memory
FAILED_PINGS = 2  # PINGs in a row Redis must miss to count as away

CELL_UP = Gauge("sudoku_cell_up", "1 while this instance reaches the cell's Redis, 0 while it is down", ["cell"])
CELL_DOWNS = Counter("sudoku_cell_downs", "Times this instance saw the cell go down", ["cell"])


async def ping_failure(redis: AsyncRedis) -> str:
    """Why Redis did not answer a PING within HEALTH_EVERY, or "" when it did."""
    try:
        async with asyncio.timeout(HEALTH_EVERY):
            await redis.ping()
        return ""
    except TimeoutError:
        return f"no answer to a PING within {HEALTH_EVERY} s"
    except (RedisError, OSError) as exc:
        return str(exc) or type(exc).__name__


async def replica_of(redis: AsyncRedis) -> str:
    """The primary whose replica `redis` is (connections.primary_of), or ""
    for a primary, or a Redis that does not let us ask (ROLE refused by an ACL)."""
    try:
        return connections.primary_of(await redis.execute_command("ROLE"))
    except ResponseError:
        return ""


async def misconfigured(redis: AsyncRedis) -> str | None:
    """Why the service cannot use `redis` however long it waits (it refuses
    to start on it): a node of a Redis Cluster, or a user an ACL forbids
    scripts; None when it can, or cannot tell (Redis away: the monitor says
    so; INFO refused by an ACL)."""
    try:
        async with asyncio.timeout(HEALTH_EVERY):
            with contextlib.suppress(ResponseError):
                if connections.is_cluster_node(await redis.info("cluster")):
                    return connections.CLUSTER_NODE
            try:
                await redis.eval(connections.SCRIPT_PROBE, 0)
            except NoPermissionError:
                return connections.NO_SCRIPTS
    except (TimeoutError, RedisError, OSError):
        pass
    return None


def _down_because(cell: Cell, failure: str) -> str:
    if cell.replica_of:
        return (f"is a read-only replica of {cell.replica_of}: down until it is a primary (REDIS_URL must name "
                "the primary, or Sentinel)")
    return f"cannot be reached ({failure}): down"


class CellHealth:
    def __init__(self, servicer: health_aio.HealthServicer, cells: Cells):
        self.servicer = servicer
        self.cells = cells
        self.serving: bool | None = None

    async def first_look(self) -> None:
        """Each cell's state as the service starts, and the status it implies."""
        for cell in self.cells.all:
            # As for the monitor: one late PING may be this process, busy
            # starting up, so a cell is down only when FAILED_PINGS miss.
            for _ in range(FAILED_PINGS):
                failure = await ping_failure(cell.redis)
                cell.serving = not failure
                if cell.serving:
                    break
            if cell.serving:
                await self._look_closer(cell)
                cell.serving = not cell.replica_of
            if not cell.serving:
                log.warning("cell %s (redis) %s", cell.name, _down_because(cell, failure))
            CELL_UP.labels(cell.name).set(int(cell.serving))
        await self._update()

    def monitors(self) -> list[asyncio.Task]:
        return [asyncio.create_task(self._monitor(cell), name=f"health-{cell.name}") for cell in self.cells.all]

    async def _update(self) -> None:
        now = any(cell.serving for cell in self.cells.all)
        if now == self.serving:
            return
        status = health_pb2.HealthCheckResponse.SERVING if now else health_pb2.HealthCheckResponse.NOT_SERVING
        for name in ("", SERVICE_NAME):
            await self.servicer.set(name, status)
        self.serving = now

    async def _monitor(self, cell: Cell) -> None:
        # A cell found down by the first look is back only once a PING answers.
        tick, failures = 0, 0 if cell.serving else FAILED_PINGS
        while True:
            connections.raise_lost_cancel()  # App.stop cancels it, and awaits it
            await asyncio.sleep(HEALTH_EVERY)
            tick += 1
            # One late PING may be this process's own event loop, busy; two in
            # a row is Redis (or a process that cannot serve either).
            failure = await ping_failure(cell.redis)
            failures = 0 if not failure else failures + 1
            reachable = failures < FAILED_PINGS
            if reachable and tick % MEMORY_EVERY == 0:
                await self._look_closer(cell)
            now = reachable and not cell.replica_of
            if not now and cell.serving:
                for reader in (cell.hub, cell.inbox):
                    reader.interrupt(RedisConnectionError(f"Redis did not answer a PING within {HEALTH_EVERY} s"))
            if now != cell.serving:
                cell.serving = now
                CELL_UP.labels(cell.name).set(int(now))
                if not now:
                    CELL_DOWNS.labels(cell.name).inc()
                said = "is back: serving" if now else _down_because(cell, failure)
                log.warning("cell %s (redis) %s", cell.name, said)
                await self._update()

    async def _look_closer(self, cell: Cell) -> None:
        """The cell's memory, workers and role, each looked at even when
        another cannot be (a command an ACL or a renaming refuses), within
        HEALTH_EVERY for all three; what is not learnt stays as it was."""
        jobs = cell.jobs
        verdict, evicting = jobs.store_full, cell.evicting
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(HEALTH_EVERY):
                with contextlib.suppress(RedisError, OSError):
                    memory = await cell.redis.info("memory")
                    verdict, evicting = memory_verdict(memory), eviction_warning(memory)
                with contextlib.suppress(RedisError, OSError):
                    await jobs.count_workers(cell.redis)
                with contextlib.suppress(RedisError, OSError):
                    cell.replica_of = await replica_of(cell.redis)
        if verdict != jobs.store_full:
            log.warning("cell %s: %s", cell.name, verdict or "the job store has room again: taking new work")
        jobs.store_full = verdict
        if evicting != cell.evicting:
            log.warning("cell %s: %s", cell.name, evicting or "Redis's maxmemory-policy refuses writes when full again")
        cell.evicting = evicting
