"""Where the client connects and how: address, TLS, token, retries.

The address is the argument if given, else $SUDOKU_ADDR, else
localhost:50051. It is any gRPC target, so a deployment of several service
instances is reached through one: `dns:///sudoku.internal:50051` (every
address the name resolves to) or `ipv4:10.0.0.5:50051,10.0.0.6:50051`. By
default gRPC sends every call to the first address that answers and moves
to the next when it goes away (`pick_first`); the `round_robin` policy
spreads calls over all of them. Any instance serves any call: a Watch or
Cancel may reach another instance than the Solve did. TLS is on when a CA
file is given (the server's certificate must chain to it). A bearer token, when given, is sent as
`authorization: Bearer <token>` metadata on every call, with or without
TLS; the server decides what to do with it.

Only UNAVAILABLE is retried: the proto says it alone is safe to retry (with
the same request_id, or by resuming with Watch). Retries are bounded and
back off exponentially with jitter, so a client never hammers a service
that is restarting.

The numbers come from the gRPC service config published beside the proto,
proto/sudoku/v1/sudoku_grpc_service_config.json (installed as
sudoku/v1/sudoku_grpc_service_config.json; docs/service-config.md): its
retry policy sets Retry's defaults and the codes retried, its timeout the
default deadline of unary calls. The channel gets the config's timeouts but
not its retry policy: this client retries by itself, because its retries
also resume a broken stream with Watch and a batch from its first
unanswered item, which gRPC's retries (only before a response has begun)
cannot; gRPC retrying too would multiply the attempts.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

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

SERVICE_CONFIG_FILE = "sudoku_grpc_service_config.json"


def load_service_config() -> dict[str, Any]:
    """The published gRPC service config (a JSON object)."""
    return json.loads(resources.files("sudoku.v1").joinpath(SERVICE_CONFIG_FILE).read_text())


def seconds(duration: str) -> float:
    """A service config duration ("0.1s") in seconds."""
    if not duration.endswith("s"):
        raise ValueError(f"{duration!r} is not a duration in seconds like '0.1s'")
    return float(duration[:-1])


SERVICE_CONFIG = load_service_config()
# The first entry names the whole service: the unary methods' settings.
_UNARY = SERVICE_CONFIG["methodConfig"][0]
RETRY_POLICY: dict[str, Any] = _UNARY["retryPolicy"]
RETRYABLE = frozenset(grpc.StatusCode[code] for code in RETRY_POLICY["retryableStatusCodes"])
UNARY_TIMEOUT = seconds(_UNARY["timeout"])
LOAD_BALANCING = ("pick_first", "round_robin")


def channel_service_config(load_balancing: str | None = None) -> str:
    """The service config the channel gets: the published one less its
    retry policies (this client retries by itself) and its timeouts (each
    call carries the deadline it was given, so `timeout=None` still means
    none), plus the load-balancing policy when one is asked for."""
    config: dict[str, Any] = {
        "methodConfig": [{k: v for k, v in entry.items() if k not in ("retryPolicy", "timeout")}
                         for entry in SERVICE_CONFIG["methodConfig"]],
    }
    if load_balancing:
        config["loadBalancingConfig"] = [{load_balancing: {}}]
    return json.dumps(config)


def channel_options(load_balancing: str | None = None,
                    extra: Sequence[tuple[str, Any]] = ()) -> list[tuple[str, Any]]:
    """The channel's options: ours, the service config, then the caller's."""
    options: list[tuple[str, Any]] = list(CHANNEL_OPTIONS)
    if load_balancing and load_balancing not in LOAD_BALANCING:
        raise ValueError(f"load_balancing: {load_balancing!r} is not one of {', '.join(LOAD_BALANCING)}")
    options.append(("grpc.service_config", channel_service_config(load_balancing)))
    return options + list(extra)


def open_channel(module: Any, address: str, creds: grpc.ChannelCredentials | None,
                 options: list[tuple[str, Any]]) -> Any:
    """A channel of `module` (grpc, or grpc.aio) to `address`, with TLS when `creds`."""
    if creds is None:
        return module.insecure_channel(address, options=options)
    return module.secure_channel(address, creds, options=options)


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
    many clients dropped at once do not come back at once. The defaults are
    the service config's retry policy: maxAttempts counts the first try,
    initialBackoff is `base`, maxBackoff `cap`, backoffMultiplier `multiplier`.
    """

    attempts: int = RETRY_POLICY["maxAttempts"] - 1
    base: float = seconds(RETRY_POLICY["initialBackoff"])
    cap: float = seconds(RETRY_POLICY["maxBackoff"])
    multiplier: float = RETRY_POLICY["backoffMultiplier"]

    def delay(self, attempt: int) -> float:
        return min(self.cap, self.base * self.multiplier**attempt) * random.uniform(0.5, 1.0)


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
