"""Step positions: the engine's snapshot of a search, signed, and the key that signs them.

A position is what a client holds between Step calls (the proto's
StepRequest): the engine's snapshot of the search (stepper.h, SNAPSHOTS) in
an envelope,

    version (1 byte: 1) | key id (4 bytes) | snapshot | tag (16 bytes)

where tag is the first 16 bytes of HMAC-SHA256(key, version | key id |
snapshot) and the key id the first 4 bytes of SHA-256(key). The engine
checks every snapshot it resumes, but two things it cannot check: a step
count above its path's and the random tie-break's generator. Signed, the
service never takes a client's word for either, and a forged position is
refused before anything is queued.

Both sides use the key: the worker signs the position it ends at into the
reply it writes (the reply's bytes go to the client as they are), the
service opens the position of a request before queueing it. The key is
SUDOKU_POSITION_KEY where it is set (every sudoku-server and sudoku-worker
of a deployment must have the same), else a random key kept in Redis
(keys.POSITION_KEY): whoever looks first writes one (SET NX), and everyone
takes what is there. Each process writes the key it holds back when a
restarted Redis has lost it, so positions outlive a Redis restart, and keeps
the last KEPT_KEYS keys it used to open positions they signed. A position
under a key nobody has any more is PositionGone (NOT_FOUND), which names its
step: the client starts the same search again and skips to it.

Here: the envelope and the ring of keys, with no I/O; the service's
(asyncio) and the worker's (blocking) Redis reads are theirs
(service/streams/positions.py, worker/stepping.py), both `pipe.set(POSITION_KEY,
ring.candidate(), nx=True); pipe.get(POSITION_KEY)` then ring.adopt().
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import grpc

from sudoku.errors import CallError

VERSION = 1
ID_BYTES = 4
TAG_BYTES = 16
# The engine's snapshot sizes (stepper.h): a header, then 2 bytes a frame, 1-81 frames.
SNAPSHOT_MIN, SNAPSHOT_MAX = 62 + 2, 62 + 2 * 81
ENVELOPE = 1 + ID_BYTES + TAG_BYTES
POSITION_MAX = SNAPSHOT_MAX + ENVELOPE
REFRESH_S = 1.0  # how often, at most, the service reads the shared key again (a worker: every job)
KEPT_KEYS = 4  # keys a process still opens positions with, the current one among them
STEPS_AT = slice(11, 19)  # where a snapshot keeps its step count (little-endian)
ENV = "SUDOKU_POSITION_KEY"


class BadPosition(ValueError):
    """Bytes that are not a position made here, or a position altered; str() says so."""


class PositionGone(CallError):
    """A position signed under a key no longer known (or never known)."""

    code = grpc.StatusCode.NOT_FOUND

    def __init__(self, step: int):
        self.step = step
        super().__init__(
            "position: signed under a key this service no longer has (SUDOKU_POSITION_KEY changed, or the "
            "key kept in Redis went with a restart no service process outlived); start the search again "
            f"with its board and options and skip = {step} (at most GetLimits.max_step_skip a call), which "
            "reaches the same position"
        )


def key_id(key: bytes) -> bytes:
    return hashlib.sha256(key).digest()[:ID_BYTES]


def _tag(key: bytes, head: bytes, snapshot: bytes) -> bytes:
    return hmac.new(key, head + snapshot, hashlib.sha256).digest()[:TAG_BYTES]


def seal(key: bytes, snapshot: bytes) -> bytes:
    """The position of `snapshot`, signed with `key`."""
    head = bytes([VERSION]) + key_id(key)
    return head + snapshot + _tag(key, head, snapshot)


def signer(position: bytes) -> bytes:
    """The key id a position names (checked by unseal, not here)."""
    return position[1 : 1 + ID_BYTES]


def unseal(known: dict[bytes, bytes], position: bytes) -> bytes:
    """The snapshot inside `position`, if one of the `known` keys (by key id) signed it.

    Raises BadPosition for bytes that are not a position or were altered,
    and PositionGone for a position under a key not known.
    """
    size = len(position)
    if not SNAPSHOT_MIN + ENVELOPE <= size <= POSITION_MAX or position[0] != VERSION:
        raise BadPosition(f"position: {size} bytes that are not a position this service made; send the "
                          "position of the last StepReply as it came")
    head, snapshot, tag = position[: 1 + ID_BYTES], position[1 + ID_BYTES : -TAG_BYTES], position[-TAG_BYTES:]
    key = known.get(head[1:])
    if key is None:
        raise PositionGone(int.from_bytes(snapshot[STEPS_AT], "little"))
    if not hmac.compare_digest(tag, _tag(key, head, snapshot)):
        raise BadPosition("position: altered, or not made by this service; send the position of the last "
                          "StepReply as it came")
    return snapshot


class KeyRing:
    """The keys one process signs and opens positions with: the configured
    one, or the shared one of Redis and the few it had before."""

    def __init__(self, setting: str = ""):
        self.fixed = setting.encode() if setting else None
        self.known: dict[bytes, bytes] = {}  # key id -> key, oldest first
        self.current: bytes | None = None
        if self.fixed is not None:
            self.adopt(self.fixed)

    def candidate(self) -> bytes:
        """What to write to Redis if it has no key: the one in hand, else a new one."""
        return self.current or secrets.token_bytes(32)

    def adopt(self, key: bytes) -> None:
        ident = key_id(key)
        self.known.pop(ident, None)
        self.known[ident] = key
        while len(self.known) > KEPT_KEYS:
            del self.known[next(iter(self.known))]
        self.current = key
