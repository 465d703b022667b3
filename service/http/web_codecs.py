"""How the HTTP port reads requests and writes replies: protobuf's binary
format and its JSON, as the gRPC port would, and never long on the event loop.

Every request has been bounded in bytes before it gets here
(service/rpc/decoding.py request_bound). What its bytes cost next depends on
the encoding: protobuf's binary format parses in C (a full CountMany in
well under a millisecond), but protobuf's JSON is parsed and printed in
Python, field by field: tens of milliseconds for a full CountMany request,
hundreds for a GradeMany reply of 10,000 grades. So:

- JSON is counted before it is parsed: a request has at most
  JSON_CONTAINERS objects and arrays and at most its RPC's number of values
  (a comma per value, found by bytes.count in C), unknown fields included.
  More is INVALID_ARGUMENT without parsing.
- JSON messages bigger than OFF_LOOP_BYTES are parsed and printed in one
  thread of their own (JSON_THREAD), so the event loop that serves every
  other call keeps running meanwhile: the codec hands such a request over
  as `Deferred`, which the endpoint resolves (`resolve`), and the endpoint
  prints such a reply ahead (`printed`) as `Encoded`.
- A request that does not parse becomes service.rpc.decoding's `Undecodable`
  in either encoding, so that a CountBatch or CountMany item is answered
  with its own error, as on the gRPC port.
- A message flagged compressed in a request that names no encoding is the
  client's error, INVALID_ARGUMENT (connectrpc calls it INTERNAL).
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import connectrpc._server_async
from connectrpc._envelope import EnvelopeReader
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from google.protobuf import json_format
from google.protobuf.message import Message

from service.rpc import decoding
from service.rpc.decoding import Undecodable
from sudoku.v1 import sudoku_pb2 as pb

# A request's objects and arrays at most: the message, a nested one (pacing)
# and its lists are a handful.
JSON_CONTAINERS = 32
# Values (commas) of a request with no list of boards: 81 pencil marks and a
# few fields are a hundred.
SMALL_JSON_VALUES = 1024
# JSON this big is parsed, or printed, off the event loop.
OFF_LOOP_BYTES = 64 * 1024
# One thread: JSON work of many calls takes its turns there instead of a
# core each, and the loop gets the interpreter back every switch interval.
JSON_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="json")

# Repeated string fields parsed in one step rather than value by value
# (json_format's own loop costs more than the rest of a CountMany request).
_LISTS = {pb.CountManyRequest: "boards", pb.GradeManyRequest: "boards"}


@dataclass(frozen=True)
class Deferred:
    """A JSON request too big to parse on the event loop: resolve() parses it."""

    data: bytes
    message_class: type[Message]
    codec: LenientJsonCodec


@dataclass(frozen=True)
class Encoded:
    """A reply printed ahead (off the loop); the codec sends these bytes."""

    data: bytes


def value_budgets(max_chunk: int, max_grade_chunk: int) -> dict[type[Message], int]:
    """JSON values a request of each message may hold (the others: SMALL_JSON_VALUES)."""
    return {pb.CountManyRequest: max_chunk + SMALL_JSON_VALUES, pb.GradeManyRequest: max_grade_chunk + SMALL_JSON_VALUES}


class LenientProtoCodec:
    """Protobuf's binary format through google.protobuf, parsed as the gRPC
    port parses it (service.rpc.decoding): bytes that are not a message become
    `Undecodable`, naming the field that is not UTF-8."""

    def __init__(self) -> None:
        self._codec = google_protobuf_binary_codec()
        self._parsers: dict[type, Any] = {}

    def name(self) -> str:
        return self._codec.name()

    def encode(self, message) -> bytes:
        return message.data if isinstance(message, Encoded) else self._codec.encode(message)

    def decode(self, data, message_class):
        parse = self._parsers.get(message_class)
        if parse is None:
            parse = self._parsers[message_class] = decoding.lenient(message_class.FromString, message_class.DESCRIPTOR)
        return parse(bytes(data))


class LenientJsonCodec:
    """Protobuf's JSON (unknown fields ignored), counted before it is
    parsed, parsed off the loop when big (see the module docstring)."""

    def __init__(self, budgets: dict[type[Message], int]):
        self.budgets = budgets

    def name(self) -> str:
        return "json"

    def encode(self, message) -> bytes:
        return message.data if isinstance(message, Encoded) else json_format.MessageToJson(message).encode()

    def decode(self, data, message_class):
        data = bytes(data)
        problem = self._too_structured(data, message_class)
        if problem is not None:
            return Undecodable(problem)
        if len(data) > OFF_LOOP_BYTES:
            return Deferred(data, message_class, self)
        return self.parse(data, message_class)

    def _too_structured(self, data: bytes, message_class) -> str | None:
        containers = data.count(b"[") + data.count(b"{")
        if containers > JSON_CONTAINERS:
            return (f"request: {containers} JSON objects and arrays, more than a {message_class.DESCRIPTOR.name} "
                    f"holds ({JSON_CONTAINERS}, unknown fields included); it was not parsed")
        values, budget = data.count(b","), self.budgets.get(message_class, SMALL_JSON_VALUES)
        if values > budget:
            return (f"request: {values} JSON values, more than a {message_class.DESCRIPTOR.name} holds "
                    f"({budget}, unknown fields included); it was not parsed")
        return None

    def parse(self, data: bytes, message_class):
        """The message, as json_format.Parse makes it, or Undecodable."""
        try:
            loaded = json.loads(data, object_pairs_hook=_unique_keys)
        except (ValueError, json_format.ParseError) as exc:
            return Undecodable(f"request: not valid JSON ({exc})")
        message = message_class()
        listed = _LISTS.get(message_class)
        values = loaded.get(listed) if listed is not None and isinstance(loaded, dict) else None
        if isinstance(values, list) and all(type(v) is str for v in values):
            del loaded[listed]
        else:
            values = None
        try:
            json_format.ParseDict(loaded, message, ignore_unknown_fields=True)
        except (json_format.ParseError, ValueError, TypeError, AttributeError) as exc:
            return Undecodable(f"request: not a valid {message_class.DESCRIPTOR.full_name} ({exc})")
        if values is not None:
            getattr(message, listed).extend(values)
        return message


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """What json_format.Parse demands of an object: no key twice."""
    result = {}
    for name, value in pairs:
        if name in result:
            raise json_format.ParseError(f"duplicate key {name}")
        result[name] = value
    return result


async def resolve(request):
    """A request ready for the servicer: a Deferred one parsed in JSON_THREAD."""
    if isinstance(request, Deferred):
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(JSON_THREAD, request.codec.parse, request.data, request.message_class)
    return request


async def printed(message, json_reply: bool, output: type[Message]):
    """The reply as the codec should send it: a coalesced call's bytes as
    they are (a JSON caller's parsed first), a big reply for a JSON caller
    printed ahead in JSON_THREAD (its ByteSize is a tenth or less of its JSON)."""
    if isinstance(message, bytes):
        if not json_reply:
            return Encoded(message)
        message = output.FromString(message)
    if json_reply and message.ByteSize() * 4 > OFF_LOOP_BYTES:
        loop = asyncio.get_running_loop()
        return Encoded(await loop.run_in_executor(JSON_THREAD, _to_json, message))
    return message


def _to_json(message: Message) -> bytes:
    return json_format.MessageToJson(message).encode()


class _EnvelopeReader(EnvelopeReader):
    """connectrpc's reader of request envelopes, but for one code: a
    message flagged compressed without a request encoding is INVALID_ARGUMENT."""

    def _read_messages(self):
        try:
            yield from super()._read_messages()
        except ConnectError as exc:
            if exc.code is Code.INTERNAL and "compressed message" in exc.message:
                raise ConnectError(Code.INVALID_ARGUMENT, "a message is flagged compressed, but the request names "
                                   "no encoding (connect-content-encoding or grpc-encoding)") from None
            raise


# connectrpc reads request envelopes with the reader its _server_async module
# names (connectrpc is pinned below 0.14; tests/test_attacks.py fails if
# this stops taking effect).
connectrpc._server_async.EnvelopeReader = _EnvelopeReader
