"""One fan-out for every batch and streaming call: CountBatch, CountMany,
GradeMany and Generate.

A call's requests become units (a CountBatch group, a CountMany or
GradeMany request, a run of Generate's seeds), each the jobs of its parts
(worker/batches.py) and the way its replies are made of their answers. The
units run in order: at most SUDOKU_BATCH_INFLIGHT of the call's jobs are out
at once, and at most the caller's share of the batch lane over all its calls
(SUDOKU_CALLER_BATCH_JOBS, service/jobs/shares.py); each job is granted its part
of the call's worker time (service/batches/callbudget.py); each unit's replies go out
in order as soon as its jobs are done. Every queue between the requests and
the replies is bounded, so a client that stops reading replies stops the
reading of its requests, and gRPC flow control stops the client.

A job answers on this instance's inbox with the bytes the client gets
(service/jobs/inbox.py): a part of a reply message, or replies each after its
length. The service decodes none of it.

When the call ends early (the client cancelled or left, or the service is
stopping), its cancel flag goes up (a running job stops within a fraction
of a second: worker.counting.CallWork), the boards of its jobs are deleted,
and nothing of the call is left running: all of it is one clean-up, which
runs to its end even as the call is cancelled (futures.finish).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field

from redis.exceptions import RedisError

from service.batches.callbudget import CallBudget
from service.jobs import futures
from service.jobs.inbox import Reply
from service.jobs.queueing import ANSWERED_TTL_S
from service.jobs.shares import Shares
from service.jobs.waiting import JobFailed, ResultLost
from sudoku import lanes
from sudoku.config import Settings

_END = object()


@dataclass
class Part:
    """One job of a unit: its kind (worker/batches.py PARTS) and spec, the
    most worker time it may take, and the boards it keeps beside it (stored
    at spec["count"]["boards_key"] for its run: RQ compresses a job's data
    each time it saves it, which for thousands of boards took longer than
    counting them)."""

    kind: str
    spec: dict
    want_ms: int
    boards: bytes | None = None


@dataclass
class Unit:
    """Parts whose answers `replies` turns into the unit's replies (bytes or
    messages), in order; a unit without parts is its `replies` at once."""

    parts: list[Part]
    replies: Callable[[list[Reply]], Iterator]
    tasks: list[asyncio.Task] = field(default_factory=list)


@dataclass
class Stretch:
    """Up to a job's worth of a many-boards request's positions: `count`
    boards from position `start`, of which `valid` (positions from `start`)
    go to a job and `errors` (position from `start`: message) were refused;
    the valid ones are boards[first * 81 : (first + len(valid)) * 81] of the
    request's packed valid boards."""

    start: int
    count: int
    valid: list[int]
    errors: dict[int, str]
    first: int

    def boards(self, packed):
        return packed[self.first * 81:(self.first + len(self.valid)) * 81]


def stretches(n: int, size: int, positions: list[int], errors: dict[int, str]) -> list[Stretch]:
    """A request of `n` boards (`positions` the valid ones', in order) in
    stretches of `size` positions (CountMany, GradeMany)."""
    made, taken = [], 0
    for start in range(0, n, size):
        count = min(size, n - start)
        valid = [p - start for p in positions[taken:taken + size] if p < start + count]
        own_errors = {p - start: m for p, m in errors.items() if start <= p < start + count}
        made.append(Stretch(start, count, valid, own_errors, taken))
        taken += len(valid)
    return made


def joined(parts: list[Stretch], answers: list[Reply], failed: Callable[[Stretch, str], bytes]) -> list[bytes]:
    """One reply of the stretches' pieces in order: each job's answer as it
    came, or for a stretch without a job, or whose job failed, `failed`'s
    piece (given the failure's message, "" when there was no job)."""
    pieces, answered = [], iter(answers)
    for stretch in parts:
        answer = next(answered) if stretch.valid else None
        if answer is not None and answer.code is None:
            pieces.append(answer.data)
        else:
            pieces.append(failed(stretch, answer.message if answer is not None else ""))
    return [b"".join(pieces)]


class FanOut:
    """The jobs of one call. `peer` is its caller (for its share);
    `cells.spread()` gives each job its cell (service/jobs/cells.py): a call's
    jobs go round the live cells, so one call can use every worker of the
    fleet, and its replies keep their order whichever cell answered."""

    def __init__(self, settings: Settings, cells, shares: Shares, peer: str | None):
        self.settings = settings
        self.cells = cells
        self.shares = shares
        self.peer = peer
        self.budget = CallBudget(settings.max_call_work_s, settings.batch_inflight)
        self.room = asyncio.Semaphore(settings.batch_inflight)
        self.inflight = settings.batch_inflight
        self.running: set[asyncio.Task] = set()
        self.boards_ttl_s = settings.result_ttl_s + 3600

    async def replies(self, units: AsyncIterator[Unit]) -> AsyncIterator:
        """Each unit's replies, in order, while later units' jobs run."""
        ordered: asyncio.Queue = asyncio.Queue(maxsize=self.inflight)
        reader = asyncio.create_task(self._launch_all(units, ordered), name="fanout")
        ended = False
        try:
            while (unit := await ordered.get()) is not _END:
                if isinstance(unit, BaseException):
                    raise unit
                answers = [await asyncio.shield(task) for task in unit.tasks]
                for reply in unit.replies(answers):
                    yield reply
            ended = True
        finally:
            await futures.finish(self._end(reader, ordered, ended))

    async def _launch_all(self, units: AsyncIterator[Unit], ordered: asyncio.Queue) -> None:
        try:
            async for unit in units:
                for part in unit.parts:
                    unit.tasks.append(await self._launch(part))
                await ordered.put(unit)
            await ordered.put(_END)
        except asyncio.CancelledError:
            raise  # the call is over: nobody reads `ordered` any more
        except Exception as exc:  # noqa: BLE001 - handed to the reply stream, after the units before it
            await ordered.put(exc)

    async def _launch(self, part: Part) -> asyncio.Task:
        """Queues the part's job once the call and its caller have room; its task yields its Reply."""
        await self.room.acquire()
        try:
            await self.shares.take(lanes.BATCH, self.peer)
            try:
                granted = self.budget.grant(part.want_ms)
            except BaseException:
                self.shares.give_back(lanes.BATCH, self.peer)
                raise
        except BaseException:
            self.room.release()
            raise
        task = asyncio.create_task(self._run(part, granted))
        self.running.add(task)
        task.add_done_callback(self.running.discard)
        task.add_done_callback(futures.seen)
        return task

    async def _run(self, part: Part, granted_ms: int) -> Reply:
        reply_id = uuid.uuid4().hex
        cell = self.cells.spread()
        jobs, inbox, redis = cell.jobs, cell.inbox, cell.jobs.hub.redis
        job_id = jobs.new_job_id()
        inbox.expect(reply_id)
        used_ms = granted_ms
        boards_key = part.spec.get("count", {}).get("boards_key") if part.boards is not None else None
        boards_keys = self.budget.boards_keys(redis)
        try:
            if boards_key:
                boards_keys.add(boards_key)
                await redis.set(boards_key, part.boards, ex=granted_ms // 1000 + self.boards_ttl_s)
            args = {"kind": part.kind, "spec": part.spec, "inbox": inbox.key, "reply": reply_id,
                    **self.budget.job_fields(granted_ms)}
            await jobs.enqueue(lanes.QUEUES[lanes.BATCH], "worker.jobs.part", args, job_id,
                               timeout=granted_ms // 1000 + 60, result_ttl=ANSWERED_TTL_S,
                               failure_ttl=jobs.settings.result_ttl_s, retry=jobs.retry,
                               on_failure=jobs.part_failure)
            reply = await inbox.reply(reply_id, job_id)
            if reply.code is not None and boards_key and not await redis.exists(boards_key):
                # It failed for want of its boards: they went with a job
                # store that restarted between their write and the job's.
                raise ResultLost(boards_key)
            used_ms = reply.work_ms if reply.code is None else granted_ms
            return reply
        finally:
            inbox.forget(reply_id)
            self.budget.settle(granted_ms, used_ms)
            self.room.release()
            self.shares.give_back(lanes.BATCH, self.peer)
            if boards_key:
                boards_keys.discard(boards_key)
                await futures.finish(_delete(redis, boards_key))

    async def _end(self, reader: asyncio.Task, ordered: asyncio.Queue, ended: bool) -> None:
        """The call is over: stops what is left of it, and waits until it has."""
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
        if ended:
            return
        await _quietly(self.budget.cancel())  # running jobs stop; queued ones' boards go
        for task in list(self.running):
            task.cancel()
        await asyncio.gather(*self.running, return_exceptions=True)


def failed(reply: Reply) -> JobFailed:
    """The call's error for a part that answered with one."""
    return JobFailed(reply.code, reply.message)


async def _quietly(work) -> None:
    try:
        await work
    except RedisError:
        pass  # Redis is away: the cancel flag's absence stops nothing; the boards expire


async def _delete(redis, key: str) -> None:
    try:
        await redis.delete(key)
    except RedisError:
        pass  # Redis is away: the key expires by itself

