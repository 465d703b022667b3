"""A hostile client in a process of its own: `python -m tests.attacker
ATTACK GRPC_ADDRESS HTTP_ADDRESS SECONDS [NAME=VALUE ...]` runs ATTACK
against a service until SECONDS have passed, then prints one JSON line:
what each attempt got back, counted ({"outcomes": {"RESOURCE_EXHAUSTED":
12}, "attempts": 12}), and what the attack reports of itself. NAME=VALUE
options: `source` (the address to send from: 127.0.0.3, so that it is not
the honest client's), `count` (connections or streams), `in_flight` (a
request attack's calls at once on its connection, each from a thread of
its own; 1 by default).

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
import select
import socket
import sys
import threading
import time
from collections.abc import Callable

import grpc
import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

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


def expensive_count(grpc_address: str, http_address: str) -> Callable[[], str]:
    """Legal and dear: CountSolutions at the largest limit (GetLimits) of a 17-clue
    puzzle with its digits renamed afresh each time, so no cached count
    answers it (item 2 of the hostile-input issue: it took the
    interactive worker from the hints)."""
    import random

    from tests.puzzles import puzzles, relabelled

    rng = random.Random()
    boards = puzzles("17_clue")
    channel = grpc.insecure_channel(grpc_address)
    call = channel.unary_unary("/sudoku.v1.Sudoku/CountSolutions", request_serializer=pb.CountRequest.SerializeToString,
                               response_deserializer=pb.CountReply.FromString)
    largest = channel.unary_unary("/sudoku.v1.Sudoku/GetLimits", request_serializer=pb.GetLimitsRequest.SerializeToString,
                                  response_deserializer=pb.Limits.FromString)(pb.GetLimitsRequest()).max_count_limit
    request = lambda: pb.CountRequest(board=relabelled(rng.choice(boards), rng), limit=largest)  # noqa: E731
    return lambda: _grpc_outcome(lambda: call(request(), timeout=TIMEOUT))


def naive_solve(grpc_address: str, http_address: str) -> Callable[[], str]:
    """Legal and dear: an unwatched naive Solve of a board with no solution
    near, to the service's step ceiling (max_steps 0: the most allowed)."""
    from tests.puzzles import ENDLESS

    return _solve(grpc_address, pb.SolveRequest(board=ENDLESS, strategy=pb.STRATEGY_NAIVE))


def capped_solve(grpc_address: str, http_address: str) -> Callable[[], str]:
    """Legal and dear in the cheap lane: an unwatched naive Solve of a board
    with no solution near, capped at the cheap lane's steps (about 15 ms of
    a worker each, the most a call the cheap lane answers itself costs;
    since 5661c31 up to 64 of them ride in one coalesced job)."""
    from sudoku.lanes import CHEAP_SOLVE_STEPS
    from tests.puzzles import ENDLESS

    request = pb.SolveRequest(board=ENDLESS, strategy=pb.STRATEGY_NAIVE, max_steps=CHEAP_SOLVE_STEPS)
    return _solve(grpc_address, request)


def long_mrv_solve(grpc_address: str, http_address: str) -> Callable[[], str]:
    """Legal and dear: an unwatched MRV Solve (the default) of a board whose
    search outlasts the cheap lane's steps, so each pays its cheap try (about
    25 ms of a worker) before going on as a heavy job of its own."""
    from tests.puzzles import LONG_MRV

    return _solve(grpc_address, pb.SolveRequest(board=LONG_MRV))


def _solve(grpc_address: str, request: pb.SolveRequest) -> Callable[[], str]:
    channel = grpc.insecure_channel(grpc_address)
    call = channel.unary_stream("/sudoku.v1.Sudoku/Solve", request_serializer=pb.SolveRequest.SerializeToString,
                                response_deserializer=pb.Frame.FromString)
    return lambda: _grpc_outcome(lambda: list(call(request, timeout=TIMEOUT)))


def explain_hardest(grpc_address: str, http_address: str) -> Callable[[], str]:
    """Legal and dear: Explain of the forum's hardest boards, whose logical
    paths need forcing nets."""
    import random

    from tests.puzzles import puzzles

    rng = random.Random()
    boards = puzzles("forum_hardest_1905_11plus")
    channel = grpc.insecure_channel(grpc_address)
    call = channel.unary_unary("/sudoku.v1.Sudoku/Explain", request_serializer=pb.ExplainRequest.SerializeToString,
                               response_deserializer=pb.ExplainReply.FromString)
    return lambda: _grpc_outcome(lambda: call(pb.ExplainRequest(board=rng.choice(boards)), timeout=TIMEOUT))


ATTACKS = {f.__name__.replace("_", "-"): f
           for f in (json_bomb, arrays_bomb, proto_bomb_http, proto_bomb_grpc, expensive_count, naive_solve,
                     capped_solve, long_mrv_solve, explain_hardest)}


# ---- Attacks on connections rather than requests: each runs once, for the whole time ----


def _connect(http_address: str, source: str, receive_buffer: int = 0) -> socket.socket:
    host, _, port = http_address.rpartition(":")
    sock = socket.socket()
    if receive_buffer:  # the server's writes to a client that reads nothing back up at once
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.bind((source, 0))
    sock.connect((host, int(port)))
    return sock


def half_bodies(http_address: str, seconds: float, source: str = "127.0.0.3", count: int = 150) -> dict:
    """`count` connections that send a Hint's headers and 10 of the 1,000
    bytes their content-length promises, then nothing: each counted as
    refused (closed without a word), cut (answered by the server before its
    body came), or held (still open at the end)."""
    head = (b"POST /sudoku.v1.Sudoku/Hint HTTP/1.1\r\nhost: x\r\ncontent-type: application/proto\r\n"
            b"content-length: 1000\r\n\r\n" + b"\x0a\x51" + GOOD.encode()[:8])
    socks, outcomes, cut_after = [], collections.Counter(), []
    started = time.monotonic()
    for _ in range(int(count)):
        try:
            sock = _connect(http_address, source)
            sock.sendall(head)
            socks.append(sock)
        except OSError:
            outcomes["refused"] += 1
    print("ready", flush=True)
    open_ = {sock.fileno(): sock for sock in socks}
    deadline = started + seconds
    while open_ and time.monotonic() < deadline:
        readable, _, _ = select.select(list(open_.values()), [], [], 0.1)
        for sock in readable:
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            if not data or b"HTTP/1.1" in data:
                # Closed without a word (refused), or answered mid-body (cut).
                outcomes["cut" if data else "refused"] += 1
                if data:
                    cut_after.append(round(time.monotonic() - started, 1))
                del open_[sock.fileno()]
                sock.close()
    if open_:
        outcomes["held"] += len(open_)
    for sock in open_.values():
        sock.close()
    return {"outcomes": dict(outcomes), "attempts": int(count), "cut_after_s": sorted(cut_after)[-1:]}


class _H2:
    """A bare HTTP/2 client on one connection, frame by frame (h2)."""

    def __init__(self, http_address: str, source: str, window: int = 65535, receive_buffer: int = 0,
                 preface_alone: bool = True):
        """`preface_alone=False` keeps the connection's preface for the first
        flush, in one write with the first requests."""
        self.sock = _connect(http_address, source, receive_buffer)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.local_settings = h2.settings.Settings(client=True, initial_values={
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window, h2.settings.SettingCodes.ENABLE_PUSH: 0})
        self.conn.initiate_connection()
        if preface_alone:
            self.flush()
        self.host = http_address

    def flush(self) -> None:
        self.sock.sendall(self.conn.data_to_send())

    def request(self, path: str, content_type: str, body: bytes | None) -> int:
        """Opens a stream with this request (headers alone when `body` is None)."""
        stream_id = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream_id, [(":method", "POST"), (":scheme", "http"), (":authority", self.host),
                                           (":path", path), ("content-type", content_type)], end_stream=body is None)
        if body is not None:
            self.conn.send_data(stream_id, body, end_stream=True)
        return stream_id

    def events(self, timeout: float) -> list:
        readable, _, _ = select.select([self.sock], [], [], timeout)
        if not readable:
            return []
        data = self.sock.recv(65536)
        if not data:
            return [None]  # the server closed the connection
        events = self.conn.receive_data(data)
        self.flush()
        return events


def unread_streams(http_address: str, seconds: float, source: str = "127.0.0.3", count: int = 50) -> dict:
    """One HTTP/2 connection with a flow-control window of 0 opens `count`
    unpaced watched solves (Connect streams) and reads nothing (so even a
    refusal, which Connect sends in the body, cannot arrive): each stream
    counted as reset (ended by the server), or held (still open at the end)."""
    h2c = _H2(http_address, source, window=0)
    solve = pb.SolveRequest(board="." * 81, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                            pacing=pb.Pacing(unpaced=True), max_steps=10**12).SerializeToString()
    envelope = b"\x00" + len(solve).to_bytes(4, "big") + solve
    streams = {h2c.request("/sudoku.v1.Sudoku/Solve", "application/connect+proto", envelope) for _ in range(int(count))}
    h2c.flush()
    print("ready", flush=True)
    outcomes, started, reset_after = collections.Counter(), time.monotonic(), []
    answered = set()
    while streams and time.monotonic() < started + seconds:
        for event in h2c.events(0.1):
            if event is None:
                outcomes["connection closed"] += len(streams)
                streams.clear()
                break
            stream = getattr(event, "stream_id", None)
            if isinstance(event, h2.events.ResponseReceived):
                answered.add(stream)
            elif isinstance(event, h2.events.StreamEnded | h2.events.StreamReset) and stream in streams:
                streams.discard(stream)
                outcomes["reset" if isinstance(event, h2.events.StreamReset) else "ended"] += 1
                reset_after.append(round(time.monotonic() - started, 1))
    if streams:
        outcomes["held"] += len(streams)
    h2c.sock.close()
    return {"outcomes": dict(outcomes), "attempts": int(count), "reset_after_s": sorted(reset_after)[-1:]}


def rapid_reset(http_address: str, seconds: float, source: str = "127.0.0.3", count: int = 0, hold: float = 0) -> dict:
    """One HTTP/2 connection opens Hint streams (their headers: the request
    a server sets up for) and resets each at once, as fast as it can, for
    `seconds`, and never reads what the server sends (a GOAWAY included:
    the client goes on regardless, and the server's writes back up); then,
    with `hold`, keeps the connection open for that long, after printing its
    report. The connection's preface goes in one write with the first 50
    streams, so the server meets them in its first read of the connection.
    Reports the streams sent, and whether the server closed the connection
    (its sends then fail)."""
    h2c = _H2(http_address, source, receive_buffer=4096, preface_alone=False)
    sent, ended, started = 0, "held", time.monotonic()
    h2c.sock.settimeout(1.0)
    print("ready", flush=True)
    try:
        while time.monotonic() < started + seconds:
            for _ in range(50):
                stream = h2c.request("/sudoku.v1.Sudoku/Hint", "application/proto", None)
                h2c.conn.reset_stream(stream)
            h2c.sock.sendall(h2c.conn.data_to_send())
            sent += 50
    except TimeoutError:
        ended = "server stopped reading"
    except OSError:
        ended = "server closed the connection"
    report = {"outcomes": {ended: 1}, "attempts": sent}
    if hold:
        print(json.dumps(report), flush=True)
        time.sleep(float(hold))
    h2c.sock.close()
    return report


def unread_replies(http_address: str, seconds: float, source: str = "127.0.0.3", count: int = 500) -> dict:
    """One HTTP/2 connection sends `count` Hints and reads none of the
    replies, through a small receive buffer: the server's writes to it
    block. It stays open, unread, for the rest of the time."""
    h2c = _H2(http_address, source, receive_buffer=4096)
    hint = pb.HintRequest(givens=GOOD).SerializeToString()
    h2c.sock.settimeout(1.0)
    sent = 0
    try:
        for _ in range(int(count)):
            h2c.request("/sudoku.v1.Sudoku/Hint", "application/proto", hint)
            sent += 1
            if sent % 50 == 0:
                h2c.sock.sendall(h2c.conn.data_to_send())
        h2c.sock.sendall(h2c.conn.data_to_send())
    except (OSError, h2.exceptions.ProtocolError):
        pass  # too many streams at once, or the server stopped reading
    report = {"outcomes": {"sent": 1}, "attempts": sent}
    print("ready", flush=True)
    print(json.dumps(report), flush=True)
    time.sleep(float(seconds))
    h2c.sock.close()
    return report


def unread_bodies(http_address: str, seconds: float, source: str = "127.0.0.3", count: int = 20) -> dict:
    """HTTP/2 streams whose requests the server answers without reading
    their bodies (an unknown method: 404), each sent with `count` DATA
    frames more: hypercorn queues at most 10 of a request's events for the
    application and stops reading the connection while a queue is full. The
    connection is then left open (its client reads nothing) until the end;
    reports whether a Hint on the same connection was answered meanwhile."""
    h2c = _H2(http_address, source)
    for _ in range(3):
        stream = h2c.conn.get_next_available_stream_id()
        h2c.conn.send_headers(stream, [(":method", "POST"), (":scheme", "http"), (":authority", h2c.host),
                                       (":path", "/sudoku.v1.Sudoku/Nope"), ("content-type", "application/proto")])
        for _ in range(int(count)):
            h2c.conn.send_data(stream, b"x" * 100)
    hint = h2c.request("/sudoku.v1.Sudoku/Hint", "application/proto", pb.HintRequest(givens=GOOD).SerializeToString())
    h2c.flush()
    print("ready", flush=True)
    started, answered = time.monotonic(), "no"
    while time.monotonic() < started + min(float(seconds), 5.0) and answered == "no":
        for event in h2c.events(0.1):
            if isinstance(event, h2.events.ResponseReceived) and event.stream_id == hint:
                answered = "yes"
    report = {"outcomes": {f"hint answered: {answered}": 1}, "attempts": 3}
    print(json.dumps(report), flush=True)
    time.sleep(max(0.0, started + float(seconds) - time.monotonic()))
    h2c.sock.close()
    return report


CONNECTION_ATTACKS = {f.__name__.replace("_", "-"): f for f in (half_bodies, unread_streams, rapid_reset, unread_bodies,
                                                                 unread_replies)}


def main(argv: list[str]) -> None:
    name, grpc_address, http_address, seconds, *options = argv
    extra = dict(option.split("=", 1) for option in options)
    if name in CONNECTION_ATTACKS:
        print(json.dumps(CONNECTION_ATTACKS[name](http_address, float(seconds), **extra)), flush=True)
        return
    attempt = ATTACKS[name](grpc_address, http_address)
    print("ready", flush=True)
    outcomes: collections.Counter[str] = collections.Counter()
    deadline = time.monotonic() + float(seconds)

    def attempts() -> None:
        while not outcomes or time.monotonic() < deadline:
            got = attempt()
            with counting:
                outcomes[got] += 1

    counting = threading.Lock()
    threads = [threading.Thread(target=attempts) for _ in range(int(extra.get("in_flight", 1)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"outcomes": dict(outcomes), "attempts": sum(outcomes.values())}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
