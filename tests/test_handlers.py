"""service/rpc/handlers.py: a handler rebuilt around another function keeps its
kind and serializers, for each of the four kinds; the interceptors built on
it are tested through the real server (test_metrics, test_security,
test_hostile_input, test_admission). And closing a server stream closes
every layer of generators under it at once."""

from __future__ import annotations

import asyncio
import functools
from typing import NamedTuple

import grpc
import pytest

from service.rpc import decoding, handlers, metrics, server

FACTORIES = [
    grpc.unary_unary_rpc_method_handler,
    grpc.unary_stream_rpc_method_handler,
    grpc.stream_unary_rpc_method_handler,
    grpc.stream_stream_rpc_method_handler,
]


def serve(request, context):
    return None


def other(request, context):
    return None


@pytest.mark.parametrize("factory", FACTORIES)
def test_a_rewrapped_handler_keeps_its_kind_and_serializers(factory):
    handler = factory(serve, request_deserializer=bytes.upper, response_serializer=bytes.lower)
    assert handlers.behavior(handler) is serve
    rebuilt = handlers.like(handler, other)
    assert (rebuilt.request_streaming, rebuilt.response_streaming) == (
        handler.request_streaming, handler.response_streaming)
    assert handlers.behavior(rebuilt) is other
    assert rebuilt.request_deserializer is bytes.upper and rebuilt.response_serializer is bytes.lower
    assert handlers.like(handler, other, request_deserializer=None).request_deserializer is None


class Details(NamedTuple):
    method: str
    invocation_metadata: tuple


def test_a_rewrapping_interceptor_wraps_each_method_once():
    made = []

    class Counting(handlers.Rewrapping):
        def wrap(self, handler, method):
            made.append(method)
            return handlers.like(handler, other)

    handler = grpc.unary_unary_rpc_method_handler(serve)

    async def known(details):
        return handler

    async def unknown(details):
        return None

    async def main():
        interceptor = Counting()
        details = Details("/a.B/C", ())
        first = await interceptor.intercept_service(known, details)
        assert await interceptor.intercept_service(known, details) is first
        assert await interceptor.intercept_service(unknown, details) is None

    asyncio.run(main())
    assert made == ["/a.B/C"]


def test_rewrappings_apply_their_parts_as_interceptors_listed_in_that_order():
    """Rewrappings(a, b): a's wrapper outermost, b's next, then the handler's
    own behaviour, as grpc.aio nests interceptors [a, b]."""
    ran = []

    class Tagging(handlers.Rewrapping):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def wrap(self, handler, method):
            inner = handlers.behavior(handler)

            async def tagged(request, context):
                ran.append(self.tag)
                return await inner(request, context)

            return handlers.like(handler, tagged)

    async def serve_it(request, context):
        ran.append("handler")
        return request

    async def known(details):
        return grpc.unary_unary_rpc_method_handler(serve_it)

    async def main():
        wrapped = await handlers.Rewrappings(Tagging("a"), Tagging("b")).intercept_service(known, Details("/a.B/C", ()))
        assert await handlers.behavior(wrapped)(b"x", None) == b"x"

    asyncio.run(main())
    assert ran == ["a", "b", "handler"]


class Context:
    """What the stream wrappers read of a grpc.aio context."""

    def done(self) -> bool:
        return False

    def code(self):
        return None


class Servicer:
    calls = server.Calls()  # statuses counts each call in flight here


def _wrapped(kind: str, behavior):
    """behavior wrapped by one of the layers every server stream passes through."""
    if kind == "decoding":
        return decoding._checked_stream(behavior)
    if kind == "metrics":
        return metrics._counted_stream(behavior, "sudoku.v1.Sudoku", "Watch", None)
    return functools.partial(server.statuses(behavior), Servicer())


@pytest.mark.parametrize("kind", ["decoding", "metrics", "statuses"])
def test_closing_a_stream_runs_the_finally_blocks_under_it_at_once(kind):
    """gRPC's IdleStreams and the web port close a stream's generator the
    moment its client goes. Every layer under it must close its own inner
    generator then, not leave it to garbage collection: a Watch's finally
    removes its playback from Redis, and a stopping service closes its
    clients right after (left to the collector, the finally ran later, on a
    closed client, or on a loop already gone)."""
    closed = []

    async def frames(*_):  # (request, context), or a servicer's (self, request, context)
        try:
            while True:
                yield b"frame"
        finally:
            closed.append(True)

    async def main() -> None:
        stream = _wrapped(kind, frames)(object(), Context())
        assert await stream.__anext__() == b"frame"
        await stream.aclose()
        assert closed == [True], "the inner generator was left to the collector"

    asyncio.run(main())
