"""Request bytes before they are messages: bounded, then parsed, or INVALID_ARGUMENT naming the field.

Two things happen here to every request of the Sudoku service, on both ports:

- **A bound per RPC, before parsing.** Only CountMany and GradeMany carry
  many boards (`max_message_bytes`, about 2 MiB by default); every other
  request fits in SMALL_REQUEST_BYTES (a Hint with 81 pencil marks is under
  1 KB). A request over its RPC's bound is refused with RESOURCE_EXHAUSTED
  without being parsed: parsing is the one step whose cost a request's
  size decides, and it runs on the event loop every call shares. Inflation
  stops at the bound too (gRPC's core at max_receive_message_length,
  connectrpc at the ASGI application's read_max_bytes, see service/http/web.py).
- **A parse that cannot fail.** gRPC parses a request before any of our
  code runs, and when parsing fails (a string field that is not UTF-8, a
  truncated message: what a conforming client never sends, but a hostile
  or broken one can) grpc.aio ends the call with UNKNOWN "Unexpected <class
  DecodeError>" and logs a traceback. Here a request that does not parse
  arrives as `Undecodable`, which a unary call turns into INVALID_ARGUMENT
  at once and a CountBatch stream into that item's own error
  (service/rpc/validate.py), like any bad item. Naming the field that is not
  UTF-8 takes a second parse, in C as the first: of a twin of the message
  whose string fields are bytes (TWINS), after which only the strings
  present are looked at.
"""

from __future__ import annotations

import contextlib
import inspect
from dataclasses import dataclass

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass

from service.rpc import handlers
from sudoku.v1 import sudoku_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["Sudoku"]

# Every request but CountMany's and GradeMany's, in any encoding: the
# largest legitimate one (a Hint with both boards and 81 pencil marks, in
# indented JSON) is well under 2 KB.
SMALL_REQUEST_BYTES = 16 * 1024
BATCH_METHODS = frozenset({"CountMany", "GradeMany"})


def request_bound(method: str, max_message_bytes: int) -> int:
    """The largest request (or request stream item) `method` takes, in bytes."""
    return max_message_bytes if method in BATCH_METHODS else SMALL_REQUEST_BYTES


def too_large_message(method: str, size: int | None, bound: int) -> str:
    size_text = f"{size} bytes is" if size is not None else "the request is"
    return (f"request: {size_text} more than a {method} request may hold ({bound} bytes, GetLimits "
            f"{'max_message_bytes' if method in BATCH_METHODS else 'max_request_bytes'}); it was not read")


@dataclass(frozen=True)
class Undecodable:
    """A request that was not made a message: one that does not parse
    (INVALID_ARGUMENT; `message` names the field when it can), or one over
    its RPC's bound, left unparsed (RESOURCE_EXHAUSTED: sent again, it is
    refused again)."""

    message: str
    code: grpc.StatusCode = grpc.StatusCode.INVALID_ARGUMENT


def _twin_pool() -> dict[str, type[Message]]:
    """sudoku.proto's messages with every string field made bytes, by the
    original's full name: protobuf's C parser then takes any bytes there."""
    source = descriptor_pb2.FileDescriptorProto()
    pb.DESCRIPTOR.CopyToProto(source)
    source.name, source.package = "sudoku_twin.proto", "sudoku_twin.v1"
    source.ClearField("service")
    source.ClearField("options")

    def retype(messages) -> None:
        for message in messages:
            for field in message.field:
                if field.type == FieldDescriptor.TYPE_STRING:
                    field.type = FieldDescriptor.TYPE_BYTES
                if field.type_name.startswith(".sudoku.v1."):
                    field.type_name = ".sudoku_twin.v1." + field.type_name[len(".sudoku.v1."):]
            retype(message.nested_type)

    retype(source.message_type)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(source)
    return {f"sudoku.v1.{name}": GetMessageClass(pool.FindMessageTypeByName(f"sudoku_twin.v1.{name}"))
            for name in pb.DESCRIPTOR.message_types_by_name}


TWINS = _twin_pool()


def diagnose(raw: bytes, descriptor: Descriptor, error: Exception) -> Undecodable:
    """Why `raw` is not a `descriptor` message: the string field that is
    not UTF-8 when that is what is wrong, else the parser's own words."""
    twin = TWINS.get(descriptor.full_name)
    if twin is not None:
        try:
            field = _bad_string(twin.FromString(raw), descriptor)
        except DecodeError:
            field = None
        if field is not None:
            return Undecodable(f"{field}: not valid UTF-8 (protobuf strings must be)")
    return Undecodable(f"request: not a valid {descriptor.full_name} message ({error})")


def _bad_string(twin: Message, descriptor: Descriptor, prefix: str = "") -> str | None:
    """The name of the first (possibly nested) string field, in field
    order, whose bytes are not UTF-8."""
    for twin_field, value in twin.ListFields():
        field = descriptor.fields_by_number[twin_field.number]
        values = value if field.is_repeated else (value,)
        if field.type == FieldDescriptor.TYPE_STRING:
            for item in values:
                try:
                    item.decode("utf-8")
                except UnicodeDecodeError:
                    return prefix + field.name
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            for item in values:
                inner = _bad_string(item, field.message_type, f"{prefix}{field.name}.")
                if inner is not None:
                    return inner
    return None


def lenient(deserializer, descriptor: Descriptor, bound: int | None = None, method: str = ""):
    """`deserializer` made total: a request over `bound` bytes, or one that
    does not parse, becomes Undecodable."""

    def parse(raw: bytes):
        if bound is not None and len(raw) > bound:
            return Undecodable(too_large_message(method or descriptor.name, len(raw), bound),
                               grpc.StatusCode.RESOURCE_EXHAUSTED)
        try:
            return deserializer(raw)
        except DecodeError as exc:
            return diagnose(raw, descriptor, exc)

    return parse


class LenientDecoding(handlers.Rewrapping):
    """Gives the Sudoku service's handlers a parser that cannot fail and
    refuses a request over its RPC's bound unparsed.

    Placed last, next to the servicer; built once per method, so the
    interceptors outside it see the same handler call after call.
    """

    def __init__(self, max_message_bytes: int):
        super().__init__()
        self.max_message_bytes = max_message_bytes

    def wrap(self, handler: grpc.RpcMethodHandler, method_path: str) -> grpc.RpcMethodHandler:
        service, _, method = method_path.lstrip("/").rpartition("/")
        if service != SERVICE.full_name or method not in SERVICE.methods_by_name:
            return handler
        descriptor = SERVICE.methods_by_name[method].input_type
        bound = request_bound(method, self.max_message_bytes)
        behavior = handlers.behavior(handler)
        # A stream's items all reach the servicer, which answers a bad one
        # in its place (a CountBatch item, a CountMany request) as any bad item.
        if not handler.request_streaming:
            behavior = _checked_stream(behavior) if handler.response_streaming else _checked_call(behavior)
        parse = lenient(handler.request_deserializer, descriptor, bound, method)
        return handlers.like(handler, behavior, request_deserializer=parse)


def _checked_call(behavior):
    async def call(request, context):
        await _refuse(request, context)
        return await behavior(request, context)

    return call


async def _refuse(request, context) -> None:
    if isinstance(request, Undecodable):
        await context.abort(request.code, request.message)


def _checked_stream(behavior):
    if inspect.iscoroutinefunction(behavior):  # writes with context.write()
        return _checked_call(behavior)

    async def stream(request, context):
        await _refuse(request, context)
        async with contextlib.aclosing(behavior(request, context)) as items:
            async for item in items:
                yield item

    return stream

