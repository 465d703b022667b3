"""How many messages a second this service process has promised its streams.

One process delivers a few thousand messages a second (bench/frames.py); a
thousand phones each asking for 30 frames a second one message each would
need 30,000. Past its limit a grpc.aio server falls behind on taking new
calls, and gRPC cancels those it has not taken within 30 s: a client would
wait half a minute for nothing. So each stream reserves its message rate
when it opens, and a stream that would take the total past
SUDOKU_MAX_FRAME_RATE is refused at once with RESOURCE_EXHAUSTED: retry
later, or on another instance. A paced stream's rate is its fps, or with
runs (Pacing.runs) one message per run: the cost is per message, not per
frame, which is what lets one process feed a thousand phones.

One client connection may hold only SUDOKU_MAX_FRAME_RATE_PER_CONNECTION of
it, so a client that opens streams it never reads cannot lock every other
client out (and the streams it does not read end after
SUDOKU_STREAM_IDLE_S, freeing their share).
"""

from __future__ import annotations

import asyncio
import inspect
import math
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
from grpc._cython import cygrpc

from service.rpc import handlers
from sudoku.errors import Exhausted

# An unpaced stream goes as fast as its client reads (one alone takes ~3,000
# frames/s on loopback); it is counted as this many, so that by default at
# most 50 run at once beside the paced ones.
UNPACED_RATE = 100.0


class Saturated(Exhausted):
    """The process, or this connection's share, has promised all it can."""


def message_rate(view_search: bool, fps: float, run_ms: int) -> float:
    """Messages a second a stream costs: a paced one its fps (or its runs a
    second), an unpaced one UNPACED_RATE, one that shows only the outcome 0."""
    if not view_search:
        return 0.0
    if not fps:
        return UNPACED_RATE
    if run_ms:
        return min(fps, math.ceil(1000 / run_ms))
    return fps


class FrameBudget:
    def __init__(self, limit: float, per_connection: float):
        self.limit = limit
        self.per_connection = per_connection
        self.promised = 0.0
        self.streams = 0
        self.by_peer: dict[str, float] = {}

    @contextmanager
    def reserve(self, rate: float, peer: str | None) -> Iterator[None]:
        mine = self.by_peer.get(peer, 0.0) if peer is not None else 0.0
        if rate and peer is not None and mine + rate > self.per_connection:
            raise Saturated(
                f"this connection's streams already take {mine:.0f} of the {self.per_connection:.0f} "
                "messages/s one connection may have; end one, or open another connection"
            )
        if self.promised + rate > self.limit:
            raise Saturated(
                f"this instance is streaming all the frames it can ({self.streams} streams, "
                f"{self.promised:.0f} of {self.limit:.0f} messages/s promised); retry later or elsewhere"
            )
        self.promised += rate
        self.streams += 1
        if rate and peer is not None:
            self.by_peer[peer] = mine + rate
        try:
            yield
        finally:
            self.promised -= rate
            self.streams -= 1
            if rate and peer is not None:
                left = self.by_peer[peer] - rate
                if left > 1e-9:
                    self.by_peer[peer] = left
                else:
                    del self.by_peer[peer]


def peer(context) -> str | None:
    """The client connection of a call, for its share; None on the HTTP
    port (its calls count against the process's total only)."""
    get = getattr(context, "peer", None)
    return get() if get is not None else None


class IdleStreams(handlers.Rewrapping):
    """Ends a server stream whose client takes no message for `idle_s`.

    A handler that yields cannot be interrupted while gRPC waits to send
    what it yielded (flow control: the client is not reading), so on the
    gRPC port the servicer's stream generators are driven from here, each
    message written with a time limit. Past it the call ends UNAVAILABLE
    (the client sees it after the messages already sent) and the generator
    is closed, which frees its share of the budget. Built once per method.
    """

    def __init__(self, idle_s: float):
        super().__init__()
        self.idle_s = idle_s

    def wrap(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        if handler.request_streaming or not handler.response_streaming:
            return handler
        if not inspect.isasyncgenfunction(handler.unary_stream):
            return handler
        return handlers.like(handler, self._written(handler.unary_stream))

    def _written(self, behavior):
        idle_s = self.idle_s

        async def call(request, context):
            messages = behavior(request, context)
            try:
                async for message in messages:
                    try:
                        async with asyncio.timeout(idle_s):
                            await context.write(message)
                    except cygrpc.ExecuteBatchError:
                        return  # the client left while the write was under way: nobody to tell
                    except TimeoutError:
                        context.set_code(grpc.StatusCode.UNAVAILABLE)
                        context.set_details(f"the stream took no frame for {idle_s:g} s and was closed; "
                                            "resume with Watch(job_id, after_seq)")
                        return
            finally:
                if not messages.ag_running:  # else it is ending with the exception that ends us
                    await messages.aclose()

        return call
