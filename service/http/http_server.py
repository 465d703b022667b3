"""The HTTP port's connections: hypercorn's HTTP/1.1 and HTTP/2 protocols,
on sockets this module accepts.

hypercorn.asyncio.serve() accepts its connections itself, and what a port
facing the internet needs of its connections it does not do:

- **Connections per client.** One address (IP) may hold at most
  SUDOKU_HTTP_CONNECTIONS_PER_CLIENT connections at once; past it a new
  one is closed as soon as it is accepted, so a client that opens
  thousands of sockets holds its own share, not the port.
- **HTTP/2 resets.** A stream a client opens and resets at once costs the
  server a request's set-up (CVE-2023-44487, "rapid reset"). A connection
  may reset RESETS_PER_S streams a second on average (RESETS_BURST at
  once); past that it gets GOAWAY with ENHANCE_YOUR_CALM and is closed. A
  stream opened and reset in the same read is never set up as a request.
- **Bodies nobody reads.** A request answered without reading its whole
  body (an unknown path) has the rest read and dropped: hypercorn stops
  reading a connection while one request's queue of events is full.
- **Streams left open.** When the application ends a call without finishing
  its response (it gave up on a client that reads nothing, see
  service/http/web.py), its HTTP/2 stream is reset; hypercorn would leave it
  open, counting against the client's streams, with its buffered data.
- **A stop that ends.** stop() lets the connections finish for `grace`
  seconds, then closes every one of them, whatever state it is in: a
  connection nobody reads any more cannot hold up a stopping service.

What each request may cost (its size, how fast its body arrives, how long
a reply may wait for its client) is the application's: service/http/web.py.
hypercorn's protocols are used as its own server uses them
(hypercorn.asyncio.tcp_server); the guards on them are tested by
tests/test_attacks.py against real sockets.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import socket
import time

import h2.errors
import h2.events
import priority
from h2.stream import StreamState
from hypercorn.app_wrappers import ASGIWrapper
from hypercorn.asyncio.tcp_server import MAX_RECV, TCPServer
from hypercorn.asyncio.worker_context import WorkerContext
from hypercorn.config import Config
from hypercorn.events import Closed, RawData, Updated
from hypercorn.protocol.events import StreamClosed
from hypercorn.protocol.h2 import H2Protocol

from service.rpc import metrics

log = logging.getLogger("sudoku.http")

RESETS_PER_S = 100
RESETS_BURST = 400
# After the grace, closing the connections left takes this long at most.
CLOSE_S = 1.0
_UNFINISHED = (StreamState.OPEN, StreamState.HALF_CLOSED_REMOTE)


class _Resets:
    """A connection's allowance of stream resets: a token bucket."""

    def __init__(self) -> None:
        self.tokens = float(RESETS_BURST)
        self.at = time.monotonic()

    def spend(self) -> bool:
        now = time.monotonic()
        self.tokens = min(RESETS_BURST, self.tokens + (now - self.at) * RESETS_PER_S)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def _guard(protocol: H2Protocol) -> None:
    """Installs the reset allowance and the reset of unfinished streams on
    one HTTP/2 connection's protocol (on the instance: hypercorn's class is left alone)."""
    resets = _Resets()
    handle_events, stream_send = protocol._handle_events, protocol.stream_send

    async def guarded_events(events: list[h2.events.Event]) -> None:
        reset_at_once = set()
        for event in events:
            if isinstance(event, h2.events.StreamReset) and event.remote_reset:
                if not resets.spend():
                    metrics.HTTP_REFUSED.labels("resets").inc()
                    log.info("an HTTP/2 client reset streams faster than %d/s: GOAWAY", RESETS_PER_S)
                    protocol.connection.close_connection(error_code=h2.errors.ErrorCodes.ENHANCE_YOUR_CALM)
                    await protocol._flush()
                    await protocol.send(Closed())
                    return
                reset_at_once.add(event.stream_id)
        if reset_at_once:
            # A stream opened and reset in one read never reaches the
            # application: h2 has closed it already, and hypercorn would
            # set up a request (a task, the app's checks) only to cancel it.
            # What a rapid-reset burst costs the loop is then h2's parsing.
            gone = reset_at_once & {e.stream_id for e in events if isinstance(e, h2.events.RequestReceived)}
            if gone:
                events = [e for e in events if getattr(e, "stream_id", None) not in gone]
        await handle_events(events)

    async def reset_unfinished(event) -> None:
        await stream_send(event)
        if not isinstance(event, StreamClosed) or protocol.closed:
            return
        stream = protocol.connection.streams.get(event.stream_id)
        if stream is not None and stream.state_machine.state in _UNFINISHED:
            protocol.connection.reset_stream(event.stream_id, h2.errors.ErrorCodes.CANCEL)
            buffer = protocol.stream_buffers.get(event.stream_id)
            if buffer is not None:
                # hypercorn's sender finds the stream closed at its next turn and forgets it.
                await buffer.close()
                with contextlib.suppress(priority.MissingStreamError):
                    protocol.priority.unblock(event.stream_id)
                await protocol.has_data.set()
            await protocol._flush()

    protocol._handle_events = guarded_events
    protocol.stream_send = reset_unfinished
    protocol.sudoku_guarded = True


class _Connection(TCPServer):
    """hypercorn's connection, whose HTTP/2 protocol is guarded (_guard)
    before it reads its client's first frame, and which ends when its
    client has closed it: hypercorn's keeps an HTTP/1.1 connection its
    client closed until its keep-alive timer runs out, where it would count
    against the client's connections.

    An HTTP/2 protocol is made at once (ALPN) or from the first bytes of a
    client that speaks HTTP/2 from the start; either way its first act is
    to send the server's preface, through protocol_send, before it handles
    the bytes that made it. Guarding it after that read would let through
    the streams that came with the client's preface (a rapid-reset burst's
    first 50, in tests/test_attacks.py)."""

    async def _read_data(self) -> None:
        # hypercorn.asyncio.tcp_server.TCPServer._read_data, with the guard and the end.
        while not self.reader.at_eof():
            try:
                data = await asyncio.wait_for(self.reader.read(MAX_RECV), self.config.read_timeout)
            except (ConnectionError, OSError, asyncio.TimeoutError, TimeoutError):
                break
            await self.protocol.handle(RawData(data))
        self.client_closed = True
        await self.protocol.handle(Closed())
        await self.idle_task.stop()

    async def protocol_send(self, event) -> None:
        served = self.protocol.protocol
        if isinstance(served, H2Protocol) and not getattr(served, "sudoku_guarded", False):
            _guard(served)
        # A connection that has gone idle after its client closed it is done
        # (hypercorn would restart its keep-alive timer here).
        if isinstance(event, Updated) and event.idle and getattr(self, "client_closed", False):
            await self._initiate_server_close()
            return
        await super().protocol_send(event)


class _Drained:
    """The application, with the rest of the body of each request it
    answers without reading it all read and dropped. hypercorn queues at
    most max_app_queue_size events of a request for the application and
    stops reading the whole connection while that queue is full; the
    response's end puts one more event there (the disconnect), from the
    application's own send, which then waits for ever. A request whose body
    nobody reads (an unknown path answered 404 at once) would stall its
    HTTP/2 connection, every other stream of it, and its end."""

    def __init__(self, app):
        self.app = app
        self.draining: set[asyncio.Task] = set()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = {"read": False}  # the body has been read to its end, or the client left

        async def watched_receive():
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                state["read"] = True
            return message

        async def draining_send(message) -> None:
            last = (message["type"] == "http.response.body" and not message.get("more_body", False)) or (
                message["type"] == "http.response.trailers" and not message.get("more_trailers", False))
            if last and not state["read"]:
                state["read"] = True
                task = asyncio.create_task(_drain(receive))
                self.draining.add(task)
                task.add_done_callback(self.draining.discard)
            await send(message)

        await self.app(scope, watched_receive, draining_send)


async def _drain(receive) -> None:
    """Takes a request's events until hypercorn's disconnect, which it sends once the response has ended."""
    while (await receive())["type"] != "http.disconnect":
        pass


class HttpServer:
    """`app` (ASGI) served on `sock` by hypercorn's protocols, with the
    guards of the module docstring."""

    def __init__(self, app, config: Config, sock: socket.socket, per_client: int):
        self.drained = _Drained(app)
        self.app = ASGIWrapper(self.drained)
        self.config = config
        self.sock = sock
        self.per_client = per_client
        self.context = WorkerContext(None)
        self.state: dict = {}
        self.by_client: collections.Counter[str] = collections.Counter()
        self.connections: dict[asyncio.Task, asyncio.StreamWriter] = {}
        self.server: asyncio.Server | None = None

    async def start(self) -> None:
        ssl = self.config.create_ssl_context()
        self.server = await asyncio.start_server(
            self._serve, sock=self.sock, ssl=ssl, backlog=self.config.backlog,
            ssl_handshake_timeout=self.config.ssl_handshake_timeout if ssl else None)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        client = peer[0] if isinstance(peer, tuple) else ""
        if self.by_client[client] >= self.per_client:
            metrics.HTTP_REFUSED.labels("connections").inc()
            writer.transport.abort()
            return
        self.by_client[client] += 1
        task = asyncio.current_task()
        self.connections[task] = writer
        try:
            await _Connection(self.app, asyncio.get_running_loop(), self.config, self.context, self.state, reader,
                              writer)
        except asyncio.CancelledError:
            # stop() cancels what is left after the grace. asyncio's stream
            # server asks a finished callback task for its exception, which a
            # cancelled task raises (and the loop logs), so this one ends normally.
            pass
        finally:
            del self.connections[task]
            self.by_client[client] -= 1
            if not self.by_client[client]:
                del self.by_client[client]

    async def stop(self, grace: float) -> None:
        """Stops taking connections; open ones get `grace` seconds to end
        (hypercorn's own graceful end: no new requests, HTTP/2 GOAWAY), then
        are closed. Returns within grace + CLOSE_S."""
        if self.server is not None:
            self.server.close()
        await self.context.terminated.set()
        pending = set(self.connections)
        if pending:
            _, pending = await asyncio.wait(pending, timeout=grace)
        for task in pending:
            writer = self.connections.get(task)
            if writer is not None:
                writer.transport.abort()
            task.cancel()
        if pending:
            _, left = await asyncio.wait(pending, timeout=CLOSE_S)
            if left:
                log.warning("%d HTTP connections did not close", len(left))
        for task in self.drained.draining:  # their connections are closed: nothing more comes
            task.cancel()
