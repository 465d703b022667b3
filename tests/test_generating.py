"""Generate through the real service (service/batches/generating.py): count, order,
seeds, levels, symmetry, kept givens, the errors; the client and
`sudoku generate`."""

from __future__ import annotations

import grpc
import pytest

from client import Client
from sudoku import engine
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc
from tests.puzzles import puzzles
from worker import logic

TIMEOUT = 60


def generate(stub, **fields) -> list[pb.GeneratedPuzzle]:
    return list(stub.Generate(pb.GenerateRequest(**fields), timeout=TIMEOUT))


def test_puzzles_come_in_order_unique_graded_and_again_from_the_seed(stub):
    made = generate(stub, level=pb.MEDIUM, count=20, seed=11)
    assert [p.index for p in made] == list(range(20))
    for p in made:
        assert engine.count(p.puzzle) == (1, True) and engine.solve(p.puzzle) == p.solution
        assert p.grade.level == pb.MEDIUM and p.grade.score == logic.grade(p.puzzle).score
        assert p.grade.hodoku_level == logic.hodoku_level(p.grade.level, p.grade.score)
    assert made[0].seed == 11 and len({p.puzzle for p in made}) == 20
    assert [p.puzzle for p in generate(stub, level=pb.MEDIUM, count=20, seed=11)] == [p.puzzle for p in made]
    (again,) = generate(stub, level=pb.MEDIUM, count=1, seed=made[7].seed)
    assert again.puzzle == made[7].puzzle


def test_jobs_of_a_few_puzzles_give_the_same_puzzles(stub, custom_service):
    service = custom_service(generate_job_size=3, batch_inflight=2)
    channel = grpc.insecure_channel(service.address)
    small = list(sudoku_pb2_grpc.SudokuStub(channel).Generate(
        pb.GenerateRequest(level=pb.HARD, count=10, seed=3), timeout=TIMEOUT))
    channel.close()
    assert [p.puzzle for p in small] == [p.puzzle for p in generate(stub, level=pb.HARD, count=10, seed=3)]


def test_symmetry_and_kept_givens(stub):
    (p,) = generate(stub, level=pb.HARD, seed=1, symmetry=pb.SYMMETRY_ROTATIONAL)
    assert all((p.puzzle[c] == ".") == (p.puzzle[80 - c] == ".") for c in range(81))
    keep = puzzles("qqwing_easy")[0][:9] + "." * 72
    for p in generate(stub, level=pb.EASY, count=3, seed=2, givens=keep):
        assert all(k == "." or p.puzzle[i] == k for i, k in enumerate(keep))


@pytest.mark.parametrize(("fields", "message"), [
    ({}, "level: required, one of EASY, MEDIUM, HARD, EXPERT, EXTREME"),
    ({"level": 9}, "level: required, one of EASY"),
    ({"level": pb.EASY, "count": -1}, "count: must not be negative, got -1"),
    ({"level": pb.EASY, "count": 10_001}, "count: at most 10000 puzzles per call, got 10001"),
    ({"level": pb.EASY, "symmetry": 7}, "symmetry: unknown value 7"),
    ({"level": pb.EASY, "givens": "12x"}, "givens: cell r1c3: 'x' is not 1-9"),
    ({"level": pb.EASY, "givens": "55" + "." * 79}, "givens: they break the rules at r1c1, r1c2"),
    ({"level": pb.EASY, "givens": puzzles("invalid_no_solution")[0]}, "givens: they have no solution"),
])
def test_bad_requests_are_invalid_argument_naming_the_field(stub, fields, message):
    with pytest.raises(grpc.RpcError) as err:
        generate(stub, **fields)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details().startswith(message)


def test_a_level_the_kept_givens_rule_out_is_failed_precondition(stub):
    almost = engine.solve(puzzles("qqwing_easy")[0])[:-5] + "....."
    with pytest.raises(grpc.RpcError) as err:
        generate(stub, level=pb.EXTREME, givens=almost)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "no extreme puzzle found" in err.value.details()


def test_the_client_generates(service):
    with Client(service.address, timeout=TIMEOUT) as client:
        made = list(client.generate("hard", 3, seed=9))
        with pytest.raises(ValueError, match="unknown level 'tough'"):
            list(client.generate("tough"))
    assert [p.grade.level for p in made] == [pb.HARD] * 3
