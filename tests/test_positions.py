"""Step positions (sudoku/positions.py, service/streams/positions.py and the
worker's signing key in worker/stepping.py): signed snapshots, and the key
that signs them, shared through a real Redis by every process on it."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis as AsyncRedis

from launcher import main as launcher
from service.rpc.validate import Invalid
from service.streams import positions as service_positions
from service.streams.positions import Positions
from sudoku import keys, positions
from sudoku.config import Settings
from sudoku.engine import Stepper
from sudoku.positions import BadPosition, KeyRing, PositionGone, seal, unseal
from tests.puzzles import puzzles
from worker import stepping

HARD = puzzles("norvig_hardest")[0]


def snapshot(steps: int = 100) -> bytes:
    stepper = Stepper(HARD, strategy="naive")
    stepper.skip(steps)
    return stepper.export()


def run(coro):
    return asyncio.run(coro)


@pytest.fixture
def fresh_client(fresh_redis):
    """A Redis of the test's own (the position key is global to a Redis): a client of it."""
    return fresh_redis()


@pytest.fixture
def fresh(fresh_client):
    """The URL of that Redis."""
    return f"unix://{fresh_client.connection_pool.connection_kwargs['path']}"


@pytest.fixture
def worker_ring(monkeypatch):
    """The worker's ring of keys, new for the test (it is one per worker process)."""
    monkeypatch.setattr(stepping, "_RING", KeyRing())
    monkeypatch.setattr(stepping, "_LOOKED_BY", None)
    return stepping


def test_a_position_opens_to_its_snapshot_under_its_key_only():
    data = snapshot()
    position = seal(b"k1", data)
    assert len(position) == len(data) + positions.ENVELOPE and len(seal(b"k1", snapshot(600_000))) <= 256
    assert unseal({positions.key_id(b"k1"): b"k1"}, position) == data
    with pytest.raises(PositionGone) as gone:
        unseal({positions.key_id(b"k2"): b"k2"}, position)
    assert gone.value.step == 100 and "skip = 100" in str(gone.value)


def test_every_bit_flipped_is_refused():
    position = seal(b"k1", snapshot())
    known = {positions.key_id(b"k1"): b"k1"}
    for offset in range(len(position)):
        for bit in range(8):
            changed = bytearray(position)
            changed[offset] ^= 1 << bit
            with pytest.raises((BadPosition, PositionGone)):
                unseal(known, bytes(changed))


def test_sizes_a_snapshot_cannot_have_are_refused_before_any_key_is_looked_up():
    for size in (0, 1, 20, 21 + 63, positions.POSITION_MAX + 1, 10_000):
        with pytest.raises(BadPosition, match=f"position: {size} bytes that are not a position"):
            unseal({}, b"\x01" * size)


def test_a_ring_keeps_its_last_few_keys():
    ring = KeyRing()
    first = ring.candidate()
    assert len(first) == 32 and ring.candidate() != first  # nothing in hand: a new one each time
    for n in range(positions.KEPT_KEYS + 1):
        ring.adopt(f"key {n}".encode())
    assert ring.current == f"key {positions.KEPT_KEYS}".encode() and ring.candidate() == ring.current
    assert positions.key_id(b"key 0") not in ring.known and len(ring.known) == positions.KEPT_KEYS


def test_what_a_worker_signs_the_service_opens(fresh, fresh_client, worker_ring):
    async def main():
        redis = AsyncRedis.from_url(fresh)
        try:
            key = worker_ring.signing_key(fresh_client, "job-1")  # the first to look: it writes the key
            assert await Positions(redis).unseal(seal(key, snapshot())) == snapshot()
            assert await redis.get(keys.POSITION_KEY) == key
        finally:
            await redis.aclose()

    run(main())


def test_a_worker_reads_the_key_once_a_job(fresh_client, worker_ring):
    client = fresh_client
    key = worker_ring.signing_key(client, "job-1")
    client.set(keys.POSITION_KEY, b"another key")
    assert worker_ring.signing_key(client, "job-1") == key  # the same job: not read again
    assert worker_ring.signing_key(client, "job-2") == b"another key"


def test_a_redis_that_restarted_empty_gets_the_key_back(fresh, fresh_client, worker_ring):
    client = fresh_client
    key = worker_ring.signing_key(client, "job-1")
    position = seal(key, snapshot())
    client.flushall()  # what an embedded Redis restarted is
    assert worker_ring.signing_key(client, "job-2") == key  # the worker wrote its key back

    async def main():
        redis = AsyncRedis.from_url(fresh)
        try:
            assert await Positions(redis).unseal(position) == snapshot()  # a newcomer opens the old position
        finally:
            await redis.aclose()

    run(main())


def test_a_key_taken_since_is_looked_up_before_a_position_is_said_gone(fresh, fresh_client, worker_ring,
                                                                        monkeypatch):
    monkeypatch.setattr(service_positions, "UNKNOWN_LOOK_S", 0.0)

    async def main():
        redis = AsyncRedis.from_url(fresh)
        try:
            service = Positions(redis)
            old = seal(await service.key(), snapshot())
            await redis.set(keys.POSITION_KEY, b"a key a worker took")
            new = seal(worker_ring.signing_key(fresh_client, "job-1"), snapshot(5))
            assert new[1:5] == positions.key_id(b"a key a worker took")
            assert await service.unseal(new) == snapshot(5)  # looked again: it knows the new key now
            assert await service.unseal(old) == snapshot()  # and still the one before
            with pytest.raises(PositionGone):
                await service.unseal(seal(b"a key nobody has", snapshot()))
            with pytest.raises(Invalid, match="position: altered"):
                await service.unseal(old[:-1] + bytes([old[-1] ^ 1]))
        finally:
            await redis.aclose()

    run(main())


def test_redis_away_the_key_in_hand_goes_on(fresh, monkeypatch):
    monkeypatch.setattr(positions, "REFRESH_S", 0.0)

    async def main():
        redis = AsyncRedis.from_url(fresh)
        service = Positions(redis)
        position = seal(await service.key(), snapshot())
        await redis.aclose()
        service._redis = AsyncRedis.from_url("unix:///nonexistent/redis.sock")
        try:
            assert await service.unseal(position) == snapshot()
        finally:
            await service._redis.aclose()

    run(main())


def test_a_configured_key_never_touches_redis(monkeypatch):
    monkeypatch.setattr(stepping, "_RING", KeyRing("a deployment's secret"))
    assert stepping.signing_key(None, "job-1") == b"a deployment's secret"

    async def main():
        away = AsyncRedis.from_url("unix:///nonexistent/redis.sock")
        try:
            configured = Positions(away, "a deployment's secret")
            assert await configured.unseal(seal(b"a deployment's secret", snapshot())) == snapshot()
        finally:
            await away.aclose()

    run(main())


def test_sudoku_server_gives_its_workers_the_key_and_keeps_it_out_of_repr():
    settings = Settings.from_env({}, position_key="secret-key")
    assert launcher.worker_env(settings)["SUDOKU_POSITION_KEY"] == "secret-key"
    assert "SUDOKU_POSITION_KEY" not in launcher.worker_env(Settings.from_env({}))
    assert "secret-key" not in repr(settings)
