"""The cells a service instance talks to, and which one a call goes to.

A cell (sudoku/cells.py) is one Redis with its own RQ queues and workers;
here it is everything of this instance's that talks to that Redis: its
clients, the stream hub, the inbox, the stops and the coalescers.
Cells share nothing, so whatever must be atomic stays in
one: a cacheable call goes to the cell its cache key hashes to (the cache
keeps its hit rate), a call claiming a request_id to the cell the id
hashes to, and any other to the less loaded of two cells picked at random
(the queue depth its last enqueue returned). A batch call's jobs go
round the live cells (spread). Keys hash by rendezvous
(highest random weight): a cell that goes down moves only its own keys,
to the live cells, and they come back to it when it does. A request_id
never moves: were it claimed in two cells, one retry could start two
jobs, so while its cell is down its calls get UNAVAILABLE.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from prometheus_client import Counter

from service.jobs.calls import UnaryCalls
from service.jobs.enqueue import Enqueuer
from service.jobs.inbox import Inbox
from service.jobs.queueing import Jobs
from service.jobs.shares import Shares
from service.streams.hub import StreamHub
from service.streams.stops import Stops
from service.streams.watched import Watched
from sudoku import cells as cell_ids
from sudoku import connections
from sudoku.config import Settings
from sudoku.errors import Unavailable

REDIS_CONNECTIONS = 100  # async Redis connections at most per cell: the shared pool's, and the enqueue script's own
REDIS_WAIT_S = 3  # a command waits this long for a free connection, then UNAVAILABLE

ROUTED = Counter("sudoku_cell_calls", "Calls and batch jobs sent to each cell", ["cell"])


class CellDown(Unavailable):
    """No cell that may take the call can be reached (UNAVAILABLE)."""


@dataclass(eq=False)
class Cell:
    """This instance's side of one cell."""

    index: int
    url: str
    settings: Settings
    shares: Shares
    instance: str
    serving: bool = True  # the health monitor's verdict (service/rpc/cellhealth.py)
    replica_of: str = ""  # its Redis is a read-only replica of this primary (host:port): down
    evicting: str | None = None  # the health monitor's warning of its Redis's eviction policy
    draining: bool = False  # SUDOKU_DRAIN_CELLS: no new calls
    tasks: list = field(default_factory=list)

    def __post_init__(self) -> None:
        url, settings = self.url, self.settings
        # redis-py's default async pool fails a command at once (MaxConnectionsError)
        # when its 100 connections are busy, as in a burst of a thousand Watch
        # calls; this one makes the command wait its turn instead.
        self.redis = connections.service_pool(url, REDIS_CONNECTIONS, REDIS_WAIT_S)
        self.sync_redis = connections.service_sync(url)
        self.hub = StreamHub(url, self.redis)
        self.stops = Stops(self.hub, settings.stream_ttl_s)
        self.enqueuer = Enqueuer(self.redis, slots=REDIS_CONNECTIONS)
        self.jobs = Jobs(settings, self.sync_redis, self.hub, self.enqueuer, cell=self.index)
        self.inbox = Inbox(url, self.instance, self.hub.redis)
        self.unary = UnaryCalls(self.jobs, self.enqueuer, self.inbox, self.shares)
        self.watched = Watched(self.hub.redis, settings.stream_ttl_s)
        self.name = str(self.index)

    def start(self) -> None:
        self.hub.start()
        self.stops.start()
        self.inbox.start()

    async def close(self) -> None:
        await self.unary.close()
        await self.stops.close()
        await self.inbox.close()
        await self.hub.close()
        # A stream whose generator the loop finalised late (its client cut
        # off as the server stopped) leaves its playback entry now, while
        # the client it uses is still open.
        await self.stops.leaving.close(grace=1.0)
        await self.redis.aclose()
        await self.enqueuer.close()
        self.sync_redis.close()

    @property
    def waiting(self) -> int:
        return self.jobs.waiting


def _weight(key: str, cell: Cell) -> bytes:
    return hashlib.blake2b(f"{cell.index}|{key}".encode(), digest_size=8).digest()


class Cells:
    """Every cell of the deployment, in REDIS_URL's order, and the routing."""

    def __init__(self, cells: list[Cell]):
        self.all = cells
        self.random = random.Random()
        self.turn = 0

    def __len__(self) -> int:
        return len(self.all)

    def live(self) -> list[Cell]:
        """The cells that may take new calls."""
        return [cell for cell in self.all if cell.serving and not cell.draining]

    def _routed(self, cell: Cell) -> Cell:
        ROUTED.labels(cell.name).inc()
        return cell

    def of_job(self, job_id: str) -> Cell:
        """The cell a job id names (LookupError: none of ours; CellDown: it is down)."""
        index = cell_ids.cell_of(job_id, len(self.all))
        if index is None:
            raise LookupError(job_id)
        cell = self.all[index]
        if not cell.serving and len(self.all) > 1:
            raise CellDown(f"job {job_id} is in cell {index}, which cannot be reached; retry in a moment")
        return cell

    def for_key(self, key: str | None) -> Cell:
        """A cacheable call's cell: its key's, among the live ones."""
        if key is None:
            return self.least_loaded()
        if len(self.all) == 1:
            return self._routed(self.all[0])
        live = self.live()
        if not live:
            raise CellDown("no cell of the job store can be reached; retry in a moment")
        return self._routed(max(live, key=lambda cell: _weight(key, cell)))

    def for_claim(self, request_id: str) -> Cell:
        """A call claiming `request_id`: the id's own cell, live or not."""
        if not request_id or len(self.all) == 1:
            return self.least_loaded()
        # A cell being drained takes no new claims: a retry of an id it
        # holds may start a job elsewhere (docs/architecture.md, "Cells: past one Redis").
        cell = max((c for c in self.all if not c.draining), key=lambda cell: _weight(request_id, cell))
        if not cell.serving:
            raise CellDown(f"request_id: its cell ({cell.index}) cannot be reached, and an id is never claimed "
                           "in two cells; retry in a moment")
        return self._routed(cell)

    def spread(self) -> Cell:
        """The next live cell in turn, for a batch call's next job."""
        live = self.live() if len(self.all) > 1 else self.all
        if not live:
            raise CellDown("no cell of the job store can be reached; retry in a moment")
        self.turn += 1
        return self._routed(live[self.turn % len(live)])

    def least_loaded(self) -> Cell:
        """The less loaded of two live cells picked at random."""
        if len(self.all) == 1:
            return self._routed(self.all[0])
        live = self.live()
        if not live:
            raise CellDown("no cell of the job store can be reached; retry in a moment")
        if len(live) == 1:
            return self._routed(live[0])
        a, b = self.random.sample(live, 2)
        return self._routed(a if a.waiting <= b.waiting else b)
