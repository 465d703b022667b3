"""Cells (sudoku/cells.py, service/jobs/cells.py): REDIS_URL listing several
Redis servers, the calls spread over them, and a cell that goes down and
comes back. Two of Debian's redis-server processes, a worker per cell (and
an interactive one each), service instances on real gRPC.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY
from redis import Redis
from rq import Worker

from service.rpc.app import check_cells
from sudoku import cells, engine, keys
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.puzzles import long_boards, puzzles, relabelled
from tests.stack import (
    ServiceThread,
    SystemRedis,
    installed_script,
    make_settings,
    needs_system_redis,
    supervise_in_background,
    until,
)
from worker.run.supervisor import Supervisor

HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps
POSITION_KEY = "cells-test-position-key"
TIMEOUT = 15


# ---- REDIS_URL as a list of cells ----

def test_one_url_is_one_cell_and_several_are_split_at_commas():
    assert cells.parse("redis://r1:6379/0") == ["redis://r1:6379/0"]
    assert cells.parse("redis://r1:6379/0, redis://r2:6379/0") == ["redis://r1:6379/0", "redis://r2:6379/0"]


@pytest.mark.parametrize("setting, says", [
    ("redis://r1/0,,redis://r2/0", "empty cell"),
    ("redis://r1/0,", "empty cell"),
    ("redis://r1/0,r2:6379", "not a Redis URL"),
    ("http://r1/0", "not a Redis URL"),
    ("redis://r1/0,redis://r1/0", "listed twice"),
    ("redis://:hunter2@r1/0,,redis://r2/0", "***"),
])
def test_a_redis_url_the_service_cannot_use_is_refused_with_a_message(setting, says):
    with pytest.raises(SystemExit) as refused:
        check_cells(make_settings(setting))
    assert says in str(refused.value)
    assert "hunter2" not in str(refused.value)


def test_several_cells_need_one_position_key_for_the_deployment():
    with pytest.raises(SystemExit, match="SUDOKU_POSITION_KEY"):
        check_cells(make_settings("redis://r1/0,redis://r2/0"))
    assert check_cells(make_settings("redis://r1/0,redis://r2/0", position_key="k")) == (
        ["redis://r1/0", "redis://r2/0"], set())


def test_sudoku_worker_serves_one_cell_and_says_so_when_given_several():
    done = subprocess.run([installed_script("sudoku-worker")], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "REDIS_URL": "redis://127.0.0.1:1/0,redis://127.0.0.1:2/0"})
    assert done.returncode != 0
    assert "serves one cell" in done.stderr and "one sudoku-worker per cell" in done.stderr, done.stderr


def test_a_job_id_names_its_cell_in_its_first_two_hex_digits():
    for cell in (0, 1, 7, 255):
        job_id = cells.new_job_id(cell)
        assert len(job_id) == 32 and int(job_id, 16) >= 0 and job_id == job_id.lower()
        assert cells.cell_of(job_id, 256) == cell
    assert cells.cell_of(cells.new_job_id(3), 2) is None  # not a cell of this deployment
    assert cells.cell_of("ff" + "0" * 30, 1) == 0  # one cell: every id, as before cells


# ---- Two real cells ----

@pytest.fixture
def two_cells(tmp_path):
    """Two redis-servers, a worker and an interactive worker on each, and a
    service instance on both."""
    needs_system_redis()
    servers = [SystemRedis(str(tmp_path)).start() for _ in range(2)]
    setting = ",".join(server.url for server in servers)
    workers = Supervisor(2, setting, interactive=1, env={"SUDOKU_POSITION_KEY": POSITION_KEY})
    workers.start()
    supervise_in_background(workers)
    service = ServiceThread(make_settings(setting, position_key=POSITION_KEY)).start()
    try:
        yield servers, service, setting
    finally:
        service.stop()
        workers.stop()
        for server in servers:
            if server.proc.poll() is None:
                server.kill()


def routed(cell: int) -> float:
    return REGISTRY.get_sample_value("sudoku_cell_calls_total", {"cell": str(cell)}) or 0.0


def cell_up(cell: int) -> float | None:
    return REGISTRY.get_sample_value("sudoku_cell_up", {"cell": str(cell)})


def cell_downs(cell: int) -> float:
    return REGISTRY.get_sample_value("sudoku_cell_downs_total", {"cell": str(cell)}) or 0.0


def health(address: str) -> int:
    with grpc.insecure_channel(address) as channel:
        return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5).status


def fresh_boards(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [relabelled(rng.choice(puzzles("17_clue")), rng) for _ in range(n)]


def test_calls_spread_over_the_cells_and_answer_right(two_cells):
    servers, service, _ = two_cells
    before = [routed(0), routed(1)]
    with grpc.insecure_channel(service.address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        for board in fresh_boards(120, 1):
            reply = stub.CountSolutions(pb.CountRequest(board=board), timeout=TIMEOUT)
            assert reply.count == 1
    split = [routed(0) - before[0], routed(1) - before[1]]
    assert sum(split) == 120 and min(split) >= 30, split  # each cell its share; the hash is not a coin
    # Each cell's own workers answered its calls: each Redis saw jobs.
    for server in servers:
        stats = Redis(port=server.port).info("commandstats")
        assert stats.get("cmdstat_evalsha", {}).get("calls", 0) > 0, server.url


def test_rq_info_shows_each_cell_as_a_plain_rq_deployment(two_cells):
    """`rq info -u <a cell's URL>` (RQ's own command, docs/architecture.md "Cells") lists
    that cell's workers and queues, and none of the other cell's."""
    servers, service, _ = two_cells
    with grpc.insecure_channel(service.address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        for board in fresh_boards(20, 2):  # both cells have had jobs
            stub.CountSolutions(pb.CountRequest(board=board), timeout=TIMEOUT)
    names = []
    for server in servers:
        redis = Redis(port=server.port)
        until(lambda: len(Worker.all(connection=redis)) == 2, f"the workers of {server.url} registered")
        names.append({worker.name for worker in Worker.all(connection=redis)})
        redis.close()
    for server, own, other in zip(servers, names, reversed(names)):
        shown = subprocess.run([installed_script("rq"), "info", "-u", server.url, "-r"],
                               capture_output=True, text=True, timeout=TIMEOUT)
        assert shown.returncode == 0, shown.stderr
        assert all(name in shown.stdout for name in own), (own, shown.stdout)
        assert not any(name in shown.stdout for name in other), (other, shown.stdout)
        lines = shown.stdout.splitlines()
        assert re.search(rf"^queue {keys.QUEUE_INTERACTIVE} \d+, \d+ executing, \d+ finished", shown.stdout, re.M), \
            shown.stdout
        assert sum(line.startswith("worker ") for line in lines) == 2, shown.stdout


def test_a_cacheable_call_goes_to_its_key_cell_so_the_cache_still_hits(two_cells):
    servers, service, _ = two_cells
    downs = [cell_downs(0), cell_downs(1)]
    board = fresh_boards(1, 2)[0]
    with grpc.insecure_channel(service.address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        first = stub.CountSolutions(pb.CountRequest(board=board), timeout=TIMEOUT)
        # The worker writes the cache entry with the reply: in one cell only.
        until(lambda: sum(len(Redis(port=s.port).keys(keys.cache("*"))) for s in servers) == 1, "the entry was written")
        for _ in range(5):
            assert stub.CountSolutions(pb.CountRequest(board=board), timeout=TIMEOUT) == first
    holders = [s for s in servers if Redis(port=s.port).keys(keys.cache("*"))]
    # A cell seen down meanwhile (two PINGs late on a loaded machine) sends
    # its keys to the other cell for a while: then both may hold the entry.
    if [cell_downs(0), cell_downs(1)] == downs:
        assert len(holders) == 1


def test_watch_and_cancel_reach_a_jobs_cell_from_another_instance(two_cells):
    servers, service, setting = two_cells
    other = ServiceThread(make_settings(setting, position_key=POSITION_KEY)).start()
    try:
        with grpc.insecure_channel(service.address) as a, grpc.insecure_channel(other.address) as b:
            solving, watching = pb_grpc.SudokuStub(a), pb_grpc.SudokuStub(b)
            seen = set()
            for _ in range(12):  # unclaimed solves: either cell
                stream = solving.Solve(pb.SolveRequest(board=HARD, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                                                       pacing=pb.Pacing(duration_ms=60_000)), timeout=TIMEOUT)
                job_id = next(stream).job_id
                cell = cells.cell_of(job_id, 2)
                seen.add(cell)
                assert Redis(port=servers[cell].port).exists(keys.frames(job_id))
                assert not Redis(port=servers[1 - cell].port).exists(keys.frames(job_id))
                watched = watching.Watch(pb.WatchRequest(job_id=job_id, unpaced=True), timeout=TIMEOUT)
                assert next(watched).seq >= 1
                assert watching.Cancel(pb.CancelRequest(job_id=job_id), timeout=TIMEOUT).cancelled
                assert [m for m in watched][-1].outcome == pb.CANCELLED
                stream.cancel()
                if seen == {0, 1}:
                    break
            assert seen == {0, 1}
            with pytest.raises(grpc.RpcError) as err:  # a cell this deployment does not have
                watching.Cancel(pb.CancelRequest(job_id=cells.new_job_id(9)), timeout=TIMEOUT)
            assert err.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        other.stop()


def test_a_request_id_is_claimed_in_one_cell_whoever_asks(two_cells):
    _, service, setting = two_cells
    other = ServiceThread(make_settings(setting, position_key=POSITION_KEY)).start()
    try:
        request = pb.SolveRequest(board=HARD, strategy=pb.STRATEGY_NAIVE, request_id="cells-claim-1")
        ids = set()
        for address in (service.address, other.address, service.address):
            with grpc.insecure_channel(address) as channel:
                frames = list(pb_grpc.SudokuStub(channel).Solve(request, timeout=TIMEOUT))
                ids.add(frames[0].job_id)
                assert frames[-1].outcome == pb.SOLVED
        assert len(ids) == 1, ids
    finally:
        other.stop()


def _count_until_ok(stub, board: str, within: float = 10) -> tuple[pb.CountReply, list[str]]:
    """A CountSolutions retried on UNAVAILABLE, as the client library does: its reply and the failures."""
    failures = []
    deadline = time.monotonic() + within
    while True:
        try:
            return stub.CountSolutions(pb.CountRequest(board=board), timeout=TIMEOUT), failures
        except grpc.RpcError as exc:
            failures.append(exc.code().name)
            assert exc.code() == grpc.StatusCode.UNAVAILABLE and time.monotonic() < deadline, failures
            time.sleep(0.1)


@pytest.mark.slow
def test_a_cell_down_takes_no_new_calls_and_is_used_again_when_back(two_cells):
    servers, service, _ = two_cells
    with grpc.insecure_channel(service.address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        # A watched solve in flight on cell 1.
        for _ in range(20):
            watched = stub.Solve(pb.SolveRequest(board=HARD, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                                                 pacing=pb.Pacing(duration_ms=60_000)), timeout=60)
            job_id = next(watched).job_id
            if cells.cell_of(job_id, 2) == 1:
                break
            watched.cancel()
        assert cells.cell_of(job_id, 2) == 1
        next(watched)

        servers[1].kill()
        with pytest.raises(grpc.RpcError) as err:
            for _ in watched:
                pass
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE, err.value
        until(lambda: cell_up(1) == 0, "the service saw cell 1 down", timeout=10)
        assert health(service.address) == health_pb2.HealthCheckResponse.SERVING
        assert cell_up(0) == 1

        before = routed(1)
        for board in fresh_boards(40, 3):  # every new call on cell 0, none failing
            assert stub.CountSolutions(pb.CountRequest(board=board), timeout=TIMEOUT).count == 1
        assert routed(1) == before
        with pytest.raises(grpc.RpcError) as err:
            next(stub.Watch(pb.WatchRequest(job_id=job_id), timeout=TIMEOUT))
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "cell 1" in err.value.details()
        # A request_id is claimed in its own cell only: while that cell is
        # down its calls are UNAVAILABLE, never claimed in the other one.
        outcomes = {}
        for i in range(12):
            request = pb.SolveRequest(board=fresh_boards(1, 100 + i)[0], request_id=f"cells-down-{i}")
            try:
                outcomes[i] = cells.cell_of(next(stub.Solve(request, timeout=TIMEOUT)).job_id, 2)
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.UNAVAILABLE and "request_id" in exc.details(), exc
                outcomes[i] = "refused"
        assert set(outcomes.values()) == {0, "refused"}, outcomes

        servers[1].start()  # back, empty, on the same port
        back = time.monotonic()
        until(lambda: cell_up(1) == 1, "the service saw cell 1 back", timeout=10)
        # Its workers are back too: calls routed to it are answered.
        for board in fresh_boards(40, 4):
            reply, _ = _count_until_ok(stub, board)
            assert reply.count == 1
        assert routed(1) > before
        print(f"cell 1 serving again {time.monotonic() - back:.1f} s after its Redis restarted")


# ---- Batch calls over the cells ----

def busy_workers(servers) -> int:
    return sum(len([w for w in Worker.all(connection=Redis(port=s.port)) if w.get_state() == "busy"])
               for s in servers)


def test_a_batch_calls_jobs_spread_over_the_cells_and_answer_in_order(two_cells):
    servers, _, setting = two_cells
    service = ServiceThread(make_settings(setting, position_key=POSITION_KEY, many_job_size=50,
                                          generate_job_size=2)).start()
    try:
        rng = random.Random(6)
        sources = puzzles("17_clue") + puzzles("invalid_no_solution")
        boards = [relabelled(rng.choice(sources), rng) for _ in range(600)]
        # Jobs go in turn over the cells this service sees up: both, before it starts.
        until(lambda: all(cell.serving for cell in service.app.cells.all), "the service saw both cells up", TIMEOUT)
        before = [routed(0), routed(1)]
        with grpc.insecure_channel(service.address) as channel:
            stub = pb_grpc.SudokuStub(channel)
            (reply,) = stub.CountMany(iter([pb.CountManyRequest(boards=boards)]), timeout=60)
            split = [routed(0) - before[0], routed(1) - before[1]]
            assert split == [6, 6], split  # 12 jobs, in turn
            assert list(reply.counts) == [engine.count(b, limit=2)[0] for b in boards]
            first = [p.puzzle for p in stub.Generate(pb.GenerateRequest(level=1, count=8, seed=11), timeout=60)]
            again = [p.puzzle for p in stub.Generate(pb.GenerateRequest(level=1, count=8, seed=11), timeout=60)]
            assert len(first) == 8 and first == again  # four jobs over two cells, in the seeds' order
    finally:
        service.stop()


def test_a_cancelled_batch_call_stops_its_jobs_in_every_cell(two_cells):
    servers, service, _ = two_cells
    with grpc.insecure_channel(service.address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        boards = long_boards(8)
        call = stub.CountMany(iter([pb.CountManyRequest(boards=[b], limit=1_000_000, time_limit_ms=10_000)
                                    for b in boards]), timeout=60)
        until(lambda: busy_workers(servers) >= 2, "both cells' workers took the call's jobs", timeout=20)
        call.cancel()
        cancelled = time.monotonic()
        until(lambda: busy_workers(servers) == 0, "every cell's workers stopped", timeout=10)
        assert time.monotonic() - cancelled < 1.5
    # The call's cancel flag went up in each cell: a worker looks in its own.
    flags = [Redis(port=s.port).keys(keys.cancel("*")) for s in servers]
    assert all(len(found) == 1 for found in flags) and flags[0] == flags[1], flags
    until(lambda: not any(Redis(port=s.port).keys(keys.boards("*")) for s in servers), "the boards went", timeout=5)


def test_a_drained_cell_takes_no_new_calls_and_still_answers_for_its_jobs(two_cells):
    _, service, setting = two_cells
    with grpc.insecure_channel(service.address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        for _ in range(30):  # a job of cell 1's, made before the drain
            stream = stub.Solve(pb.SolveRequest(board=HARD, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                                                pacing=pb.Pacing(duration_ms=60_000)), timeout=TIMEOUT)
            job_id = next(stream).job_id
            stream.cancel()
            if cells.cell_of(job_id, 2) == 1:
                break
    assert cells.cell_of(job_id, 2) == 1
    draining = ServiceThread(make_settings(setting, position_key=POSITION_KEY, drain_cells="1")).start()
    try:
        with grpc.insecure_channel(draining.address) as channel:
            stub = pb_grpc.SudokuStub(channel)
            before = routed(1)
            for board in fresh_boards(30, 5):
                assert stub.CountSolutions(pb.CountRequest(board=board), timeout=TIMEOUT).count == 1
            frames = stub.Solve(pb.SolveRequest(board=HARD, request_id="cells-drain-1"), timeout=TIMEOUT)
            assert cells.cell_of(next(frames).job_id, 2) == 0
            frames.cancel()
            assert routed(1) == before
            assert next(stub.Watch(pb.WatchRequest(job_id=job_id, unpaced=True), timeout=TIMEOUT)).job_id == job_id
    finally:
        draining.stop()


@pytest.mark.parametrize("drain, says", [("2", "not a cell"), ("x", "not a cell"), ("0,1", "every cell")])
def test_a_drain_the_service_cannot_use_is_refused(drain, says):
    with pytest.raises(SystemExit, match=says):
        check_cells(make_settings("redis://r1/0,redis://r2/0", position_key="k", drain_cells=drain))
