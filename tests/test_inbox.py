"""service/jobs/inbox.py: replies reach their calls, and a call whose job can
no longer answer ends with why, from the inbox's one watchdog.

On a Redis of the test's own; the watchdog's quiet time is shortened, and
the test waits on what the watchdog did, not on the clock.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from redis.asyncio import Redis as AsyncRedis
from rq.job import Job

from service.jobs import inbox as inbox_module
from service.jobs import waiting
from service.jobs.inbox import Inbox
from service.jobs.waiting import JobFailed, ResultLost
from tests.stack import url_of

TIMEOUT = 30


@pytest.fixture
def looked_after(monkeypatch):
    """The jobs the watchdog has asked after, in order; it asks every 0.1 s."""
    monkeypatch.setattr(waiting, "IDLE_CHECK_S", 0.2)
    asked: list[str] = []
    alive = waiting.alive

    async def counted(redis, job_id, *args, **kwargs):
        asked.append(job_id)
        return await alive(redis, job_id, *args, **kwargs)

    monkeypatch.setattr(inbox_module.waiting, "alive", counted)
    return asked


async def until_asked(asked: list[str], job_id: str, times: int) -> None:
    async with asyncio.timeout(TIMEOUT):
        while asked.count(job_id) < times:
            await asyncio.sleep(0.01)


def test_a_call_ends_once_its_job_cannot_answer_and_waits_while_it_can(fresh_redis, looked_after):
    """Three calls: one whose job is queued (it waits, however often the
    watchdog asks, until its reply comes), one whose job is gone (ResultLost:
    UNAVAILABLE, the caller sends it again) and one whose job failed
    (ABORTED); a reply for a call that has ended is dropped."""
    redis = fresh_redis()
    url = url_of(redis)
    for job_id, status in (("queued-job", "queued"), ("failed-job", "failed")):
        redis.hset(Job.key_for(job_id), "status", status)

    async def go() -> None:
        checks = AsyncRedis.from_url(url)
        inbox = Inbox(url, "test-inbox", checks)
        inbox.start()
        try:
            calls = {name: inbox.expect(name) for name in ("waits", "lost", "failed", "left")}
            waits = asyncio.create_task(inbox.reply("waits", "queued-job"))
            lost = asyncio.create_task(inbox.reply("lost", "gone-job"))
            failed = asyncio.create_task(inbox.reply("failed", "failed-job"))
            inbox.forget("left")
            with pytest.raises(ResultLost):
                await asyncio.wait_for(lost, TIMEOUT)
            with pytest.raises(JobFailed) as raised:
                await asyncio.wait_for(failed, TIMEOUT)
            assert raised.value.code == grpc.StatusCode.ABORTED
            await until_asked(looked_after, "queued-job", 3)
            assert not waits.done()
            await checks.xadd(inbox.key, {"c": "left", "r": b"dropped"})
            await checks.xadd(inbox.key, {"c": "waits", "r": b"reply", "us": 7})
            reply = await asyncio.wait_for(waits, TIMEOUT)
            assert (reply.data, reply.work_us) == (b"reply", 7)
            assert not calls["left"].done()  # forgotten: nothing was handed to it
        finally:
            await inbox.close()
            await checks.aclose()

    asyncio.run(go())
