"""Grade and GradeMany through the real service (service/batches/grading.py,
worker/grades.py): levels, scores and technique counts, batch order and
errors, and the client's grade() and grade_many()."""

from __future__ import annotations

import grpc
import pytest

from client import Client
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc
from tests.puzzles import puzzles
from worker import logic

TIMEOUT = 60


def test_grade_gives_the_level_score_and_techniques(stub):
    easy = stub.Grade(pb.GradeRequest(board=puzzles("qqwing_easy")[0]), timeout=TIMEOUT)
    assert (easy.level, easy.verdict, easy.solved) == (pb.EASY, pb.CountReply.UNIQUE, True)
    hard = puzzles("magictour_top1465")[0]
    reply = stub.Grade(pb.GradeRequest(board=hard), timeout=TIMEOUT)
    g = logic.grade(hard)
    assert (reply.level, reply.score, reply.steps) == (g.level, g.score, g.steps)
    assert reply.hardest == g.hardest and reply.score > easy.score
    assert [(t.technique, t.count) for t in reply.techniques] == [(t, n) for t, n in enumerate(g.counts) if n]
    assert sum(t.count for t in reply.techniques) == reply.steps
    assert stub.Grade(pb.GradeRequest(board=hard), timeout=TIMEOUT) == reply  # deterministic
    # Its score, 1,382, is over HoDoKu's 1,000 for medium, so HoDoKu rates it hard.
    assert (reply.level, reply.score, reply.hodoku_level) == (pb.LEVEL_MEDIUM, 1382, pb.LEVEL_HARD)
    assert easy.hodoku_level == pb.LEVEL_EASY


@pytest.mark.parametrize("level, score, raised", [
    (1, 800, 1), (1, 801, 2), (2, 1000, 2), (2, 1001, 3), (3, 1600, 3), (3, 1601, 4), (4, 1800, 4), (4, 1801, 5),
    (1, 1700, 4), (1, 5000, 5), (3, 1000, 3), (5, 200, 5), (5, 10**6, 5), (0, 5000, 0),
])
def test_hodoku_level_raises_a_level_while_the_score_is_over_its_most(level, score, raised):
    assert logic.hodoku_level(level, score) == raised


def test_puzzles_without_one_solution_have_no_level(stub):
    many = stub.Grade(pb.GradeRequest(board=puzzles("multi_solution_16_clue")[0]), timeout=TIMEOUT)
    assert (many.level, many.verdict, many.solved) == (pb.LEVEL_UNSPECIFIED, pb.CountReply.MULTIPLE, False)
    assert many.hodoku_level == pb.LEVEL_UNSPECIFIED
    none = stub.Grade(pb.GradeRequest(board=puzzles("invalid_no_solution")[0]), timeout=TIMEOUT)
    assert (none.level, none.verdict, none.steps) == (pb.LEVEL_UNSPECIFIED, pb.CountReply.NONE, 0)


def test_a_bad_board_is_invalid_argument(stub):
    with pytest.raises(grpc.RpcError) as err:
        stub.Grade(pb.GradeRequest(board="12x"), timeout=TIMEOUT)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details() == "board: cell r1c3: 'x' is not 1-9, '.' or '0'"


def test_grade_many_answers_each_request_in_order_with_errors_in_place(stub):
    boards = puzzles("qqwing_expert")[:10] + ["bad"] + puzzles("magictour_top1465")[:5]
    packed = "".join(puzzles("qqwing_intermediate")[:7]).encode()
    requests = [pb.GradeManyRequest(boards=boards), pb.GradeManyRequest(packed_boards=packed),
                pb.GradeManyRequest(boards=["." * 81], packed_boards=packed)]
    first, second, third = stub.GradeMany(iter(requests), timeout=TIMEOUT)
    assert [g.index for g in first.grades] == list(range(len(boards)))
    assert first.grades[10].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert first.grades[10].error.message == "boards[10]: cell r1c1: 'b' is not 1-9, '.' or '0'"
    for board, grade in zip(boards, first.grades):
        if board != "bad":
            expected = stub.Grade(pb.GradeRequest(board=board), timeout=TIMEOUT)
            expected.index = grade.index
            assert grade == expected
    assert {g.level for g in second.grades} == {pb.MEDIUM} and len(second.grades) == 7
    assert not third.grades and "send one of them" in third.error.message


def test_grade_many_jobs_of_a_few_boards_keep_the_order(custom_service):
    service = custom_service(grade_job_size=3, batch_inflight=2)
    channel = grpc.insecure_channel(service.address)
    boards = puzzles("qqwing_expert")[:11]
    (reply,) = sudoku_pb2_grpc.SudokuStub(channel).GradeMany(iter([pb.GradeManyRequest(boards=boards)]),
                                                              timeout=TIMEOUT)
    channel.close()
    assert [(g.index, g.score) for g in reply.grades] == [(i, logic.grade(b).score) for i, b in enumerate(boards)]


def test_the_clients_grade_and_grade_many(service):
    boards = puzzles("qqwing_easy")[:5] + ["x"] + puzzles("qqwing_expert")[:4]
    with Client(service.address, timeout=TIMEOUT) as client:
        assert client.grade(boards[0]).level == pb.EASY
        grades = list(client.grade_many(iter(boards), chunk=3))
    assert [g.index for g in grades] == list(range(len(boards)))
    assert grades[5].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert all(g.level >= pb.HARD for g in grades[6:])
