"""The errors a call can end with, each carrying its own status.

An exception that a client should see as a status derives from CallError
and says which (`code`, a grpc.StatusCode) and what to tell the client
(`details()`, str() by default). The servicer's one wrapper
(service/rpc/server.py statuses) turns any of them into that status, on
both ports (the HTTP port maps the same codes to Connect's); what is left
there are the failures of what we call (Redis, the network).
"""

from __future__ import annotations

import grpc


class CallError(Exception):
    """An error that ends a call with `code`, telling the client `details()`."""

    code: grpc.StatusCode = grpc.StatusCode.INTERNAL

    def details(self) -> str:
        return str(self)


class Unavailable(CallError):
    """A failure the client should retry, with a message saying why."""

    code = grpc.StatusCode.UNAVAILABLE


class Exhausted(CallError):
    """A bound the call ran into: retry later, or with less."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED
