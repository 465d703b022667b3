"""service/streams/hub.py against a real Redis: a wait never starts with a lost cancel pending."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from service.streams.hub import StreamHub


def test_a_wait_does_not_start_when_the_task_lost_its_cancel(redis_url):
    """redis-py can swallow a task's cancel on Python 3.11 (CPython
    gh-86296; sudoku/connections.py raise_lost_cancel): the task goes on
    with its cancel still counted. A relay whose client left then waited
    out the whole search in the hub (seen once in CI: a cancel_on_disconnect
    solve ran to its time limit). The hub's wait raises the cancel at once."""

    async def scenario() -> None:
        redis = Redis.from_url(redis_url)
        hub = StreamHub(redis_url, redis)
        hub.start()
        swallowed = asyncio.Event()

        async def reader() -> None:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                swallowed.set()  # as the lost cancel does: caught, never uncancelled
            await hub.wait("test:hub:nothing", "0-0", timeout=20)

        task = asyncio.create_task(reader())
        await asyncio.sleep(0)
        task.cancel()
        try:
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(task, 5)  # not the wait's 20 s
            assert swallowed.is_set()
        finally:
            await hub.close()
            await redis.aclose()

    asyncio.run(scenario())
