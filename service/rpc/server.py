"""The gRPC service: validate, queue, relay.

Every RPC validates its request completely before anything is queued, then
hands the work to RQ workers and relays what comes back. The searches run
on the workers; the service runs the engine only for checks bounded before
they start (a Generate's givens: their conflicts, and a count capped at a
few guesses, service/batches/generating.py). Failures map to
status codes a client can act on (see the proto's header comment).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import inspect
import logging
import time

import grpc
from google.protobuf.message_factory import GetMessageClass
from redis.exceptions import NoPermissionError, RedisError

from service.batches.batch import BatchCounter
from service.batches.generating import Generator
from service.batches.grading import Grader, grade_spec
from service.batches.many import ManyCounter
from service.jobs import futures, waiting
from service.jobs.cache import ResultCache, count_key, grade_key, hint_key
from service.jobs.cells import Cell, Cells
from service.jobs.queueing import fingerprint
from service.jobs.shares import Shares
from service.rpc import admission, decoding, metrics, validate
from service.rpc.admission import FrameBudget, message_rate
from service.rpc.validate import Invalid
from service.streams import relay
from service.streams.pacing import Schedule
from service.streams.relay import Relay, Trimmed
from service.streams.stepping import Stepping
from sudoku import connections, keys, lanes, tracing
from sudoku.config import Settings
from sudoku.errors import CallError
from sudoku.replies import header_frame
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc

log = logging.getLogger("sudoku.service")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Sudoku"].full_name


def _status_of(exc: Exception) -> tuple[grpc.StatusCode, str] | None:
    """The status our errors carry (sudoku/errors.py), or that of a failure of
    what we call; None for a bug (INTERNAL, logged)."""
    if isinstance(exc, CallError):
        return exc.code, exc.details()
    if connections.refused_for_memory(exc):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, "the job store is full; retry once running jobs have ended"
    if connections.refused_as_replica(exc):
        return grpc.StatusCode.UNAVAILABLE, ("the job store's Redis is a read-only replica (REDIS_URL names a replica, "
                                             "or its primary was demoted); retry once it is a primary")
    if isinstance(exc, NoPermissionError):
        return grpc.StatusCode.UNAVAILABLE, (f"the job store's Redis refuses a command this service needs to its user "
                                             f"({exc}): its ACL must allow it")
    if isinstance(exc, LookupError):
        return grpc.StatusCode.NOT_FOUND, f"job_id: no job {exc.args[0]} (unknown, or its frames have expired)"
    if isinstance(exc, (RedisError, OSError)):
        return grpc.StatusCode.UNAVAILABLE, f"the job store is unavailable ({type(exc).__name__}: {exc}); retry"
    return None


# Ceilings that Limits gives under another name, in other units.
LIMITS_RENAMED = {"stream_idle_s": ("stream_idle_ms", 1000)}


def _serialized(message) -> bytes:
    """A reply message's bytes; a reply that is bytes already (a coalesced call's) as it is."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def register(servicer: SudokuServicer, server: grpc.aio.Server) -> None:
    """The servicer's methods on `server`, as sudoku_pb2_grpc would add them
    but for the replies, which may be bytes (_serialized)."""
    handlers_ = {}
    for method in pb.DESCRIPTOR.services_by_name["Sudoku"].methods:
        kind = (method.client_streaming, method.server_streaming)
        make = {(False, False): grpc.unary_unary_rpc_method_handler,
                (False, True): grpc.unary_stream_rpc_method_handler,
                (True, False): grpc.stream_unary_rpc_method_handler,
                (True, True): grpc.stream_stream_rpc_method_handler}[kind]
        handlers_[method.name] = make(getattr(servicer, method.name),
                                      request_deserializer=GetMessageClass(method.input_type).FromString,
                                      response_serializer=_serialized)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers_),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers_)


def limits(settings: Settings) -> pb.Limits:
    """GetLimits' reply: every setting marked a ceiling (sudoku/config.py), and the bound of small requests."""
    reply = pb.Limits(max_request_bytes=decoding.SMALL_REQUEST_BYTES)
    for f in dataclasses.fields(settings):
        if f.metadata.get("ceiling"):
            name, scale = LIMITS_RENAMED.get(f.name, (f.name, 1))
            setattr(reply, name, getattr(settings, f.name) * scale)
    return reply


def statuses(method):
    """Maps our exceptions to gRPC statuses, for unary and streaming methods."""

    async def abort(exc: Exception, context) -> None:
        if context.done():
            # The call ended first (the client left, or the service is
            # stopping): there is nobody to tell, and a client leaving is
            # not an error of the service's.
            log.debug("%s ended before its error could be sent: %r", method.__name__, exc)
            return
        status = _status_of(exc)
        if status is None:
            log.exception("unexpected error in %s", method.__name__)
            status = (grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}")
        await context.abort(*status)

    if inspect.isasyncgenfunction(method):

        @functools.wraps(method)
        async def stream(self, request, context):
            with self.calls.running():
                try:
                    async with contextlib.aclosing(method(self, request, context)) as items:
                        async for item in items:
                            yield item
                except Exception as exc:  # noqa: BLE001 - every error becomes a status
                    if isinstance(exc, grpc.aio.AbortError):
                        raise
                    await abort(exc, context)

        return stream

    @functools.wraps(method)
    async def unary(self, request, context):
        with self.calls.running():
            try:
                return await method(self, request, context)
            except Exception as exc:  # noqa: BLE001
                if isinstance(exc, grpc.aio.AbortError):
                    raise
                await abort(exc, context)

    return unary


class Calls:
    """The tasks running the servicer's calls, so that a stopping service
    lets the calls it cut short finish their clean-up (which uses Redis)
    before it closes its Redis clients."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task] = set()

    @contextlib.contextmanager
    def running(self):
        task = asyncio.current_task()
        self.tasks.add(task)
        try:
            yield
        finally:
            self.tasks.discard(task)

    async def settle(self, timeout: float) -> None:
        """Waits `timeout` for the calls to end, then cancels those left and
        waits for their clean-up (futures.settle: bounded whatever the grace,
        so a stop with none still leaves nothing running)."""
        await futures.settle(self.tasks, timeout)


class SudokuServicer(pb_grpc.SudokuServicer):
    def __init__(self, settings: Settings, cells: Cells, cache: ResultCache, shares: Shares):
        self.settings = settings
        self.calls = Calls()
        self.cells = cells
        self.shares = shares
        self.cache = cache
        # Positions are signed with one key for the whole deployment: with
        # several cells it is a setting (check_cells), with one it lives there.
        self.stepping = Stepping(settings, cells.all[0].redis)
        self.batches = BatchCounter(settings, cells, cache, shares)
        self.many = ManyCounter(settings, cells, shares)
        self.grader = Grader(settings, cells, shares)
        self.generator = Generator(settings, cells, shares)
        self.frames = FrameBudget(settings.max_frame_rate, settings.max_frame_rate_per_connection)

    @statuses
    async def Solve(self, request: pb.SolveRequest, context):
        cell = self.cells.for_claim(validate.request_id(request.request_id))
        spec, adjustments = validate.solve_spec(request, self.settings, cell.jobs.new_job_id())
        search = spec.view == "search"
        fps = spec.fps if search and not request.pacing.unpaced else 0
        runs = bool(fps and request.pacing.runs)
        rate = message_rate(search, fps, self.settings.run_ms if runs else 0)
        with self.frames.reserve(rate, admission.peer(context)):  # before any job exists: refused means nothing queued
            if coalesced(spec) and (call := await self._solve_call(cell, request, spec, adjustments)):
                last = await cell.unary.run("solve", call, None, _deadline(context), admission.peer(context))
                if last is not None:
                    yield header_frame(spec, adjustments, False)  # as the worker wrote it on the stream
                    yield last
                    return
            async with contextlib.aclosing(self._solve(cell, request, spec, adjustments,
                                                       Schedule(fps, self._run_s(runs)))) as messages:
                async for message in messages:
                    yield message

    async def _solve_call(self, cell: Cell, request: pb.SolveRequest, spec, adjustments: list[str]):
        """The spec of an unwatched solve as a coalesced call, which claims
        its request_id with its stream; None when the id is claimed already
        (the queueing attaches the call to that solve, or refuses it)."""
        claim_key = claim_print = ""
        if request.request_id:
            claim_key = keys.request(request.request_id)
            if await cell.hub.redis.exists(claim_key):
                return None
            claim_print = fingerprint(request)
        return dataclasses.replace(spec, adjustments=adjustments, claim_key=claim_key, claim_print=claim_print)

    def _run_s(self, runs: bool) -> float:
        return self.settings.run_ms / 1000 if runs else 0.0

    async def _play(self, cell: Cell, job_id: str, after_seq: int, schedule: Schedule, header: pb.Frame | None = None,
                    search: bool = True):
        """The messages of the job's frames after `after_seq`, to the end of
        the stream (its last frame, or one made here when it was cancelled)."""
        stops = cell.stops
        async with stops.playing(job_id, counted=search) as playback, cell.watched.reading(job_id):
            limit = await stops.stop_point(playback)
            record = functools.partial(stops.record, job_id)
            alive = functools.partial(_frames_alive, cell)
            stream = Relay(cell.hub, job_id, after_seq, schedule, playback.stopped, limit, header, record, alive)
            async with contextlib.aclosing(stream.messages()) as messages:
                async for message in messages:
                    yield message
                    await stops.renew(playback)

    async def _solve(self, cell: Cell, request: pb.SolveRequest, spec, adjustments: list[str], schedule: Schedule):
        queued_at = time.monotonic()
        trace = tracing.carrier()
        job_id, first = await cell.jobs.start_solve(spec, adjustments, request)
        finished = False
        relayed = time.time_ns()
        try:
            if first is not None:
                yield first  # written with the job: no need to read it back
            async with contextlib.aclosing(self._play(cell, job_id, 0 if first is None else first.seq, schedule,
                                                      search=spec.view == "search")) as messages:
                async for message in messages:
                    yield message
            finished = True
            if not schedule.paced and job_id == spec.job_id:  # a paced solve lasts as long as it was asked to
                metrics.job_done("solve", queued_at)
        finally:
            if trace:
                tracing.record("relay", trace, relayed, time.time_ns(), job=job_id, finished=finished)
            if not finished and request.cancel_on_disconnect:
                await futures.finish(self._cancel_quietly(cell, job_id))

    async def _cancel_quietly(self, cell: Cell, job_id: str) -> None:
        try:
            await cell.stops.cancel(job_id)
        except (LookupError, RedisError) as exc:
            log.warning("cancel on disconnect of %s failed: %s", job_id, exc)

    @statuses
    async def Watch(self, request: pb.WatchRequest, context):
        job_id = validate.job_id(request.job_id)
        cell = self.cells.of_job(job_id)
        stream = await relay.job_stream(cell.hub, job_id)
        if request.after_seq + 1 < stream.oldest:
            raise Trimmed(stream.oldest)
        if request.after_seq > stream.last:
            raise Invalid(f"after_seq: {request.after_seq} is past the job's last frame so far ({stream.last})")
        if request.after_seq == stream.last and stream.finished:
            return  # the client has seen everything
        job = stream.first.job if stream.first is not None else pb.JobInfo()
        search = job.view == pb.VIEW_SEARCH
        fps = job.pacing.fps if search and not (request.unpaced or job.pacing.unpaced) else 0
        runs = bool(fps and request.runs)
        header = stream.first if request.after_seq > 0 else None
        rate = message_rate(search, fps, self.settings.run_ms if runs else 0)
        with self.frames.reserve(rate, admission.peer(context)):
            async with contextlib.aclosing(self._play(cell, job_id, request.after_seq, Schedule(fps, self._run_s(runs)),
                                                      header, search)) as messages:
                async for message in messages:
                    yield message

    @statuses
    async def Cancel(self, request: pb.CancelRequest, context):
        job_id = validate.job_id(request.job_id)
        return pb.CancelReply(cancelled=await self.cells.of_job(job_id).stops.cancel(job_id))

    @statuses
    async def GetLimits(self, request: pb.GetLimitsRequest, context):
        return limits(self.settings)

    # Step, Hint, Explain, Grade and CountSolutions are coalesced calls
    # (service/jobs/calls.py), as an unwatched Solve is first (coalesced):
    # they return the reply message's bytes as the worker made them
    # (register() serializes a message or passes bytes on).

    @statuses
    async def Step(self, request: pb.StepRequest, context):
        return await self._unary("step", await self.stepping.spec(request), None, context)

    @statuses
    async def Hint(self, request: pb.HintRequest, context):
        return await self._unary("hint", validate.hint_spec(request), hint_key, context)

    @statuses
    async def Explain(self, request: pb.ExplainRequest, context):
        # Not cached: a path is long, and asked for once per puzzle.
        return await self._unary("explain", validate.explain_spec(request), None, context)

    @statuses
    async def Grade(self, request: pb.GradeRequest, context):
        return await self._unary("grade", grade_spec(request), grade_key, context)

    @statuses
    async def GradeMany(self, request_iterator, context):
        async with contextlib.aclosing(self.grader.replies(request_iterator, admission.peer(context))) as replies:
            async for reply in replies:
                yield reply

    @statuses
    async def Generate(self, request: pb.GenerateRequest, context):
        async with contextlib.aclosing(self.generator.puzzles(request, admission.peer(context))) as puzzles:
            async for puzzle in puzzles:
                yield puzzle

    @statuses
    async def CountSolutions(self, request: pb.CountRequest, context):
        return await self._unary("count", validate.count_spec(request, self.settings), count_key, context)

    async def _unary(self, kind: str, spec, cache_key, context) -> bytes:
        """The reply's bytes of a coalesced call (the cache's, when it has them)."""
        key = cache_key(spec) if cache_key is not None and self.cache.enabled else None
        cell = self.cells.for_key(key)
        return await cell.unary.run(kind, spec, key, _deadline(context), admission.peer(context))

    @statuses
    async def CountBatch(self, request_iterator, context):
        async with contextlib.aclosing(self.batches.replies(request_iterator, admission.peer(context))) as replies:
            async for reply in replies:
                yield reply

    @statuses
    async def CountMany(self, request_iterator, context):
        async with contextlib.aclosing(self.many.replies(request_iterator, admission.peer(context))) as replies:
            async for reply in replies:
                yield reply


def coalesced(spec) -> bool:
    """Whether a solve is first a call of a coalesced job (service/jobs/calls.py):
    an unwatched one, whose caller is told its job id with its last frame,
    whose search most likely ends within the cheap lane's steps
    (sudoku/lanes.py): always when capped there, and for MRV, which ends all
    but the rarest puzzles well within them. The rest would pay that try
    for nothing, and see their first frame only after it."""
    if spec.view != "final":
        return False
    return spec.strategy == "mrv" or 0 < spec.max_steps <= lanes.CHEAP_SOLVE_STEPS


def _deadline(context) -> float | None:
    """The call's deadline, as epoch seconds (None for none)."""
    remaining = context.time_remaining()
    return time.time() + remaining if remaining is not None else None


async def _frames_alive(cell: Cell, job_id: str) -> None:
    """For a relay waiting on frames: raises when none can come any more."""
    await waiting.alive(cell.hub.redis, job_id, keys.frames(job_id))
