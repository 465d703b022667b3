"""A running service: its gRPC server, its cells, its HTTP port, started
and stopped as one (`start`, `App.stop`), and the checks of REDIS_URL and
SUDOKU_DRAIN_CELLS made before anything is opened."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from redis import Redis

from service.http import web
from service.jobs import futures
from service.jobs.cache import ResultCache
from service.jobs.cells import Cell, Cells
from service.jobs.shares import Shares
from service.rpc import admission, decoding, handlers, metrics, reflection_v1, security
from service.rpc.cellhealth import CellHealth, misconfigured
from service.rpc.server import SERVICE_NAME, SudokuServicer, register
from sudoku import cells, connections, keys, lanes, tracing
from sudoku.config import Settings

PENDING_CALLS = 1_000  # gRPC's own default of calls waiting to be taken


def check_cells(settings: Settings) -> tuple[list[str], set[int]]:
    """The cells' URLs of REDIS_URL and the places of those
    SUDOKU_DRAIN_CELLS drains; SystemExit with a message when the service
    cannot use them as written."""
    try:
        urls = cells.parse(settings.redis_url)
    except cells.BadCells as exc:
        raise SystemExit(f"sudoku-server: {exc}") from None
    drained = _drained(settings, len(urls))
    if len(drained) == len(urls):
        raise SystemExit(f"sudoku-server: SUDOKU_DRAIN_CELLS={settings.drain_cells!r} drains every cell: "
                         "no call could be taken")
    if len(urls) > 1 and not settings.position_key:
        # Each Redis would keep a position key of its own, and a Step
        # position signed in one cell would be refused in another.
        raise SystemExit(f"sudoku-server: REDIS_URL lists {len(urls)} cells: set SUDOKU_POSITION_KEY (the same on "
                         "every service and worker), which signs Step positions across cells")
    return urls, drained


def _drained(settings: Settings, cells_: int) -> set[int]:
    """The cells SUDOKU_DRAIN_CELLS names (SystemExit when it names no cell of REDIS_URL)."""
    drained = set()
    for part in filter(None, (p.strip() for p in settings.drain_cells.split(","))):
        if not part.isdigit() or int(part) >= cells_:
            raise SystemExit(f"sudoku-server: SUDOKU_DRAIN_CELLS={settings.drain_cells!r}: {part!r} is not a cell "
                             f"(REDIS_URL lists cells 0 to {cells_ - 1})")
        drained.add(int(part))
    return drained


@dataclass
class App:
    """A running service: the gRPC server and its cells."""

    settings: Settings
    server: grpc.aio.Server
    port: int
    cells: Cells
    health: CellHealth
    servicer: SudokuServicer
    tasks: list[asyncio.Task] = dataclasses.field(default_factory=list)  # health monitors, renewers
    http: web.WebServer | None = None  # the same API for browsers, and the page (settings.http_listen)

    @property
    def sync_redis(self) -> Redis:
        """The first cell's blocking client (tests, one-cell tools)."""
        return self.cells.all[0].sync_redis

    async def stop(self, grace: float = 5.0) -> None:
        """Graceful shutdown: health goes NOT_SERVING, open frame streams end
        with UNAVAILABLE (clients resume elsewhere with Watch), new calls are
        refused, and unary calls in flight get `grace` seconds to finish."""
        await futures.stop(self.tasks)
        await self.health.servicer.enter_graceful_shutdown()
        for cell in self.cells.all:
            cell.hub.end_streams(keys.frames(""))
        # Both ports at once: each gives its calls `grace`, then cuts them.
        await asyncio.gather(self.server.stop(grace), *([self.http.stop(grace)] if self.http is not None else []))
        await self.servicer.calls.settle(grace)
        for cell in self.cells.all:
            await cell.close()


def _interceptors(settings: Settings) -> list[grpc.aio.ServerInterceptor]:
    """The gRPC port's interceptors, outermost first: the call counted, its
    token checked (with SUDOKU_AUTH_TOKEN), its request parsed leniently, a
    stream's idle client cut off, its span (with tracing). Those that only
    rewrap a handler go as one where nothing comes between them."""
    counted, decoded = metrics.RequestMetrics(), decoding.LenientDecoding(settings.max_message_bytes)
    idle = admission.IdleStreams(settings.stream_idle_s)
    token = security.interceptors(settings)
    outer = [counted, *token, handlers.Rewrappings(decoded, idle)] if token else [
        handlers.Rewrappings(counted, decoded, idle)]
    # innermost: its span per RPC wraps the handler itself (it takes only
    # handlers that are async generators, as ours are)
    return [*outer, *tracing.server_interceptors()]


async def start(settings: Settings) -> App:
    """Starts the service on settings.listen; returns once it is serving."""
    security.check(settings)  # before anything is opened: a bad setting leaks nothing
    web.check(settings)
    urls, drained = check_cells(settings)
    shares = Shares({lanes.CHEAP: settings.caller_cheap_calls, lanes.HEAVY: settings.caller_heavy_calls,
                     lanes.BATCH: settings.caller_batch_jobs})
    instance = uuid.uuid4().hex
    cells_ = Cells([Cell(i, url, settings, shares, instance, draining=i in drained) for i, url in enumerate(urls)])
    server = grpc.aio.server(
        interceptors=_interceptors(settings),
        maximum_concurrent_rpcs=settings.max_concurrent_rpcs,
        options=[
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", settings.max_message_bytes),
            ("grpc.max_concurrent_streams", settings.max_streams_per_connection),
            # gRPC's core cancels calls the server has not taken yet once
            # more than 1,000 wait (CANCELLED, no message, about a second in),
            # and those left waiting 30 s. A burst of calls below our own
            # bound must reach the handlers, which answer or refuse with a
            # status that says why.
            ("grpc.server.max_pending_requests", max(PENDING_CALLS, settings.max_concurrent_rpcs)),
            ("grpc.server.max_pending_requests_hard_limit", 3 * max(PENDING_CALLS, settings.max_concurrent_rpcs)),
        ],
    )
    servicer = SudokuServicer(settings, cells_, ResultCache(settings.cache_ttl_s), shares)
    register(servicer, server)
    health = CellHealth(health_aio.HealthServicer(), cells_)
    health_pb2_grpc.add_HealthServicer_to_server(health.servicer, server)
    reflection_v1.enable(server, (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name))
    port = security.add_port(server, settings)
    if port == 0:
        raise OSError(f"cannot listen on {settings.listen}")
    wrong = [f"cell {cell.name} of REDIS_URL {why}" for cell in cells_.all if (why := await misconfigured(cell.redis))]
    if wrong:
        for cell in cells_.all:
            await cell.close()
        raise SystemExit("sudoku-server: " + "; ".join(wrong))
    for cell in cells_.all:
        cell.start()
    await server.start()
    app = App(settings, server, port, cells_, health, servicer)
    if settings.http_listen:
        try:
            app.http = await web.start(settings, servicer)  # the same servicer: one implementation of each RPC
        except BaseException:
            await app.stop(0)
            raise
    await health.first_look()
    app.tasks = [*health.monitors(),
                 *(asyncio.create_task(cell.watched.renew(), name=f"watched-{cell.name}") for cell in cells_.all)]
    return app
