"""CountMany: CountBatch with many boards per message each way.

With one board a message (CountBatch), gRPC's cost per message in the
service and in the client is many times the count itself (bench/count.py
compares the two). Here a message carries up to `max_chunk` boards; they
are checked in one scan (service/validate.py), travel to a worker as one
string, are counted there in one C call (engine.count_many) and come back
as lists.

A request is split into RQ jobs of `many_job_size` boards, which spread over
the workers; at most `batch_inflight` jobs are out per call. Replies leave
in request order through a queue of `batch_inflight` places: a client that
stops reading replies stops the reading of its requests, and gRPC flow
control then stops the client. Nothing is cached: looking a board up would
cost more than counting it. The call's worker time is bounded and its jobs
stop when it ends early (service/callbudget.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass

import grpc
from redis.exceptions import RedisError

from service import validate
from service.callbudget import CallBudget, TooMany
from service.config import Settings
from service.futures import Outliving, finish, seen
from service.queueing import Jobs, new_job_id
from service.validate import Invalid
from service.waiting import JobFailed, ResultLost
from sudoku import keys
from sudoku.replies import item_error
from sudoku.specs import CountManySpec
from sudoku.v1 import sudoku_pb2 as pb

_END = object()


@dataclass
class _Checked:
    """A request that passed validation (service/validate.py)."""

    options: dict
    boards: bytes  # the valid boards, 81 bytes each
    positions: list[int]  # where each came from in the request
    errors: dict[int, str]  # a message for each bad board, by position
    n: int  # boards in the request
_NO_SOLUTION = "." * 81


def _ready(reply: pb.CountManyReply) -> asyncio.Future:
    future = asyncio.get_running_loop().create_future()
    future.set_result(reply)
    return future


class ManyCounter:
    def __init__(self, settings: Settings, jobs: Jobs):
        self.settings = settings
        self.jobs = jobs
        # A part outlives a cancelled call (its reply awaits it shielded), so
        # the job's boards are deleted when it ends, not left to expire.
        self.parts = Outliving()

    async def close(self) -> None:
        """Stops the jobs still awaited for calls that ended (the service is stopping)."""
        await self.parts.close()

    async def replies(self, requests: AsyncIterator[pb.CountManyRequest]) -> AsyncIterator[pb.CountManyReply]:
        ordered: asyncio.Queue = asyncio.Queue(maxsize=self.settings.batch_inflight)
        budget = CallBudget(self.jobs.hub.waker, self.settings.max_call_work_s, self.settings.batch_inflight)
        reader = asyncio.create_task(self._read(requests, ordered, budget))
        pending: list[Awaitable] = []
        ended = False
        try:
            while (item := await ordered.get()) is not _END:
                if isinstance(item, BaseException):
                    raise item
                yield await item
            ended = True
        finally:
            reader.cancel()
            while not ordered.empty():
                pending.append(ordered.get_nowait())
            for item in pending:
                if isinstance(item, asyncio.Future):
                    item.cancel()
            await finish(asyncio.gather(reader, *(p for p in pending if isinstance(p, asyncio.Future)),
                                        return_exceptions=True))
            if not ended:
                await finish(budget.cancel())

    async def _read(self, requests, ordered: asyncio.Queue, budget: CallBudget) -> None:
        room = asyncio.Semaphore(self.settings.batch_inflight)
        taken = 0
        try:
            async for request in requests:
                checked = self._check(request)
                if isinstance(checked, pb.CountManyReply):
                    await ordered.put(_ready(checked))
                    continue
                taken += checked.n
                if taken > self.settings.max_batch:
                    raise TooMany(f"at most {self.settings.max_batch} boards per CountMany call")
                await ordered.put(await self._launch(checked, room, budget))
            await ordered.put(_END)
        except Exception as exc:  # noqa: BLE001 - handed to the reply stream
            await ordered.put(exc)

    def _check(self, request) -> _Checked | pb.CountManyReply:
        """The request's options and boards, or the reply naming what is wrong with it."""
        try:
            options = validate.count_options(validate.parsed(request), self.settings)
            return _Checked(options, *validate.many_boards(request, self.settings.max_chunk))
        except Invalid as exc:
            return pb.CountManyReply(error=item_error(exc.code, str(exc)))

    async def _launch(self, checked: _Checked, room: asyncio.Semaphore, budget: CallBudget) -> asyncio.Future:
        """Queues the request's jobs; returns the future of its reply."""
        size = self.settings.many_job_size
        parts = []
        for start in range(0, len(checked.positions), size):
            await room.acquire()  # released when the job ends: jobs in flight stay bounded
            boards = checked.boards[start * 81 : (start + size) * 81]
            try:
                granted = budget.grant(len(boards) // 81 * checked.options["time_limit_ms"])
            except BaseException:
                room.release()
                raise
            part = self.parts.spawn(self._count(boards, checked.options, budget, granted))
            part.add_done_callback(lambda _: room.release())
            parts.append(part)
        reply = asyncio.ensure_future(self._reply(parts, checked))
        reply.add_done_callback(seen)
        return reply

    async def _count(self, boards: bytes, options: dict, budget: CallBudget, granted_ms: int) -> dict | JobFailed:
        # The boards live as long as the job could: queued (an hour), run
        # (its grant), retried; or until the call is cancelled.
        key = keys.boards(new_job_id())
        redis = self.jobs.hub.waker
        budget.boards_keys.add(key)
        used_ms = granted_ms
        try:
            await redis.set(key, boards, ex=granted_ms // 1000 + self.settings.result_ttl_s + 3600)
            spec = CountManySpec(boards_key=key, **options, **budget.job_fields(granted_ms))
            try:
                result = await self.jobs.run("worker.jobs.count_many", spec, keys.QUEUE_BATCH, granted_ms)
                used_ms = result["work_ms"]
            except JobFailed as exc:  # that job's boards get the error; the call goes on
                if not await redis.exists(key):
                    # It failed for want of its boards: they went with a job
                    # store that restarted between their write and the job's.
                    raise ResultLost(key) from None
                result = exc
            return result
        finally:
            budget.boards_keys.discard(key)
            budget.settle(granted_ms, used_ms)
            await finish(_delete(redis, key))

    async def _reply(self, parts: list[asyncio.Task], checked: _Checked) -> pb.CountManyReply:
        n, positions, errors, options = checked.n, checked.positions, checked.errors, checked.options
        # Bytes while every count is a digit (limit <= 9, the generators'
        # case): _lists hands them to protobuf's C parser as they are.
        counts: bytearray | list[int] = bytearray()
        verdicts = bytearray()
        incomplete: list[int] = []
        solutions: list[str] = []
        failed: dict[int, pb.ItemError] = {}
        for part in parts:
            result = await asyncio.shield(part)
            offset = len(counts)
            size = min(self.settings.many_job_size, len(positions) - offset)
            if isinstance(result, JobFailed):
                missing, error = range(size), item_error(grpc.StatusCode.ABORTED, result.message)
                result = _nothing_counted(size, options["include_solution"])
            else:
                missing, error = result["uncounted"], item_error(grpc.StatusCode.RESOURCE_EXHAUSTED, UNCOUNTED)
            part_verdicts = bytearray(_numbers(result["verdicts"]))
            for i in missing:  # an error, and no verdict
                failed[positions[offset + i]] = error
                part_verdicts[i] = 0
            part_counts = _numbers(result["counts"])
            if isinstance(part_counts, list) and isinstance(counts, bytearray):
                counts = list(counts)
            counts += part_counts
            verdicts += part_verdicts
            incomplete += (offset + i for i in result["incomplete"])
            if options["include_solution"]:
                text = result["solutions"]
                solutions += ("" if text[i] == "." else text[i : i + 81] for i in range(0, len(text), 81))
        complete = bytearray(b"\x01") * len(counts)
        for i in incomplete:
            complete[i] = 0
        if errors:
            counts, complete, verdicts = (_spread(v, positions, n, e) for v, e in ((counts, 0), (complete, False),
                                                                                   (verdicts, 0)))
            if options["include_solution"]:
                solutions = _spread(solutions, positions, n, "")
        reply = _lists(counts, complete, verdicts, solutions)
        bad = [(i, item_error(grpc.StatusCode.INVALID_ARGUMENT, m)) for i, m in errors.items()] + list(failed.items())
        for index, error in sorted(bad, key=lambda item: item[0]):
            reply.errors.add(index=index, error=error)
        return reply


UNCOUNTED = ("not counted: this call used its share of worker time (SUDOKU_MAX_CALL_WORK_S); "
             "send these boards again in another call")


async def _delete(redis, key: str) -> None:
    try:
        await redis.delete(key)
    except RedisError:
        pass  # Redis is away: the key expires by itself


def _nothing_counted(size: int, include_solution: bool) -> dict:
    """The result of a job that counted none of its `size` boards."""
    return {"counts": [0] * size, "verdicts": [0] * size, "incomplete": range(size),
            "solutions": _NO_SOLUTION * size if include_solution else ""}


_DIGIT_VALUES = bytes.maketrans(b"0123456789", bytes(range(10)))


def _numbers(values: str | list[int]) -> bytes | list[int]:
    """A worker's list of numbers (a list, or a str of one digit each: see
    worker.counting.count_many), as a list or as bytes of one number each."""
    if isinstance(values, list):
        return values
    return values.encode("ascii").translate(_DIGIT_VALUES)


_REPLY_FIELDS = [pb.CountManyReply.DESCRIPTOR.fields_by_name[name].number for name in ("counts", "complete", "verdicts")]


def _lists(counts: bytes | list[int], complete: bytes | list[bool], verdicts: bytes | list[int],
           solutions: list[str]) -> pb.CountManyReply:
    """A reply holding these lists (of numbers, or bytes of one number
    each). Numbers below 128 are one byte each on
    the wire (packed varints), so when every count is, the lists go in as
    bytes the protobuf runtime parses in C, instead of thousands of Python
    numbers converted one by one."""
    try:
        small = bytes(counts)
    except ValueError:  # a count of 256 or more
        small = b"\x80"
    if not small.isascii():
        return pb.CountManyReply(counts=counts, complete=complete, verdicts=verdicts, solutions=solutions)
    packed = (small, bytes(complete), bytes(verdicts))
    reply = pb.CountManyReply.FromString(b"".join(
        _varint(number << 3 | 2) + _varint(len(values)) + values for number, values in zip(_REPLY_FIELDS, packed)
        if values))
    reply.solutions.extend(solutions)
    return reply


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _spread(values: list, positions: list[int], n: int, empty) -> list:
    """`values` of the counted boards, placed at their positions among all n."""
    out = [empty] * n
    for position, value in zip(positions, values):
        out[position] = value
    return out
