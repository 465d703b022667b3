"""The client's stepped searches (client/stepping.py) against the real stack,
blocking and asyncio: step, run, play, goto on one search, its drawing the
reference stepper's, and a search whose position the service lost (it
restarted with another key) brought back to its step by itself."""

from __future__ import annotations

import asyncio
import logging

import grpc
import pytest

from client import AsyncClient, Client, SudokuError
from client.stepping import StepSearch
from sudoku import keys
from sudoku.engine import Stepper
from sudoku.v1 import sudoku_pb2 as pb
from tests.puzzles import WIKIPEDIA, is_completion, puzzles
from worker import reference

HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps


def matches(search, python: reference.Stepper) -> None:
    drawing = search.drawing
    c = drawing.counters
    assert (drawing.text, drawing.cursor, c.steps, c.placements, c.retractions) == (
        python.board, python.cursor, python.steps, python.placements, python.retractions)
    assert search.at == python.steps


class Blocking:
    """The blocking client, driven the way the asyncio one is awaited."""

    def __init__(self, address: str):
        self.client = Client(address, timeout=60)

    def search(self, *args, **kwargs):
        return self.client.search(*args, **kwargs)

    async def call(self, value):
        return value

    async def close(self):
        self.client.close()


class Awaited:
    def __init__(self, address: str):
        self.client = AsyncClient(address, timeout=60)

    def search(self, *args, **kwargs):
        return self.client.search(*args, **kwargs)

    async def call(self, value):
        return await value

    async def close(self):
        await self.client.close()


DRIVERS = {"sync": Blocking, "asyncio": Awaited}


@pytest.mark.parametrize("driver", DRIVERS)
def test_step_run_play_and_goto_on_one_search(service, driver):
    async def main():
        side = DRIVERS[driver](service.address)
        try:
            for strategy in ("naive", "mrv"):
                search = side.search(HARD, strategy=strategy)
                python = reference.Stepper(HARD, strategy=strategy)
                for _ in range(30):
                    await side.call(search.step())
                    python.run(1)
                    matches(search, python)
                replies = await side.call(search.run(25_000 if strategy == "naive" else 1_000))
                python.skip(25_000 if strategy == "naive" else 1_000)
                matches(search, python)
                if strategy == "naive":
                    assert len(replies) == 3  # 10,000 a call at most
                if driver == "sync":
                    last = list(search.play(50_000))[-1]
                else:
                    last = [reply async for reply in search.play(50_000)][-1]
                whole = Stepper(HARD, strategy=strategy)
                whole.skip(10**9)
                assert last.outcome == pb.SOLVED and search.done and search.drawing.text == whole.solution
                assert search.drawing.counters.steps == whole.steps and is_completion(HARD, whole.solution)
                await side.call(search.goto(600 if strategy == "mrv" else 600_000))  # behind: from the start again
                back = Stepper(HARD, strategy=strategy)
                back.skip(600 if strategy == "mrv" else 600_000)
                assert search.drawing.text == back.board and search.at == back.steps and not search.done
        finally:
            await side.close()

    asyncio.run(main())


def test_each_step_of_a_run_is_shown(client_of_service):
    search = client_of_service.search(WIKIPEDIA, strategy="naive")
    python = reference.Stepper(WIKIPEDIA, strategy="naive")
    seen = []

    def each(drawing):
        python.run(1)
        seen.append((drawing.text, drawing.cursor, drawing.counters.steps))
        assert (drawing.text, drawing.cursor, drawing.counters.steps) == (python.board, python.cursor, python.steps)

    search.run(300, each=each)
    assert len(seen) == 300


@pytest.fixture
def client_of_service(service):
    with Client(service.address, timeout=60) as client:
        yield client


def test_errors_are_sudoku_errors(client_of_service):
    with pytest.raises(SudokuError) as err:
        client_of_service.search("x" * 81).step()
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT and err.value.message.startswith("board: cell r1c1")
    reply = client_of_service.step(pb.StepRequest(board=WIKIPEDIA, steps=3))
    assert reply.last_step == 3 and reply.position


def test_a_search_whose_position_was_lost_is_started_over_at_its_step(custom_service, redis, caplog):
    """The service and its key went (a new instance on the same address, the
    key in Redis another): the search starts over and skips to its step by itself."""
    from tests.stack import free_port

    port = free_port()
    before = custom_service(listen=f"127.0.0.1:{port}")
    with Client(f"127.0.0.1:{port}", timeout=60) as client:
        search = client.search(HARD, strategy="naive")
        search.run(12_345)
        before.stop()
        redis.set(keys.POSITION_KEY, b"the key after")
        custom_service(listen=f"127.0.0.1:{port}")
        with caplog.at_level(logging.WARNING, logger="sudoku.client"):
            reply = search.step(5)
        assert search.replays == 1 and "starting it over at step 12345" in caplog.text
        engine = Stepper(HARD, strategy="naive")
        engine.skip(12_345)
        assert reply.first_step == 12_345 and reply.steps == engine.run(5)
        assert search.drawing.text == engine.board and search.at == 12_350
        assert isinstance(search, StepSearch)
