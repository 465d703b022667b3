"""Where the client connects and how: address, TLS, token, retries.

The address is the argument if given, else $SUDOKU_ADDR, else
localhost:50051. TLS is on when a CA file is given (the server's
certificate must chain to it). A bearer token, when given, is sent as
`authorization: Bearer <token>` metadata on every call, with or without
TLS; the server decides what to do with it.

Only UNAVAILABLE is retried: the proto says it alone is safe to retry (with
the same request_id, or by resuming with Watch). Retries are bounded and
back off exponentially with jitter, so a client never hammers a service
that is restarting.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

import grpc

from client.errors import SudokuError

DEFAULT_ADDRESS = "localhost:50051"
ADDRESS_ENV = "SUDOKU_ADDR"

# gRPC waits up to 120 s between reconnection attempts by default; a client
# resuming a watched search wants the restarted service within seconds.
CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
)

RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE})


def resolve_address(address: str | None = None) -> str:
    return address or os.environ.get(ADDRESS_ENV) or DEFAULT_ADDRESS


def credentials(ca_file: str | os.PathLike[str] | None) -> grpc.ChannelCredentials | None:
    """TLS credentials trusting the CA in `ca_file` (PEM); None for plaintext."""
    if ca_file is None:
        return None
    return grpc.ssl_channel_credentials(root_certificates=Path(ca_file).read_bytes())


def call_metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),) if token else ()


@dataclass(frozen=True)
class Retry:
    """How often and how patiently to retry UNAVAILABLE.

    `attempts` retries after the first try, waiting about base, 2*base,
    4*base, ... (at most `cap`) seconds, each randomised to 50-100% so that
    many clients dropped at once do not come back at once.
    """

    attempts: int = 5
    base: float = 0.1
    cap: float = 2.0

    def delay(self, attempt: int) -> float:
        return min(self.cap, self.base * 2**attempt) * random.uniform(0.5, 1.0)


class Deadline:
    """One deadline across every attempt of a call; None means no deadline."""

    def __init__(self, timeout: float | None):
        self.at = None if timeout is None else time.monotonic() + timeout

    def remaining(self) -> float | None:
        if self.at is None:
            return None
        left = self.at - time.monotonic()
        if left <= 0:
            raise SudokuError(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")
        return left

    def allows(self, delay: float) -> bool:
        return self.at is None or time.monotonic() + delay < self.at


def should_retry(code: grpc.StatusCode, attempt: int, retry: Retry, deadline: Deadline) -> float | None:
    """The delay before the next attempt, or None when an error with `code` is final."""
    if code not in RETRYABLE or attempt >= retry.attempts:
        return None
    delay = retry.delay(attempt)
    return delay if deadline.allows(delay) else None
