"""sudoku/scripts.py: how a script call recovers, for the worker's blocking
calls and the service's asyncio ones alike. That the scripts write what
RQ writes is tests/test_lifecycle.py's and tests/test_enqueue.py's."""

from __future__ import annotations

import asyncio
import os
import signal
from contextlib import contextmanager

import pytest
from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from launcher.embedded_redis import EmbeddedRedis
from sudoku import keys
from sudoku.scripts import LOAD, RECONNECT, SOLVED_STREAM, HeldConnection, Recovery, Script, ScriptPool
from tests.stack import until, url_of

ECHO = Script("return ARGV[1]")
BOUND_S = 0.5  # the clients' socket timeout here


def on_pool(url: str, calls, **options):
    """`await calls(pool)` with a ScriptPool of one connection to `url`."""
    async def run():
        client = AsyncRedis.from_url(url, **options)
        pool = ScriptPool(client, slots=1)
        try:
            return await calls(pool)
        finally:
            await pool.close()
            await client.aclose()

    return asyncio.run(run())


@pytest.mark.parametrize("after_timeout", [False, True])
def test_a_lost_script_is_loaded_once_and_a_broken_connection_reconnected_once(after_timeout):
    recovery = Recovery(after_timeout)
    assert recovery.after(NoScriptError("NOSCRIPT")) == LOAD
    assert recovery.after(RedisConnectionError("gone")) == RECONNECT
    for again in (NoScriptError("NOSCRIPT"), RedisConnectionError("gone")):
        with pytest.raises(type(again)):
            recovery.after(again)


def test_a_timeout_is_tried_again_only_where_asked():
    with pytest.raises(RedisTimeoutError):
        Recovery(after_timeout=False).after(RedisTimeoutError("late"))
    worker = Recovery(after_timeout=True)
    assert worker.after(RedisTimeoutError("late")) == RECONNECT
    with pytest.raises(RedisConnectionError):  # one reconnection, whatever broke
        worker.after(RedisConnectionError("gone"))


def test_an_error_of_the_script_itself_is_not_tried_again():
    with pytest.raises(ResponseError):
        Recovery(after_timeout=True).after(ResponseError("OOM command not allowed"))


def test_both_callers_return_the_reply_and_reload_a_flushed_script(fresh_redis):
    redis = fresh_redis()
    held = HeldConnection(redis)
    try:
        assert held(ECHO, [], ["x"]) == b"x"  # never loaded: NOSCRIPT, loaded, called
        redis.script_flush()
        assert held(ECHO, [], [1.5]) == b"1.5"
    finally:
        held.close()

    async def calls(pool: ScriptPool) -> list:
        first = await pool(ECHO, [], ["y"])
        redis.script_flush()
        return [first, await pool(ECHO, ["k"], ["z"])]

    assert on_pool(url_of(redis), calls) == [b"y", b"z"]


def test_a_value_that_cannot_be_sent_is_redis_pys_data_error(fresh_redis):
    redis = fresh_redis()
    held = HeldConnection(redis)
    try:
        with pytest.raises(DataError):
            held(ECHO, [], [None])
    finally:
        held.close()

    with pytest.raises(DataError, match="NoneType"):
        on_pool(url_of(redis), lambda pool: pool(ECHO, [], [None]))


def test_a_stalled_redis_costs_the_service_one_try_and_a_worker_two():
    """Redis stopped (SIGSTOP) mid-call: the service's call gives up at its
    timeout without connecting again (a stalled Redis costs a caller one
    bound, sudoku/connections.py); a worker's call connects once more.
    Redis counts the connections it accepts, those that waited while it was
    stopped too."""
    server = EmbeddedRedis().start()
    observer = Redis.from_url(server.url)

    def connections() -> int:
        """Redis's count of the connections it has accepted."""
        return observer.info("stats")["total_connections_received"]

    @contextmanager
    def stopped():
        os.kill(server.proc.pid, signal.SIGSTOP)
        try:
            yield
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)

    async def service_call(pool: ScriptPool) -> int:
        await pool(ECHO, [], ["warm"])
        before = connections()
        with stopped(), pytest.raises(RedisTimeoutError):
            await pool(ECHO, [], ["late"])
        return connections() - before

    worker = Redis.from_url(server.url, socket_timeout=BOUND_S)
    held = HeldConnection(worker)
    try:
        held(ECHO, [], ["warm"])
        before = connections()
        with stopped(), pytest.raises(RedisTimeoutError):
            held(ECHO, [], ["late"])
        # After SIGCONT Redis may answer the observer before it accepts what
        # waited in its backlog: the worker's second try.
        until(lambda: connections() > before, "Redis accepted the worker's second connection", timeout=30)
        assert connections() - before == 1
        assert on_pool(server.url, service_call, socket_timeout=BOUND_S) == 0
        assert held(ECHO, [], ["again"]) == b"again"
    finally:
        held.close()
        worker.close()
        observer.close()
        server.stop()


def test_an_unwatched_solves_stream_is_kept_compact_or_as_written_where_dump_is_refused(fresh_redis):
    """SOLVED_STREAM dumps and restores the stream it writes, which stores
    it at its size; a Redis whose ACL refuses DUMP (or RESTORE) still gets
    the stream whole, with its expiry, only not compacted."""
    redis = fresh_redis()
    first, last = b"1" * 315, b"2" * 362

    def solved(job: str) -> str:
        stream = keys.frames(job)
        assert redis.eval(SOLVED_STREAM.source, 2, stream, "", first, last, 60, f"{job} print", keys.frames("")) == 1
        assert [fields[b"f"] for _, fields in redis.xrange(stream)] == [first, last]
        assert 0 < redis.ttl(stream) <= 60
        return stream

    assert redis.memory_usage(solved("compact")) < len(first) + len(last) + 1024
    for refused in ("-dump", "-restore"):
        redis.acl_setuser("default", enabled=True, nopass=True, commands=["+@all", refused], keys=["*"],
                          channels=["*"], reset=True)
        try:
            stream = solved(f"refused{refused}")
            assert redis.memory_usage(stream) > 4096  # as written: the node's room for 4 KB
        finally:
            redis.acl_setuser("default", enabled=True, nopass=True, commands=["+@all"], keys=["*"], channels=["*"],
                              reset=True)
