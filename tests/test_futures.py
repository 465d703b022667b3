"""service/jobs/futures.py: a call's clean-up runs to its end, and what a call
leaves running ends with the service."""

from __future__ import annotations

import asyncio

import pytest

from service.jobs import futures
from service.jobs.futures import Outliving, finish, stop


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


def swallows_cancels(times: int, ended: list):
    """A loop around a command that loses `times` cancels, as redis-py's
    writes through asyncio.wait_for can on Python 3.11."""

    async def loop():
        lost = 0
        while True:
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                if lost == times:
                    ended.append("ended")
                    raise
                lost += 1

    return loop()


def test_stop_cancels_again_a_task_that_lost_its_cancel():
    ended = []

    async def main():
        task = asyncio.create_task(swallows_cancels(2, ended))
        await asyncio.sleep(0.01)
        t0 = asyncio.get_running_loop().time()
        await stop([task], within=5)
        return task, asyncio.get_running_loop().time() - t0

    task, took = asyncio.run(main())
    assert task.cancelled() and ended == ["ended"] and took < 1


def test_stop_gives_up_on_a_task_that_never_ends_and_names_it(caplog):
    async def main():
        task = asyncio.create_task(swallows_cancels(10**9, []))
        await asyncio.sleep(0.02)
        t0 = asyncio.get_running_loop().time()
        await stop([task], within=0.3)
        took = asyncio.get_running_loop().time() - t0
        return task.done(), took

    # Not asyncio.run: it would wait for ever for the task that never ends.
    loop = asyncio.new_event_loop()
    try:
        done, took = loop.run_until_complete(main())
    finally:
        loop.close()
    assert not done and took < 1
    assert "left behind" in caplog.text and "swallows_cancels" in caplog.text


def test_a_clean_up_that_hangs_is_given_up_after_its_bound(monkeypatch):
    monkeypatch.setattr(futures, "CLEAN_UP_S", 0.2)

    async def hangs():
        await asyncio.sleep(3600)

    async def call():
        try:
            await asyncio.sleep(10)
        finally:
            await finish(hangs())

    async def main():
        task = asyncio.create_task(call())
        await asyncio.sleep(0.01)
        t0 = asyncio.get_running_loop().time()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return asyncio.get_running_loop().time() - t0

    assert asyncio.run(main()) < 1
