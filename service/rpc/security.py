"""Who may talk to the service: TLS for the channel, a shared token for calls.

Both are off by default (the service listens on loopback). With
`tls_cert` and `tls_key` (PEM files) the gRPC server speaks only TLS. With
`auth_token` every call must carry the metadata `authorization: Bearer
<token>`, except grpc.health.v1.Health/Check, which load balancers probe
without credentials; any other call without it ends UNAUTHENTICATED before
its request is even parsed. Health's Watch needs the token: it is a stream
that stays open, and unauthenticated streams would take the places of
SUDOKU_MAX_CONCURRENT_RPCS that authenticated calls need; a Check ends at
once.

A token is a secret: no message, log line or repr here contains one
(Settings keeps it out of its repr), and it is compared in constant time so
the time a wrong guess takes says nothing about the right one.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

import grpc

from service.rpc import handlers
from sudoku.config import Settings

# The one method a call without the token may use.
EXEMPT = "/grpc.health.v1.Health/Check"
SCHEME = "bearer "


class ConfigError(ValueError):
    """A security setting cannot be used; the message says which and why."""


def check(settings: Settings) -> None:
    """Raises ConfigError for unusable TLS or token settings (for startup)."""
    server_credentials(settings)
    _check_token(settings.auth_token)


def server_credentials(settings: Settings) -> grpc.ServerCredentials | None:
    """TLS credentials from the certificate and key files; None for plaintext."""
    if bool(settings.tls_cert) != bool(settings.tls_key):
        given = "SUDOKU_TLS_CERT" if settings.tls_cert else "SUDOKU_TLS_KEY"
        raise ConfigError(
            f"SUDOKU_TLS_CERT and SUDOKU_TLS_KEY go together: set both (TLS) or neither (plaintext); only {given} is set"
        )
    if not settings.tls_cert:
        return None
    cert = _read_pem("SUDOKU_TLS_CERT", settings.tls_cert)
    key = _read_pem("SUDOKU_TLS_KEY", settings.tls_key)
    return grpc.ssl_server_credentials([(key, cert)])


def _read_pem(setting: str, path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ConfigError(f"{setting}: cannot read {path!r}: {exc.strerror}") from None
    if b"-----BEGIN " not in data:
        raise ConfigError(f"{setting}: {path!r} is not a PEM file (no '-----BEGIN' line)")
    return data


def add_port(server: grpc.aio.Server, settings: Settings) -> int:
    """Binds settings.listen with TLS or in plaintext; returns the port (0: failed)."""
    credentials = server_credentials(settings)
    if credentials is None:
        return server.add_insecure_port(settings.listen)
    return server.add_secure_port(settings.listen, credentials)


def interceptors(settings: Settings) -> list[grpc.aio.ServerInterceptor]:
    """The server interceptors these settings call for (none without a token)."""
    _check_token(settings.auth_token)
    return [TokenCheck(settings.auth_token)] if settings.auth_token else []


def _check_token(token: str) -> None:
    # gRPC metadata values are printable ASCII; a token a client cannot send
    # would lock every client out, so say so at startup.
    if token and not all("!" <= ch <= "~" for ch in token):
        raise ConfigError("SUDOKU_AUTH_TOKEN: use printable ASCII without spaces (it travels as gRPC metadata)")


class TokenCheck(grpc.aio.ServerInterceptor):
    """Refuses calls without `authorization: Bearer <token>` (health Check exempt)."""

    def __init__(self, token: str):
        self._expected = token.encode()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler | None]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(details)
        if handler is None or details.method == EXEMPT:
            return handler
        problem = self.problem(details.invocation_metadata or ())
        if problem is None:
            return handler
        return refusal(handler, grpc.StatusCode.UNAUTHENTICATED, problem)

    def problem(self, metadata) -> str | None:
        """What is wrong with the call's credentials, None when they are good."""
        values = [value for key, value in metadata if key == "authorization"]
        if not values:
            return "missing metadata 'authorization: Bearer <token>'; this server requires a token"
        if len(values) > 1:
            return "metadata 'authorization' sent more than once; send it once"
        value = values[0]
        if isinstance(value, bytes) or value[: len(SCHEME)].lower() != SCHEME:
            return "metadata 'authorization' must be 'Bearer <token>'"
        # The received token is never put into a message: only the verdict is.
        if not hmac.compare_digest(value[len(SCHEME) :].strip().encode(), self._expected):
            return "the bearer token in metadata 'authorization' is not valid"
        return None


def refusal(handler: grpc.RpcMethodHandler, code: grpc.StatusCode, message: str) -> grpc.RpcMethodHandler:
    """A handler of the same shape as `handler` that only ends the call.

    It takes the request as raw bytes: an unauthenticated caller's message
    is never parsed.
    """

    async def refuse(request_or_iterator, context: grpc.aio.ServicerContext):
        await context.abort(code, message)

    return handlers.like(handler, refuse, request_deserializer=None)
