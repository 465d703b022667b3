"""service/futures.py: a call's clean-up runs to its end, and what a call
leaves running ends with the service."""

from __future__ import annotations

import asyncio

import pytest

from service.futures import Outliving, finish


def test_a_cancelled_caller_waits_for_its_clean_up_then_is_cancelled():
    done = []

    async def clean_up():
        await asyncio.sleep(0.05)
        done.append("cleaned")
        return 7

    async def call():
        try:
            await asyncio.sleep(10)
        finally:
            await finish(clean_up())
            done.append("after")  # never: the cancel is raised after the clean-up

    async def main():
        task = asyncio.create_task(call())
        await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.sleep(0.01)
        task.cancel()  # a second cancel during the clean-up does not cut it either
        with pytest.raises(asyncio.CancelledError):
            await task
        assert done == ["cleaned"]  # when the call ended, its clean-up had
        return await finish(clean_up())

    assert asyncio.run(main()) == 7


def test_a_failed_clean_up_raises_its_error():
    async def broken():
        raise OSError("redis away")

    with pytest.raises(OSError, match="redis away"):
        asyncio.run(finish(broken()))


def test_outliving_tasks_get_their_grace_then_are_cancelled_and_awaited():
    ended = []

    async def quick():
        await asyncio.sleep(0.01)
        ended.append("quick")

    async def slow():
        try:
            await asyncio.sleep(10)
        finally:
            await asyncio.sleep(0.01)  # its clean-up is awaited by close()
            ended.append("slow")

    async def main():
        tasks = Outliving()
        tasks.spawn(quick())
        tasks.spawn(slow())
        await tasks.close(grace=0.2)
        return tasks.tasks

    assert asyncio.run(main()) == set()
    assert ended == ["quick", "slow"]
