"""The same sudoku.v1.Sudoku API for browsers, and the page that uses it.

A browser cannot speak gRPC (fetch gives no access to HTTP/2 trailers), so
sudoku-server also listens on SUDOKU_HTTP_LISTEN for the Connect protocol,
gRPC-Web and gRPC, over HTTP/1.1 and HTTP/2: connectrpc's ASGI application,
served by hypercorn in the service's own event loop. Every call goes to the
very SudokuServicer the gRPC port uses, so there is one implementation of
each RPC, with the same validation, frame budget, caches and metrics. The
token and the bound on concurrent calls are checked before a request is
read, as on the gRPC port; a request that does not parse reaches the
servicer as service.decoding's `Undecodable`, as on the gRPC port.

`GET /` is the page (service/static/), which plays a game and watches
solves through this API. Another origin's page (a web game elsewhere) may
call the API only when SUDOKU_HTTP_ORIGINS names it (CORS).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import grpc
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf.message_factory import GetMessageClass
from hypercorn.asyncio import serve
from hypercorn.config import Config

from service import decoding, metrics, security
from service.config import Settings
from service.decoding import Undecodable
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

    async def abort(self, code: grpc.StatusCode, details: str = "") -> None:
        raise ConnectError(_CODES.get(code, Code.UNKNOWN), details)

    def done(self) -> bool:
        """Whether the call has ended (an HTTP client that leaves cancels the call's task instead)."""
        return False

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._ctx.request_headers.allitems())

    def time_remaining(self) -> float | None:
        remaining = self._ctx.timeout_ms
        return None if remaining is None else remaining / 1000


def _parsed(request):
    # What decoding.LenientDecoding does for unary requests on the gRPC port.
    if isinstance(request, Undecodable):
        raise ConnectError(Code.INVALID_ARGUMENT, request.message)
    return request


def endpoints(servicer) -> dict[str, Endpoint]:
    """Each method's endpoint: the servicer's own method, called with a CallContext."""
    found = {}
    for path, info in method_infos().items():
        handler = getattr(servicer, info.name)
        found[path] = _endpoint(info, handler)
    return found


def _endpoint(info: MethodInfo, handler) -> Endpoint:
    if info.stream_type is StreamType.UNARY:

        async def unary(request, ctx):
            return await handler(_parsed(request), CallContext(ctx))

        return Endpoint.unary(info, unary)
    if info.stream_type is StreamType.SERVER_STREAM:
        # The servicer's own generator is returned, so that the server closes
        # it (and its finally blocks run) the moment the client goes away.
        return Endpoint.server_stream(info, lambda request, ctx: handler(_parsed(request), CallContext(ctx)))
    if info.stream_type is StreamType.CLIENT_STREAM:

        async def client_stream(requests, ctx):
            return await handler(requests, CallContext(ctx))

        return Endpoint.client_stream(info, client_stream)
    # A bad item of a request stream reaches the servicer, which answers it with its own error.
    return Endpoint.bidi_stream(info, lambda requests, ctx: handler(requests, CallContext(ctx)))


class LenientProtoCodec:
    """Protobuf's binary format through google.protobuf, parsed as the gRPC
    port parses it (service.decoding): bytes that are not a message become
    `Undecodable`, naming the field that is not UTF-8."""

    def __init__(self) -> None:
        self._codec = google_protobuf_binary_codec()
        self._parsers = {}

    def name(self) -> str:
        return self._codec.name()

    def encode(self, message) -> bytes:
        return self._codec.encode(message)

    def decode(self, data, message_class):
        parse = self._parsers.get(message_class)
        if parse is None:
            parse = self._parsers[message_class] = decoding.lenient(message_class.FromString, message_class.DESCRIPTOR)
        return parse(bytes(data))


def _code_name(error: Exception | None) -> str:
    if error is None:
        return "OK"
    if isinstance(error, ConnectError):
        return "CANCELLED" if error.code is Code.CANCELED else error.code.name
    return "UNKNOWN"


class CallMetrics:
    """The gRPC port's metrics (service.metrics) for calls over HTTP: each
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
    judged by the gRPC port's own check (service.security)."""

    def __init__(self, token: str):
        self._check = security.TokenCheck(token)

    async def on_start(self, ctx: RequestContext) -> None:
        problem = self._check.problem(ctx.request_headers.allitems())
        if problem is not None:
            raise ConnectError(Code.UNAUTHENTICATED, problem)

    async def on_end(self, token, ctx: RequestContext, error: Exception | None) -> None:
        return


class ConcurrencyLimit:
    """SUDOKU_MAX_CONCURRENT_RPCS for the calls of this port: one more is
    refused at once, as grpc.aio refuses it on the gRPC port."""

    def __init__(self, limit: int):
        self.limit = limit
        self.active = 0

    async def on_start(self, ctx: RequestContext) -> None:
        if self.active >= self.limit:
            raise ConnectError(
                Code.RESOURCE_EXHAUSTED,
                f"this instance is serving all the calls it takes at once ({self.limit}); retry later or elsewhere",
            )
        self.active += 1

    async def on_end(self, token, ctx: RequestContext, error: Exception | None) -> None:
        self.active -= 1


class SudokuApplication(ConnectASGIApplication):
    """sudoku.v1.Sudoku over Connect, gRPC-Web and gRPC, answered by `servicer`."""

    def __init__(self, servicer, settings: Settings):
        # Metadata interceptors listed first run before the request is read:
        # a refused call is counted, and its body never parsed.
        interceptors = [CallMetrics()]
        if settings.auth_token:
            interceptors.append(TokenCheck(settings.auth_token))
        interceptors.append(ConcurrencyLimit(settings.max_concurrent_rpcs))
        super().__init__(
            service=servicer,
            endpoints=endpoints,
            interceptors=interceptors,
            read_max_bytes=settings.max_message_bytes,
            codecs=[LenientProtoCodec(), google_protobuf_json_codec()],
        )

    @property
    def path(self) -> str:
        return "/" + SERVICE.full_name


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
    with CORS for the origins allowed."""

    def __init__(self, api: SudokuApplication, origins: frozenset[str]):
        self.api = api
        self.origins = origins
        self.files = _static_files()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.api(scope, receive, send)  # lifespan
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
        await self.api(scope, receive, send)

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
    task: asyncio.Task
    stopping: asyncio.Event

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}/"

    async def stop(self) -> None:
        """Stops taking connections; open calls get hypercorn's graceful timeout to end."""
        self.stopping.set()
        await self.task


async def start(settings: Settings, servicer) -> WebServer:
    """Serves `servicer` and the page on settings.http_listen."""
    check(settings)
    app = WebApplication(SudokuApplication(servicer, settings), allowed_origins(settings.http_origins))
    sock = _listening_socket(settings.http_listen)
    host, port = sock.getsockname()[:2]
    config = Config()
    # hypercorn takes the socket over by its descriptor; detached, only it closes the socket.
    config.bind = [f"fd://{sock.detach()}"]
    config.h2_max_concurrent_streams = settings.max_streams_per_connection
    config.include_server_header = False
    config.errorlog = log
    config.graceful_timeout = 5.0
    if settings.tls_cert:
        config.certfile, config.keyfile = settings.tls_cert, settings.tls_key
    stopping = asyncio.Event()
    task = asyncio.create_task(serve(app, config, shutdown_trigger=stopping.wait), name="http")
    return WebServer(host, port, "https" if settings.tls_cert else "http", task, stopping)
