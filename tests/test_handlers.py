"""service/rpc/handlers.py: a handler rebuilt around another function keeps its
kind and serializers, for each of the four kinds; the interceptors built on
it are tested through the real server (test_metrics, test_security,
test_hostile_input, test_admission)."""

from __future__ import annotations

import asyncio
from typing import NamedTuple

import grpc
import pytest

from service.rpc import handlers

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
