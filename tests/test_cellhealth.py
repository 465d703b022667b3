"""A cell's verdict as the service starts (service/rpc/cellhealth.py): down
only after FAILED_PINGS missed PINGs in a row, as the monitor's."""

from __future__ import annotations

import asyncio
import os
import signal
from types import SimpleNamespace

import pytest
from grpc_health.v1.health import aio as health_aio
from redis.asyncio import Redis as AsyncRedis

from launcher.embedded_redis import EmbeddedRedis
from service.rpc import cellhealth


async def _no_count(redis) -> None:
    """The workers' count, which this test does not look at."""


@pytest.mark.parametrize("missed", [1, cellhealth.FAILED_PINGS])
def test_a_cell_is_down_at_start_only_after_the_monitors_missed_pings(missed):
    """Redis stopped as the service starts, and continued after `missed`
    PINGs timed out: one missed PING (a process busy starting up) leaves the
    cell serving, FAILED_PINGS of them mark it down."""
    server = EmbeddedRedis().start()
    looks: list[bool] = []

    class Watched(AsyncRedis):
        """This cell's client: its PINGs counted (another service of this
        process may be PINGing its own cells meanwhile), Redis continued
        after the `missed`-th goes unanswered."""

        async def ping(self, **kwargs):
            try:
                reply = await super().ping(**kwargs)
            except BaseException:  # cut short by ping_failure's bound
                looks.append(False)
                if len(looks) == missed:
                    os.kill(server.proc.pid, signal.SIGCONT)
                raise
            looks.append(True)
            return reply

    async def first_look() -> bool:
        redis = Watched.from_url(server.url)
        cell = SimpleNamespace(name="0", redis=redis, serving=True, replica_of="", evicting=None,
                               jobs=SimpleNamespace(count_workers=_no_count, store_full=None))
        try:
            await cellhealth.CellHealth(health_aio.HealthServicer(), SimpleNamespace(all=[cell])).first_look()
        finally:
            await redis.aclose()
        return cell.serving

    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        serving = asyncio.run(first_look())
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
        server.stop()
    if missed < cellhealth.FAILED_PINGS:
        assert looks == [False, True] and serving
    else:
        assert looks == [False] * missed and not serving
