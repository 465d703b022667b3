"""The same sudoku.v1.Sudoku API for browsers, and the page that uses it.

A browser cannot speak gRPC (fetch gives no access to HTTP/2 trailers), so
sudoku-server also listens on SUDOKU_HTTP_LISTEN for the Connect protocol,
gRPC-Web and gRPC, over HTTP/1.1 and HTTP/2: connectrpc's ASGI application,
served by hypercorn in the service's own event loop. Every call goes to the
very SudokuServicer the gRPC port uses, so there is one implementation of
each RPC, with the same validation, frame budget, caches and metrics. The
token and the bound on concurrent calls are checked before a request is
read, as on the gRPC port; a request that does not parse reaches the
servicer as service.rpc.decoding's `Undecodable`, as on the gRPC port.

`GET /` is the page (service/http/static/), which plays a game and watches
solves through this API. Another origin's page (a web game elsewhere) may
call the API only when SUDOKU_HTTP_ORIGINS names it (CORS).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf.message_factory import GetMessageClass
from hypercorn.config import Config

from service.http import web_codecs
from service.http.http_server import HttpServer
from service.http.web_codecs import LenientJsonCodec, LenientProtoCodec
from service.rpc import decoding, metrics, security
from service.rpc.decoding import Undecodable
from sudoku.config import Settings
from sudoku.v1 import sudoku_pb2 as pb

log = logging.getLogger("sudoku.http")

SERVICE = pb.DESCRIPTOR.services_by_name["Sudoku"]

# The page and its scripts, served from the package (no build at run time).
STATIC = Path(__file__).parent / "static"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
# The page calls only its own origin and runs only its own scripts.
PAGE_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"cache-control", b"no-cache"),
]

# What a browser must be allowed to send and read for Connect and gRPC-Web
# calls (the headers connect-web and grpc-web use), plus our token.
CORS_ALLOW_HEADERS = (
    b"authorization, content-type, connect-protocol-version, connect-timeout-ms, connect-accept-encoding, "
    b"connect-content-encoding, grpc-timeout, x-grpc-web, x-user-agent"
)
CORS_EXPOSE_HEADERS = (
    b"grpc-status, grpc-message, grpc-status-details-bin, connect-content-encoding, connect-accept-encoding, "
    b"content-encoding"
)
CORS_MAX_AGE = b"7200"

_STREAM_TYPES = {
    (False, False): StreamType.UNARY,
    (True, False): StreamType.CLIENT_STREAM,
    (False, True): StreamType.SERVER_STREAM,
    (True, True): StreamType.BIDI_STREAM,
}
_RESPONSE_STREAMING = (StreamType.SERVER_STREAM, StreamType.BIDI_STREAM)


def method_infos() -> dict[str, MethodInfo]:
    """Every method of sudoku.v1.Sudoku as connectrpc describes it, by URL
    path. Read from the proto's descriptor, so an RPC added to the proto is
    served here as soon as the servicer has it."""
    infos = {}
    for method in SERVICE.methods:
        infos[f"/{SERVICE.full_name}/{method.name}"] = MethodInfo(
            name=method.name,
            service_name=SERVICE.full_name,
            input=GetMessageClass(method.input_type),
            output=GetMessageClass(method.output_type),
            idempotency_level=IdempotencyLevel.UNKNOWN,
            stream_type=_STREAM_TYPES[method.client_streaming, method.server_streaming],
        )
    return infos


# grpc.StatusCode -> connectrpc's Code: the same names but one.
_CODES = {status: Code[status.name] for status in grpc.StatusCode if status.name not in ("OK", "CANCELLED")}
_CODES[grpc.StatusCode.CANCELLED] = Code.CANCELED


class CallContext:
    """The part of grpc.aio's ServicerContext that SudokuServicer uses, for
    a call that came over HTTP: abort() ends the call with that status."""

    def __init__(self, ctx: RequestContext):
        self._ctx = ctx
        self.json = "json" in ctx.request_headers.get("content-type", "")

    async def abort(self, code: grpc.StatusCode, details: str = "") -> None:
        raise ConnectError(_CODES.get(code, Code.UNKNOWN), details)

    def done(self) -> bool:
        """Whether the call has ended (an HTTP client that leaves cancels the call's task instead)."""
        return False

    def peer(self) -> str:
        """The client connection (for its share of the frame budget), as grpc.aio names one."""
        return f"http:{self._ctx.client_address}"

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._ctx.request_headers.allitems())

    def time_remaining(self) -> float | None:
        remaining = self._ctx.timeout_ms
        return None if remaining is None else remaining / 1000


async def _parsed(request):
    # What decoding.LenientDecoding does for unary requests on the gRPC port.
    request = await web_codecs.resolve(request)
    if isinstance(request, Undecodable):
        raise ConnectError(_CODES[request.code], request.message)
    return request


async def _each_parsed(requests):
    """A request stream's items, a big JSON one parsed off the loop; a bad
    one goes to the servicer, which answers it in its place."""
    async for request in requests:
        yield await web_codecs.resolve(request)


async def _printed(replies, context: CallContext, output):
    """A reply stream's messages, a big one printed ahead off the loop for a
    JSON caller. Closing this closes the servicer's generator, whose finally
    blocks then run: the server closes it the moment the client goes away."""
    try:
        async for reply in replies:
            yield await web_codecs.printed(reply, context.json, output)
    finally:
        await replies.aclose()


def _endpoint(info: MethodInfo, handler, places: Places) -> Endpoint:
    """The servicer's method `handler` as connectrpc calls it: with a
    CallContext, big JSON parsed and printed off the loop, and a place of
    SUDOKU_MAX_CONCURRENT_RPCS taken once the request has arrived (a stream
    of requests: once the call starts)."""
    if info.stream_type is StreamType.UNARY:

        async def unary(request, ctx):
            context = CallContext(ctx)
            request = await _parsed(request)
            with places.taken():
                return await web_codecs.printed(await handler(request, context), context.json, info.output)

        return Endpoint.unary(info, unary)
    if info.stream_type is StreamType.SERVER_STREAM:

        async def server_stream(request, ctx):
            context = CallContext(ctx)
            request = await _parsed(request)
            with places.taken():
                replies = _printed(handler(request, context), context, info.output)
                async with contextlib.aclosing(replies) as stream:
                    async for reply in stream:
                        yield reply

        return Endpoint.server_stream(info, server_stream)
    if info.stream_type is StreamType.CLIENT_STREAM:

        async def client_stream(requests, ctx):
            context = CallContext(ctx)
            with places.taken():
                reply = await handler(_each_parsed(requests), context)
                return await web_codecs.printed(reply, context.json, info.output)

        return Endpoint.client_stream(info, client_stream)

    # A bad item of a request stream reaches the servicer, which answers it with its own error.
    async def bidi_stream(requests, ctx):
        context = CallContext(ctx)
        with places.taken():
            replies = _printed(handler(_each_parsed(requests), context), context, info.output)
            async with contextlib.aclosing(replies) as stream:
                async for reply in stream:
                    yield reply

    return Endpoint.bidi_stream(info, bidi_stream)


def _code_name(error: Exception | None) -> str:
    if error is None:
        return "OK"
    if isinstance(error, ConnectError):
        return "CANCELLED" if error.code is Code.CANCELED else error.code.name
    return "UNKNOWN"


class CallMetrics:
    """The gRPC port's metrics (service.rpc.metrics) for calls over HTTP: each
    call counted by its status code, open streams tracked."""

    async def on_start(self, ctx: RequestContext):
        streams = None
        if ctx.method.stream_type in _RESPONSE_STREAMING:
            streams = metrics.ACTIVE_STREAMS.labels(ctx.method.name)
            streams.inc()
        return streams

    async def on_end(self, streams, ctx: RequestContext, error: Exception | None) -> None:
        if streams is not None:
            streams.dec()
        metrics.REQUESTS.labels(SERVICE.full_name, ctx.method.name, _code_name(error)).inc()


class TokenCheck:
    """SUDOKU_AUTH_TOKEN on HTTP: the header `authorization: Bearer <token>`,
    judged by the gRPC port's own check (service.rpc.security)."""

    def __init__(self, token: str):
        self._check = security.TokenCheck(token)

    async def on_start(self, ctx: RequestContext) -> None:
        problem = self._check.problem(ctx.request_headers.allitems())
        if problem is not None:
            raise ConnectError(Code.UNAUTHENTICATED, problem)

    async def on_end(self, token, ctx: RequestContext, error: Exception | None) -> None:
        return


class Places:
    """SUDOKU_MAX_CONCURRENT_RPCS for the calls of this port: one more is
    refused at once, as grpc.aio refuses it on the gRPC port. A place is
    taken once a call's request has arrived, so requests still being sent
    (slowly, or never finished) hold none."""

    def __init__(self, limit: int):
        self.limit = limit
        self.active = 0

    @contextlib.contextmanager
    def taken(self):
        if self.active >= self.limit:
            raise ConnectError(
                Code.RESOURCE_EXHAUSTED,
                f"this instance is serving all the calls it takes at once ({self.limit}); retry later or elsewhere",
            )
        self.active += 1
        try:
            yield
        finally:
            self.active -= 1


class SudokuApplication(ConnectASGIApplication):
    """One method of sudoku.v1.Sudoku over Connect, gRPC-Web and gRPC,
    answered by `servicer`: one application per method, so that each reads
    (and inflates) at most its method's bound (service.rpc.decoding.request_bound)."""

    def __init__(self, servicer, settings: Settings, info: MethodInfo | None, interceptors: list, places: Places):
        path = f"/{SERVICE.full_name}/{info.name}" if info is not None else None
        super().__init__(
            service=servicer,
            endpoints=lambda service: ({path: _endpoint(info, getattr(service, info.name), places)} if info else {}),
            interceptors=interceptors,
            read_max_bytes=decoding.request_bound(info.name if info else "", settings.max_message_bytes),
            codecs=[LenientProtoCodec(), LenientJsonCodec(web_codecs.value_budgets(settings.max_chunk,
                                                                                   settings.max_grade_chunk))],
        )

    @property
    def path(self) -> str:
        return "/" + SERVICE.full_name


def applications(servicer, settings: Settings) -> tuple[dict[str, SudokuApplication], SudokuApplication]:
    """The application of each method by URL path, and one for every other
    path (which answers 404) and the lifespan."""
    # Metadata interceptors run before the request is read: a refused call
    # is counted, and its body never read.
    interceptors: list = [CallMetrics()]
    if settings.auth_token:
        interceptors.append(TokenCheck(settings.auth_token))
    places = Places(settings.max_concurrent_rpcs)
    apps = {path: SudokuApplication(servicer, settings, info, interceptors, places)
            for path, info in method_infos().items()}
    return apps, SudokuApplication(servicer, settings, None, interceptors, places)


def allowed_origins(setting: str) -> frozenset[str]:
    """SUDOKU_HTTP_ORIGINS as a set of origins ('*': any); ConfigError when
    an entry is not an origin (scheme://host[:port], nothing after)."""
    origins = set()
    for entry in setting.split(","):
        entry = entry.strip()
        if not entry:
            continue
        if entry != "*":
            parts = urlsplit(entry)
            if parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query or parts.fragment:
                raise security.ConfigError(
                    f"SUDOKU_HTTP_ORIGINS: {entry!r} is not an origin; write scheme://host[:port] "
                    "(e.g. https://game.example), comma-separated, or * for any"
                )
            entry = entry.lower()
        origins.add(entry)
    return frozenset(origins)


def check(settings: Settings) -> None:
    """Raises ConfigError for unusable HTTP settings (for startup)."""
    allowed_origins(settings.http_origins)
    if settings.http_listen:
        _host_port(settings.http_listen)


def _static_files() -> dict[str, tuple[bytes, bytes]]:
    """URL path -> (content type, bytes) of every file of the page."""
    files = {}
    for item in STATIC.iterdir():
        suffix = "." + item.name.rpartition(".")[2]
        if item.is_file() and suffix in CONTENT_TYPES:
            files["/static/" + item.name] = (CONTENT_TYPES[suffix].encode(), item.read_bytes())
    files["/"] = files["/static/index.html"]
    return files


class WebApplication:
    """The ASGI application of the HTTP port: the page's files, and the API
    with CORS for the origins allowed. What each request may take of the
    port is bounded here: a request no RPC can take is refused before
    connectrpc sees it (_refusal), its body must arrive in time (_Body), and
    a reply its client does not take for `idle_s` ends the call (_timed)."""

    def __init__(self, apis: tuple[dict[str, SudokuApplication], SudokuApplication], origins: frozenset[str],
                 idle_s: float):
        self.apis, self.api = apis
        self.origins = origins
        self.idle_s = idle_s
        self.files = _static_files()
        self.streaming = {path for path, info in method_infos().items()
                          if info.stream_type in (StreamType.CLIENT_STREAM, StreamType.BIDI_STREAM)}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self.api(scope, receive, send)
            return
        if scope["type"] != "http":  # a websocket: refused before it is accepted
            await receive()
            await send({"type": "websocket.close", "code": 1003})
            metrics.HTTP_REFUSED.labels("websocket").inc()
            return
        refusal = _refusal(scope)
        if refusal is not None:
            status, reason, text = refusal
            metrics.HTTP_REFUSED.labels(reason).inc()
            await _respond(send, status, [(b"content-type", b"text/plain; charset=utf-8")], text.encode() + b"\n")
            return
        origin = _header(scope, b"origin")
        allowed = origin is not None and ("*" in self.origins or origin.lower() in self.origins)
        page = self.files.get(scope["path"])
        if page is not None and scope["method"] in ("GET", "HEAD"):
            # An allowed origin may load the client (/static/api.js) as a module script, which needs CORS.
            reply = _with_cors(send, origin) if allowed else send
            await _respond(reply, 200, [(b"content-type", page[0]), *PAGE_HEADERS], page[1], scope["method"] == "HEAD")
            return
        if scope["method"] == "OPTIONS" and origin is not None:
            await self._preflight(send, origin, allowed)
            return
        if allowed:
            send = _with_cors(send, origin)
        receive = _Body(receive, scope["path"] in self.streaming)
        try:
            await self.apis.get(scope["path"], self.api)(scope, receive, _timed(send, self.idle_s))
        except IdleStream:
            pass  # the call has ended: its client reads nothing, so there is nobody to tell

    async def _preflight(self, send, origin: str, allowed: bool) -> None:
        if not allowed:
            # Without the headers the browser refuses the call: say why to whoever looks.
            body = b"origin not allowed; the service's SUDOKU_HTTP_ORIGINS must name it\n"
            await _respond(send, 403, [(b"content-type", b"text/plain; charset=utf-8"), (b"vary", b"origin")], body)
            return
        headers = [
            (b"access-control-allow-origin", origin.encode()),
            (b"access-control-allow-methods", b"GET, POST"),
            (b"access-control-allow-headers", CORS_ALLOW_HEADERS),
            (b"access-control-max-age", CORS_MAX_AGE),
            (b"vary", b"origin"),
        ]
        await _respond(send, 204, headers, b"")


# A request's body (a unary call's, or one message of a stream of requests)
# must arrive within BODY_S of its start, and a long message at
# MIN_BODY_RATE bytes a second at least; a stream may pause between messages.
BODY_S = 10.0
MIN_BODY_RATE = 64 * 1024


class _Body:
    """The request's receive(), timed: a body (or message) that does not
    arrive in time ends the call DEADLINE_EXCEEDED, so a client that sends
    part of a request holds the port no longer than BODY_S."""

    def __init__(self, receive, streaming: bool):
        self.receive = receive
        self.loop = asyncio.get_running_loop()
        self.streaming = streaming
        self.done = False
        self.deadline: float | None = None if streaming else self.loop.time() + BODY_S
        self.header = bytearray()  # of the message now arriving (streams of requests)
        self.remaining = 0  # bytes of its body still to come

    async def __call__(self):
        if self.done:
            return await self.receive()  # the body is in: what is left is the wait for a disconnect
        timeout = None if self.deadline is None else max(0.0, self.deadline - self.loop.time())
        try:
            async with asyncio.timeout(timeout):
                message = await self.receive()
        except TimeoutError:
            metrics.HTTP_REFUSED.labels("slow_body").inc()
            raise ConnectError(Code.DEADLINE_EXCEEDED, f"the request did not arrive within {BODY_S:g} s "
                               f"(at least {MIN_BODY_RATE // 1024} KiB/s for a long one); it was dropped") from None
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.done = True
        elif self.streaming:
            self._track(message.get("body", b""))
        return message

    def _track(self, data: bytes) -> None:
        """Follows the envelopes (5 bytes: flags, length) of a stream of
        requests: a deadline runs while a message is arriving, none between."""
        at = 0
        while at < len(data):
            if self.remaining:
                taken = min(self.remaining, len(data) - at)
                self.remaining -= taken
                at += taken
            else:
                if not self.header and self.deadline is None:
                    self.deadline = self.loop.time() + BODY_S
                taken = min(5 - len(self.header), len(data) - at)
                self.header += data[at : at + taken]
                at += taken
                if len(self.header) < 5:
                    continue
                self.remaining = int.from_bytes(self.header[1:5], "big")
                self.header.clear()
                self.deadline = self.loop.time() + max(BODY_S, self.remaining / MIN_BODY_RATE)
            if not self.remaining and not self.header:
                self.deadline = None


class IdleStream(ConnectError):
    """A reply stream its client took nothing of for the idle time."""


def _timed(send, idle_s: float):
    """The request's send(), where a part of a reply that the client does
    not take for `idle_s` (HTTP/2 flow control, or a full TCP buffer) ends
    the call, freeing its share of the frame budget, as on the
    gRPC port (service/rpc/admission.py IdleStreams); service/http/http_server.py
    then resets the stream."""

    async def timed(message) -> None:
        if message["type"] != "http.response.body":
            await send(message)
            return
        try:
            async with asyncio.timeout(idle_s):
                await send(message)
        except TimeoutError:
            metrics.HTTP_REFUSED.labels("idle_stream").inc()
            raise IdleStream(Code.UNAVAILABLE, f"the stream took no frame for {idle_s:g} s and was closed; "
                             "resume with Watch(job_id, after_seq)") from None

    return timed


def _refusal(scope) -> tuple[int, str, str] | None:
    """(HTTP status, metric reason, message) for a request no RPC can take,
    which connectrpc would meet with an exception (and a traceback in the log)."""
    for key, value in scope["headers"]:
        try:
            key.decode("utf-8"), value.decode("utf-8")
        except UnicodeDecodeError:
            return 400, "bad_header", f"header {key.decode('latin-1')!r}: its value is not UTF-8"
    content_type = _header(scope, b"content-type") or ""
    grpc = content_type.startswith("application/grpc") and not content_type.startswith("application/grpc-web")
    if grpc and scope.get("http_version") != "2":
        return (505, "http2_required", "gRPC needs HTTP/2; over HTTP/1.1 use the Connect protocol "
                "(application/proto, application/json) or gRPC-Web (application/grpc-web+proto)")
    return None


def _header(scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


def _with_cors(send, origin: str):
    async def send_with_cors(message) -> None:
        if message["type"] == "http.response.start":
            message = dict(message)
            message["headers"] = [
                *message.get("headers", ()),
                (b"access-control-allow-origin", origin.encode("latin-1")),
                (b"access-control-expose-headers", CORS_EXPOSE_HEADERS),
                (b"vary", b"origin"),
            ]
        await send(message)

    return send_with_cors


async def _respond(send, status: int, headers, body: bytes, head: bool = False) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


def _host_port(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise security.ConfigError(f"SUDOKU_HTTP_LISTEN: {listen!r} is not host:port (e.g. 127.0.0.1:8080)")
    return host.strip("[]"), int(port)


def _listening_socket(listen: str) -> socket.socket:
    host, port = _host_port(listen)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(1024)
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {listen} for HTTP (SUDOKU_HTTP_LISTEN): {exc.strerror or exc}") from None
    return sock


@dataclass
class WebServer:
    """The HTTP port, running in the service's event loop."""

    host: str
    port: int
    scheme: str
    server: HttpServer

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}/"

    async def stop(self, grace: float) -> None:
        """Stops taking connections; open calls get `grace` seconds to end, then their connections are closed."""
        await self.server.stop(grace)


# A TLS handshake not done in this long is dropped (hypercorn's default is a minute).
TLS_HANDSHAKE_S = 10


async def start(settings: Settings, servicer) -> WebServer:
    """Serves `servicer` and the page on settings.http_listen."""
    check(settings)
    app = WebApplication(applications(servicer, settings), allowed_origins(settings.http_origins),
                         settings.stream_idle_s)
    sock = _listening_socket(settings.http_listen)
    host, port = sock.getsockname()[:2]
    config = Config()
    config.h2_max_concurrent_streams = settings.max_streams_per_connection
    config.include_server_header = False
    config.errorlog = log
    config.ssl_handshake_timeout = TLS_HANDSHAKE_S
    if settings.tls_cert:
        config.certfile, config.keyfile = settings.tls_cert, settings.tls_key
    server = HttpServer(app, config, sock, settings.http_connections_per_client)
    try:
        await server.start()
    except BaseException:
        sock.close()
        raise
    return WebServer(host, port, "https" if settings.tls_cert else "http", server)
