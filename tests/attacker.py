"""A hostile client in a process of its own: `python -m tests.attacker
ATTACK GRPC_ADDRESS HTTP_ADDRESS SECONDS` runs ATTACK against a service
until SECONDS have passed, then prints one JSON line: what each attempt
got back, counted ({"outcomes": {"RESOURCE_EXHAUSTED": 12}, "attempts": 12}).

Its own process, so that what it costs to mount an attack (building 16 MB
to compress, HTTP/2 framing in Python) is not charged to the service the
tests measure, which runs in the test's process. tests/test_attacks.py
starts it; bench/load.py runs its attacks in rotation beside honest load.
"""

from __future__ import annotations

import collections
import gzip
import http.client
import json
import sys
import time
from collections.abc import Callable

import grpc

from sudoku.v1 import sudoku_pb2 as pb

GOOD = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
TIMEOUT = 30


def _json_bomb() -> bytes:
    """A Connect-JSON Hint of 8 million pencil marks: 16 MB inflated, about 16 KB sent."""
    return gzip.compress(b'{"givens": "' + GOOD.encode() + b'", "pencilMarks": [' + b"1," * 8_000_000 + b"1]}")


def _arrays_bomb() -> bytes:
    """5.5 million empty arrays in an unknown field of a Hint, gzipped."""
    return gzip.compress(b'{"givens": "' + GOOD.encode() + b'", "x": [' + b"[]," * 5_500_000 + b"[]]}")


def _proto_bomb() -> bytes:
    """8.4 million copies of CountRequest.limit = 1, then a string cut
    short: a protobuf that fails to parse at its very end (16 MB)."""
    return pb.CountRequest(limit=1).SerializeToString() * 4_200_000 + b"\x0a\x50"


def _http_post(address: str, path: str, body: bytes, headers: dict[str, str]) -> str:
    host, _, port = address.rpartition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return f"HTTP {response.status}"
    except OSError as exc:
        return type(exc).__name__
    finally:
        connection.close()


def _grpc_outcome(call: Callable[[], object]) -> str:
    try:
        call()
    except grpc.RpcError as err:
        return err.code().name
    return "OK"


def json_bomb(grpc_address: str, http_address: str) -> Callable[[], str]:
    body = _json_bomb()
    return lambda: _http_post(http_address, "/sudoku.v1.Sudoku/Hint", body,
                              {"content-type": "application/json", "content-encoding": "gzip"})


def arrays_bomb(grpc_address: str, http_address: str) -> Callable[[], str]:
    body = _arrays_bomb()
    return lambda: _http_post(http_address, "/sudoku.v1.Sudoku/Hint", body,
                              {"content-type": "application/json", "content-encoding": "gzip"})


def proto_bomb_http(grpc_address: str, http_address: str) -> Callable[[], str]:
    body = gzip.compress(_proto_bomb())
    return lambda: _http_post(http_address, "/sudoku.v1.Sudoku/CountSolutions", body,
                              {"content-type": "application/proto", "content-encoding": "gzip"})


def proto_bomb_grpc(grpc_address: str, http_address: str) -> Callable[[], str]:
    body = _proto_bomb()
    channel = grpc.insecure_channel(grpc_address, options=[("grpc.max_send_message_length", 64 << 20)])
    call = channel.unary_unary("/sudoku.v1.Sudoku/CountSolutions", request_serializer=lambda raw: raw,
                               response_deserializer=lambda raw: raw)
    return lambda: _grpc_outcome(lambda: call(body, timeout=TIMEOUT, compression=grpc.Compression.Gzip))


ATTACKS = {f.__name__.replace("_", "-"): f for f in (json_bomb, arrays_bomb, proto_bomb_http, proto_bomb_grpc)}


def main(argv: list[str]) -> None:
    name, grpc_address, http_address, seconds = argv
    attempt = ATTACKS[name](grpc_address, http_address)
    print("ready", flush=True)
    outcomes: collections.Counter[str] = collections.Counter()
    deadline = time.monotonic() + float(seconds)
    while not outcomes or time.monotonic() < deadline:
        outcomes[attempt()] += 1
    print(json.dumps({"outcomes": dict(outcomes), "attempts": sum(outcomes.values())}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
