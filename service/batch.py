"""CountBatch: a stream of puzzles in, a stream of counts out, in order.

Puzzles are grouped into RQ jobs of `batch_size` (one job per puzzle would
cost a queue round trip each; see bench/count.py) that spread over every
worker on the batch queue. A group is sent when full, or as soon as the
client pauses, so a generator sending one puzzle at a time still gets
prompt answers. At most `batch_inflight` groups are out at once per call,
and every queue between the client's requests and its replies is bounded:
a client sending a million puzzles, or one that stops reading replies, is
slowed by gRPC flow control instead of filling the service's memory. The
call's worker time is bounded and its jobs stop when it ends early
(service/callbudget.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import grpc

from service import validate
from service.cache import ResultCache, count_key
from service.callbudget import CallBudget, TooMany
from service.config import Settings
from service.futures import Outliving, finish, seen
from service.queueing import Jobs
from service.validate import Invalid
from service.waiting import JobFailed
from sudoku import keys
from sudoku.replies import count_reply, item_error
from sudoku.specs import CountSpec
from sudoku.v1 import sudoku_pb2 as pb

# A partial group waits this long for more requests before it is sent.
LINGER_SECONDS = 0.002
UNCOUNTED = ("not counted: this call used its share of worker time (SUDOKU_MAX_CALL_WORK_S); "
             "send it again in another call")


def error_reply(index: int, code: grpc.StatusCode, message: str) -> pb.CountReply:
    return pb.CountReply(index=index, error=item_error(code, message))


@dataclass
class _Group:
    items: list[tuple[int, CountSpec]] = field(default_factory=list)
    replies: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())


_END = object()


class BatchCounter:
    def __init__(self, settings: Settings, jobs: Jobs, cache: ResultCache):
        self.settings = settings
        self.jobs = jobs
        self.cache = cache
        self.groups = Outliving()  # a group's job may outlive its call

    async def close(self) -> None:
        """Stops the jobs still awaited for calls that ended (the service is stopping)."""
        await self.groups.close()

    async def replies(self, requests: AsyncIterator[pb.CountRequest]) -> AsyncIterator[pb.CountReply]:
        size = self.settings.batch_size
        inbox: asyncio.Queue = asyncio.Queue(maxsize=size)
        # Each slot is an error reply, or (group, position): replies leave in request order.
        slots: asyncio.Queue = asyncio.Queue(maxsize=size * self.settings.batch_inflight)
        room = asyncio.Semaphore(self.settings.batch_inflight)
        budget = CallBudget(self.jobs.hub.waker, self.settings.max_call_work_s, self.settings.batch_inflight)
        tasks = [
            asyncio.create_task(self._read(requests, inbox)),
            asyncio.create_task(self._group(inbox, slots, room, budget)),
        ]
        ended = False
        try:
            while (slot := await slots.get()) is not _END:
                if isinstance(slot, BaseException):
                    raise slot
                if isinstance(slot, pb.CountReply):
                    yield slot
                    continue
                group, position = slot
                yield (await group.replies)[position]
                if position == len(group.items) - 1:
                    room.release()
            ended = True
        finally:
            for task in tasks:
                task.cancel()
            await finish(asyncio.gather(*tasks, return_exceptions=True))
            if not ended:
                await finish(budget.cancel())

    async def _read(self, requests, inbox: asyncio.Queue) -> None:
        try:
            async for request in requests:
                await inbox.put(request)
        except asyncio.CancelledError:
            raise  # the call is over: nobody reads the inbox any more, so put nothing in it
        except Exception:  # noqa: BLE001 - the requests broke off: what came is answered
            pass
        await inbox.put(_END)

    async def _group(self, inbox: asyncio.Queue, slots: asyncio.Queue, room: asyncio.Semaphore,
                     budget: CallBudget) -> None:
        group = _Group()
        index = 0
        try:
            while True:
                try:
                    request = await self._next(inbox, bool(group.items))
                except TimeoutError:  # the client paused: send what we have
                    group = await self._send(group, room, budget)
                    continue
                if request is _END:
                    break
                if index >= self.settings.max_batch:
                    # The allowed requests are answered first: their slots are
                    # already queued, and without their group the reply stream
                    # would wait on it until the client's deadline.
                    await self._send(group, room, budget)
                    raise TooMany(f"at most {self.settings.max_batch} requests per CountBatch call")
                slot = self._admit(request, index, group)
                await slots.put(slot)
                index += 1
                if len(group.items) >= self.settings.batch_size:
                    group = await self._send(group, room, budget)
            await self._send(group, room, budget)
            await slots.put(_END)
        except Exception as exc:  # noqa: BLE001 - handed to the reply stream
            await slots.put(exc)

    @staticmethod
    async def _next(inbox: asyncio.Queue, lingering: bool):
        """The next request; with `lingering`, TimeoutError after a short pause."""
        if not inbox.empty():  # the common case under load: no timer, no task
            return inbox.get_nowait()
        if lingering:
            async with asyncio.timeout(LINGER_SECONDS):  # not wait_for: see StreamHub.wait
                return await inbox.get()
        return await inbox.get()

    def _admit(self, request: pb.CountRequest, index: int, group: _Group):
        try:
            spec = validate.count_spec(request, self.settings)
        except Invalid as exc:
            return error_reply(index, exc.code, str(exc))
        group.items.append((index, spec))
        return group, len(group.items) - 1

    async def _send(self, group: _Group, room: asyncio.Semaphore, budget: CallBudget) -> _Group:
        if group.items:
            await room.acquire()
            task = self.groups.spawn(self._count(group.items, budget))
            task.add_done_callback(lambda t: _settle(group.replies, t))
            group.replies.add_done_callback(seen)
        return _Group()

    async def _count(self, items: list[tuple[int, CountSpec]], budget: CallBudget) -> list[pb.CountReply]:
        cache_keys = [count_key(spec) for _, spec in items]
        cached = await self.cache.get_many(cache_keys)
        results: list = [None if r is None else pb.CountReply.FromString(r) for r in cached]
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            specs = [items[i][1] for i in todo]
            granted = budget.grant(sum(s.time_limit_ms for s in specs))
            used = granted
            try:
                done = await self.jobs.run(
                    "worker.jobs.count_batch",
                    {"specs": [s.to_dict() for s in specs], **budget.job_fields(granted)},
                    keys.QUEUE_BATCH,
                    granted,
                )
                used = done["work_ms"]
            except JobFailed as exc:
                return [error_reply(index, grpc.StatusCode.ABORTED, exc.message) for index, _ in items]
            finally:
                budget.settle(granted, used)
            for i, result in zip(todo, done["results"]):
                results[i] = None if result is None else count_reply(result)
            await self.cache.put_many([(cache_keys[i], results[i].SerializeToString()) for i in todo
                                       if results[i] is not None and results[i].complete])
        replies = []
        for (index, _), reply in zip(items, results):
            if reply is None:
                replies.append(error_reply(index, grpc.StatusCode.RESOURCE_EXHAUSTED, UNCOUNTED))
            else:
                reply.index = index
                replies.append(reply)
        return replies


def _settle(future: asyncio.Future, task: asyncio.Task) -> None:
    """Hands the group's outcome to its replies; the task's failure is taken
    even when the call has ended and nobody awaits them any more."""
    error = None if task.cancelled() else task.exception()
    if future.done():
        return
    if task.cancelled():
        future.cancel()
    elif error is not None:
        future.set_exception(error)
    else:
        future.set_result(task.result())
