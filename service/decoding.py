"""Requests whose bytes do not parse: INVALID_ARGUMENT naming the field.

gRPC parses a request before any of our code runs, and when parsing fails
(a string field that is not UTF-8, a truncated message: what a conforming
client never sends, but a hostile or broken one can) grpc.aio ends the call
with UNKNOWN "Unexpected <class DecodeError>" and logs a traceback. Here the
parse cannot fail: a request that does not parse arrives as `Undecodable`,
which a unary call turns into INVALID_ARGUMENT at once and a CountBatch
stream into that item's own error (service/validate.py), like any bad item.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import grpc
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError

from service import handlers
from sudoku.v1 import sudoku_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["Sudoku"]


@dataclass(frozen=True)
class Undecodable:
    """A request that is not a valid message; `message` says why, naming the field when it can."""

    message: str


def lenient(deserializer, descriptor: Descriptor):
    def parse(raw: bytes):
        try:
            return deserializer(raw)
        except DecodeError as exc:
            field = _bad_string(raw, descriptor)
            if field is not None:
                return Undecodable(f"{field}: not valid UTF-8 (protobuf strings must be)")
            return Undecodable(f"request: not a valid {descriptor.full_name} message ({exc})")

    return parse


def _varint(raw: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = raw[pos]
        value |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if byte < 0x80:
            return value, pos


def _bad_string(raw: bytes, descriptor: Descriptor, prefix: str = "") -> str | None:
    """The name of the (possibly nested) string field that is not UTF-8, if
    that is what is wrong; None for any other damage."""
    pos = 0
    try:
        while pos < len(raw):
            key, pos = _varint(raw, pos)
            number, wire = key >> 3, key & 7
            if wire == 0:
                pos = _varint(raw, pos)[1]
            elif wire in (1, 5):
                pos += 8 if wire == 1 else 4
            elif wire == 2:
                size, pos = _varint(raw, pos)
                value, pos = raw[pos : pos + size], pos + size
                field = descriptor.fields_by_number.get(number)
                if field is None:
                    continue
                if field.type == FieldDescriptor.TYPE_STRING:
                    try:
                        value.decode("utf-8")
                    except UnicodeDecodeError:
                        return prefix + field.name
                elif field.type == FieldDescriptor.TYPE_MESSAGE:
                    inner = _bad_string(value, field.message_type, f"{prefix}{field.name}.")
                    if inner is not None:
                        return inner
            else:
                return None
    except IndexError:
        return None
    return None


class LenientDecoding(handlers.Rewrapping):
    """Gives the Sudoku service's handlers a parser that cannot fail.

    Placed last, next to the servicer; built once per method, so the
    interceptors outside it see the same handler call after call.
    """

    def wrap(self, handler: grpc.RpcMethodHandler, method_path: str) -> grpc.RpcMethodHandler:
        service, _, method = method_path.lstrip("/").rpartition("/")
        if service != SERVICE.full_name or method not in SERVICE.methods_by_name:
            return handler
        descriptor = SERVICE.methods_by_name[method].input_type
        behavior = handlers.behavior(handler)
        # A stream's items all reach the servicer: CountBatch answers a bad one with its own error.
        if not handler.request_streaming:
            behavior = _checked_stream(behavior) if handler.response_streaming else _checked_call(behavior)
        return handlers.like(handler, behavior, request_deserializer=lenient(handler.request_deserializer, descriptor))


def _checked_call(behavior):
    async def call(request, context):
        if isinstance(request, Undecodable):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
        return await behavior(request, context)

    return call


def _checked_stream(behavior):
    if inspect.iscoroutinefunction(behavior):  # writes with context.write()
        return _checked_call(behavior)

    async def stream(request, context):
        if isinstance(request, Undecodable):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
        async for item in behavior(request, context):
            yield item

    return stream
