"""Redis's whole state, in a form two runs can be compared in: what RQ's
own code wrote against what ours wrote (tests/test_lifecycle.py,
tests/test_enqueue.py).

Every key is compared by its type, its contents, and its time to live;
sorted sets with their scores. What differs between any two runs is masked:
timestamps in hashes, execution ids (new in every run), the process's
details. Times to live, and scores that are times (a registry's expiry),
are compared within SLACK_S, as seconds from the moment the state was read:
the two runs happen one after the other, so the same expiry is a few
milliseconds apart, while a wrong one is minutes apart.
"""

from __future__ import annotations

import math
import re
import time
import zlib

from redis import Redis

VARYING_FIELDS = {
    b"created_at", b"enqueued_at", b"started_at", b"ended_at", b"last_heartbeat", b"birth", b"death",
    b"execution_started_at", b"execution_ended_at", b"total_working_time", b"pid", b"hostname",
    b"ip_address", b"execution_id", b"id",
}
UUID = re.compile(rb"[0-9a-f]{32}")
SLACK_S = 3.0
# A score above this is a Unix time (RQ's registries score by expiry).
TIMES_AFTER = 1e9


class About:
    """Seconds from now, equal to another within SLACK_S."""

    __slots__ = ("seconds",)
    __hash__ = None

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __eq__(self, other: object) -> bool:
        return isinstance(other, About) and abs(self.seconds - other.seconds) <= SLACK_S

    def __repr__(self) -> str:
        return f"About({self.seconds:.1f})"


def look(redis: Redis, exclude: frozenset[bytes] = frozenset()) -> dict:
    """Every key's type, contents and time to live (-1: none), with what
    varies between runs masked."""
    now = time.time()
    state = {}
    for key in sorted(set(redis.keys("*")) - exclude):
        kind = redis.type(key).decode()
        if kind == "hash":
            value = _fields(redis.hgetall(key))
        elif kind == "zset":
            value = sorted(((_mask(m), _score(s, now)) for m, s in redis.zrange(key, 0, -1, withscores=True)),
                           key=lambda member: member[0])
        elif kind == "set":
            value = sorted(_mask(m) for m in redis.smembers(key))
        elif kind == "list":
            value = redis.lrange(key, 0, -1)
        elif kind == "stream":
            value = [_fields(entry) for _, entry in redis.xrange(key)]
        else:
            value = redis.get(key)
        ttl = redis.pttl(key)
        state[_mask(key)] = (kind, value, About(ttl / 1000) if ttl > 0 else ttl)
    return state


def _fields(stored: dict[bytes, bytes]) -> dict[bytes, bytes]:
    masked = {f: (b"?" if f in VARYING_FIELDS else v) for f, v in stored.items()}
    if b"data" in masked:
        # A job's call, compressed alike but not byte for byte
        # (service.jobs.enqueue.compress): compared as what RQ reads.
        masked[b"data"] = zlib.decompress(masked[b"data"])
    return masked


def _score(score: float, now: float) -> float | About:
    return About(score - now) if math.isfinite(score) and score > TIMES_AFTER else score


def _mask(name: bytes) -> bytes:
    """Execution ids (in keys and members) are new in every run; the tests'
    job ids are not 32 hex digits, so they stay."""
    return UUID.sub(b"<execution>", name)
