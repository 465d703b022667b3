"""What the gRPC port's interceptors share: rewrapping a method's handler.

grpc.aio hands an interceptor the method's handler, which is one of four
kinds (a request or a stream of them, a reply or a stream of them), each
with its own attribute for the function that serves the call and its own
factory. The interceptors (service/rpc/metrics.py, security.py, decoding.py,
admission.py) wrap that function and need a handler of the same kind back:
behavior() and like() do that for every kind, in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc

# (request streaming, response streaming) -> the handler's attribute, its factory.
_KINDS: dict[tuple[bool, bool], tuple[str, Callable[..., grpc.RpcMethodHandler]]] = {
    (False, False): ("unary_unary", grpc.unary_unary_rpc_method_handler),
    (False, True): ("unary_stream", grpc.unary_stream_rpc_method_handler),
    (True, False): ("stream_unary", grpc.stream_unary_rpc_method_handler),
    (True, True): ("stream_stream", grpc.stream_stream_rpc_method_handler),
}
_SAME: Any = object()


def behavior(handler: grpc.RpcMethodHandler) -> Callable:
    """The function that serves the handler's calls, whatever its kind."""
    attribute, _ = _KINDS[handler.request_streaming, handler.response_streaming]
    return getattr(handler, attribute)


def like(handler: grpc.RpcMethodHandler, serve: Callable, request_deserializer: Any = _SAME,
         ) -> grpc.RpcMethodHandler:
    """A handler of `handler`'s kind whose calls `serve` serves, with the
    same serializers (or `request_deserializer`, None for raw bytes)."""
    _, make = _KINDS[handler.request_streaming, handler.response_streaming]
    if request_deserializer is _SAME:
        request_deserializer = handler.request_deserializer
    return make(serve, request_deserializer=request_deserializer, response_serializer=handler.response_serializer)


class Rewrapping(grpc.aio.ServerInterceptor):
    """An interceptor that serves each known method through the handler
    wrap() makes of the servicer's. A servicer's handlers are the same
    objects call after call, so the wrapping is made once per method, not
    per call. Unknown methods (no handler) are passed on, not remembered:
    their names come from the client."""

    def __init__(self) -> None:
        # method -> (the servicer's handler, what wrap() made of it)
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    async def intercept_service(self, continuation, details: grpc.HandlerCallDetails):
        handler = await continuation(details)
        if handler is None:
            return None
        known = self._wrapped.get(details.method)
        if known is None or known[0] is not handler:
            known = (handler, self.wrap(handler, details.method))
            self._wrapped[details.method] = known
        return known[1]

    def wrap(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        """The handler to serve `method` (its full path) with; `handler` itself to leave it alone."""
        raise NotImplementedError


class Rewrappings(Rewrapping):
    """Several Rewrapping interceptors as one: grpc.aio awaits each
    interceptor of a server on every call, before the handler runs (three
    of them cost a tenth of a bare call's instructions), so those that only
    rewrap a method's handler are applied together, first `parts` outermost,
    as if they were listed in that order."""

    def __init__(self, *parts: Rewrapping) -> None:
        super().__init__()
        self.parts = parts

    def wrap(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        for part in reversed(self.parts):
            handler = part.wrap(handler, method)
        return handler
