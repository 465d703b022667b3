"""sudoku.engine: the stepper's exact semantics and the fast path's answers."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudoku.engine import Stepper, bad_boards, count, count_many, pack_boards, parse_board, solve
from tests.puzzles import (
    EMPTY,
    WIKIPEDIA,
    WIKIPEDIA_SOLUTION,
    all_puzzles,
    expected_solutions,
    files,
    is_completion,
    read,
)

OPTIONS = [
    {"strategy": "naive"},
    {"strategy": "mrv", "tie_break": "first"},
    {"strategy": "mrv", "tie_break": "rotate"},
    {"strategy": "mrv", "tie_break": "random", "seed": 0},
    {"strategy": "mrv", "tie_break": "random", "seed": 2024},
]
MRV_OPTIONS = OPTIONS[1:]
ALL = 10**12  # a budget that never binds

# Two 5s in row 1 (r1c1, r1c5); and two 7s in box 9 (r8c8, r9c9).
CONFLICTING = "5...5" + "." * 65 + "7" + "." * 9 + "7"
# Consistent givens, but r1c9 has no candidate: row 1 holds 1-8 elsewhere
# and column 9 holds a 9.
DEAD_END = "12345678." + "........9" + "." * 63


def events_of(data: bytes) -> list[tuple[int, int]]:
    return list(zip(data[::2], data[1::2]))


def replay(puzzle: str, data: bytes) -> tuple[str, list[str]]:
    """Applies events to the givens: (final board, every full board passed)."""
    board = list(puzzle)
    full = []
    for cell, value in events_of(data):
        assert 0 <= cell < 81 and 0 <= value <= 9
        if value:
            assert board[cell] == ".", "placed over a value"
            board[cell] = str(value)
            if "." not in board:
                full.append("".join(board))
        else:
            assert board[cell] != "." and puzzle[cell] == ".", "cleared a blank or a given"
            board[cell] = "."
    return "".join(board), full


def finish(stepper: Stepper) -> bytes:
    data = stepper.run(ALL)
    assert stepper.status != "running"
    assert stepper.run(ALL) == b"" and stepper.skip(ALL) == 0
    return data


# ---- the exact semantics ----


def test_naive_search_of_the_empty_board_takes_701_steps():
    stepper = Stepper(EMPTY, strategy="naive")
    data = finish(stepper)
    assert stepper.status == "solved"
    assert stepper.steps == 701 == len(data) // 2
    assert stepper.placements - stepper.retractions == 81
    assert (stepper.solutions, stepper.cursor) == (1, -1)
    assert is_completion(EMPTY, stepper.solution)
    assert stepper.board == stepper.solution == replay(EMPTY, data)[0]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_the_wikipedia_puzzle_solves_to_its_known_solution(options):
    stepper = Stepper(WIKIPEDIA, **options)
    data = finish(stepper)
    assert stepper.status == "solved"
    assert stepper.solution == WIKIPEDIA_SOLUTION == replay(WIKIPEDIA, data)[0]
    assert solve(WIKIPEDIA) == WIKIPEDIA_SOLUTION
    assert count(WIKIPEDIA) == (1, True)


def test_a_step_is_a_placement_or_a_retraction_and_values_go_up():
    stepper = Stepper(EMPTY, strategy="naive")
    data = finish(stepper)
    events = events_of(data)
    assert stepper.placements == sum(1 for _, v in events if v)
    assert stepper.retractions == sum(1 for _, v in events if not v)
    # Naive search fills r1 with 1..9, then r2c1 starts at 4.
    assert events[:10] == [(c, c + 1) for c in range(9)] + [(9, 4)]
    # Moving a cell to its next value is a retraction then a placement of it.
    for (cell, value), (next_cell, next_value) in zip(events, events[1:]):
        if value == 0 and next_cell == cell:
            assert next_value > 0


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_conflicting_givens_end_exhausted_at_step_0_naming_the_cells(options):
    stepper = Stepper(CONFLICTING, **options)
    assert (stepper.status, stepper.steps, stepper.cursor) == ("exhausted", 0, -1)
    assert stepper.conflicts == [0, 4, 70, 80]
    assert stepper.solution is None
    assert stepper.run(10) == b""
    assert stepper.board == CONFLICTING
    assert solve(CONFLICTING) is None
    assert count(CONFLICTING) == (0, True)


def test_consistent_givens_have_no_conflicts():
    assert Stepper(WIKIPEDIA).conflicts == []


@pytest.mark.parametrize("limit", [1, 2, 50])
@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_a_full_valid_board_is_solved_at_step_0(options, limit):
    stepper = Stepper(WIKIPEDIA_SOLUTION, limit=limit, **options)
    assert (stepper.status, stepper.steps, stepper.solutions) == ("solved", 0, 1)
    assert stepper.solution == WIKIPEDIA_SOLUTION
    assert stepper.run(5) == b""


def test_mrv_chooses_a_cell_without_candidates_first():
    stepper = Stepper(DEAD_END, tie_break="first")
    assert (stepper.status, stepper.steps, stepper.conflicts) == ("exhausted", 0, [])


def test_naive_meets_the_dead_end_when_it_is_the_first_blank():
    stepper = Stepper(DEAD_END, strategy="naive")
    assert (stepper.status, stepper.steps, stepper.cursor) == ("exhausted", 0, -1)


def test_mrv_backtracks_on_the_step_after_meeting_a_dead_end():
    # r1c1 and r1c2 can each only be 1 (row 1 holds 2-8, their columns a 9):
    # placing 1 at r1c1 leaves r1c2 with no candidate, a dead end taking no
    # step, so the next step retracts it, and nothing is left to try.
    board = list("..2345678" + "." * 72)
    board[27] = board[55] = "9"  # r4c1, r7c2
    stepper = Stepper("".join(board), tie_break="first")
    assert stepper.cursor == 0
    assert events_of(stepper.run(ALL)) == [(0, 1), (0, 0)]
    assert (stepper.status, stepper.placements, stepper.retractions) == ("exhausted", 1, 1)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("cap", [0, 1, 2, 77, 1000])
def test_max_steps_gives_up_at_exactly_that_many_steps(options, cap):
    puzzle = read(Path(__file__).parent / "data" / "forum_hardest_1106.txt")[0]
    stepper = Stepper(puzzle, max_steps=cap, **options)
    data = finish(stepper)
    assert (stepper.status, stepper.steps, len(data)) == ("gave_up", cap, 2 * cap)
    assert stepper.cursor == -1 and stepper.solution is None


def test_reaching_the_answer_on_the_last_allowed_step_is_solved():
    solved = Stepper(EMPTY, strategy="naive", max_steps=701)
    finish(solved)
    assert (solved.status, solved.steps) == ("solved", 701)
    short = Stepper(EMPTY, strategy="naive", max_steps=700)
    finish(short)
    assert (short.status, short.steps) == ("gave_up", 700)


def test_status_is_final_right_after_the_last_step():
    stepper = Stepper(EMPTY, strategy="naive")
    stepper.skip(700)
    assert (stepper.status, stepper.solutions) == ("running", 0)
    assert stepper.run(1) == bytes([80, 2])  # the solution ends ...642
    assert (stepper.status, stepper.cursor) == ("solved", -1)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_past_a_solution_the_next_step_retracts_the_last_placement(options):
    stepper = Stepper(EMPTY, limit=2, **options)
    while stepper.solutions == 0:
        last = events_of(stepper.run(1))[-1]
    assert stepper.status == "running" and last[1] > 0
    assert stepper.cursor == last[0]
    assert events_of(stepper.run(1)) == [(last[0], 0)]


@pytest.mark.parametrize("limit", [1, 2, 3, 10, 100, 1000])
@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_the_empty_board_counts_to_any_limit(options, limit):
    stepper = Stepper(EMPTY, limit=limit, **options)
    data = finish(stepper)
    assert (stepper.status, stepper.solutions) == ("solved", limit)
    board, full = replay(EMPTY, data)
    assert len(full) == limit == len(set(full))
    assert all(is_completion(EMPTY, grid) for grid in full)
    assert full[0] == stepper.solution and board == full[-1] == stepper.board


@pytest.mark.parametrize("limit", [1, 2, 3, 10, 1000, 100_000])
def test_the_fast_path_counts_the_empty_board_to_any_limit(limit):
    assert count(EMPTY, limit=limit) == (limit, True)


@pytest.mark.parametrize("limit", [2, 10, 1000, 100_000])
@pytest.mark.parametrize("cap", [1, 2, 10, 100])
def test_a_capped_count_is_never_complete_with_fewer_than_limit(limit, cap):
    found, complete = count(EMPTY, limit=limit, max_steps=cap)
    assert found <= limit
    assert complete == (found == limit)


def test_a_stepper_exhausting_a_multi_solution_puzzle_agrees_with_count():
    for puzzle in read(Path(__file__).parent / "data" / "serg_benchmark_multi_solution.txt")[:5]:
        total, complete = count(puzzle, limit=10**9)
        assert complete and total >= 2
        assert count(puzzle, limit=total) == (total, True)
        assert count(puzzle, limit=total - 1) == (total - 1, True)
        stepper = Stepper(puzzle, limit=total + 1)
        data = finish(stepper)
        assert (stepper.status, stepper.solutions) == ("solved", total)
        board, full = replay(puzzle, data)
        assert len(set(full)) == total and all(is_completion(puzzle, g) for g in full)
        assert board == puzzle  # exhausted: every placement was taken back


def test_the_rotate_tie_break_prefers_the_emptier_unit():
    # Empty board: all cells tie with 9 candidates and all units have 9
    # blanks, so the lowest index wins: r1c1. After r1c1 = 1, the 20 peers
    # of r1c1 tie with 8 candidates. At d = 1 the kinds go column, box, row:
    # column 1 has 8 blanks (the others 9), of its cells box 1 has 8 blanks:
    # r2c1 and r3c1, whose rows tie at 9, so the lower index: r2c1.
    rotate = Stepper(EMPTY, tie_break="rotate")
    assert rotate.cursor == 0
    rotate.run(1)
    assert rotate.cursor == 9
    first = Stepper(EMPTY, tie_break="first")
    first.run(1)
    assert first.cursor == 1


def test_random_tie_breaks_depend_on_the_seed_only():
    searches = {seed: Stepper(EMPTY, tie_break="random", seed=seed).run(ALL) for seed in range(5)}
    again = {seed: Stepper(EMPTY, tie_break="random", seed=seed).run(ALL) for seed in range(5)}
    assert searches == again
    assert len(set(searches.values())) > 1


def test_the_input_string_is_untouched():
    puzzle = "".join(list(WIKIPEDIA))  # a fresh str object
    before = puzzle[:]
    stepper = Stepper(puzzle)
    stepper.run(ALL)
    solve(puzzle)
    count(puzzle)
    assert puzzle == before == WIKIPEDIA


def test_whitespace_is_ignored_so_nine_lines_work():
    lines = "\n".join(WIKIPEDIA[r * 9:r * 9 + 9] for r in range(9)) + "\n"
    assert parse_board(lines) == parse_board(WIKIPEDIA)
    assert Stepper(lines.replace(".", "0")).board == WIKIPEDIA
    assert parse_board(WIKIPEDIA)[:3] == bytes([5, 3, 0])


# ---- slicing never changes the search ----

SLICE_PUZZLES = [EMPTY, WIKIPEDIA, read(Path(__file__).parent / "data" / "norvig_hardest.txt")[0]]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    puzzle=st.sampled_from(SLICE_PUZZLES),
    options=st.sampled_from(OPTIONS),
    limit=st.integers(1, 3),
    slices=st.lists(st.tuples(st.sampled_from(["run", "skip"]), st.integers(0, 400)), max_size=30),
)
def test_slicing_never_changes_the_search(puzzle, options, limit, slices):
    whole = Stepper(puzzle, limit=limit, max_steps=3000, **options)
    expected = whole.run(ALL)
    sliced = Stepper(puzzle, limit=limit, max_steps=3000, **options)
    position = 0
    for kind, budget in slices:
        if kind == "run":
            data = sliced.run(budget)
            assert data == expected[2 * position:2 * position + len(data)]
            taken = len(data) // 2
        else:
            taken = sliced.skip(budget)
        assert taken == min(budget, len(expected) // 2 - position)
        position += taken
        assert sliced.steps == position
    assert sliced.run(ALL) == expected[2 * position:]
    for name in ("status", "steps", "placements", "retractions", "solutions", "board", "solution"):
        assert getattr(sliced, name) == getattr(whole, name)


# ---- every answer is a valid completion of its puzzle ----

SAMPLES = all_puzzles()


def test_the_sample_covers_every_kind_of_puzzle():
    assert len(SAMPLES) >= 500
    assert {expected_solutions(path)[0] for path in files()} == {0, 1, 2}


@pytest.mark.parametrize("path", files(), ids=lambda p: p.stem)
def test_the_fast_path_answers_every_sample_puzzle(path):
    least, most = expected_solutions(path)
    for puzzle in read(path):
        solution = solve(puzzle)
        found, complete = count(puzzle, limit=2)
        assert complete
        assert least <= found <= (most if most is not None else 2), puzzle
        if least == 0:
            assert solution is None, puzzle
        else:
            assert is_completion(puzzle, solution), puzzle


@pytest.mark.parametrize("limit, cap", [(2, None), (1, None), (5, None), (2, 1), (3, 7)])
def test_count_many_gives_what_count_gives_board_by_board(limit, cap):
    boards = [puzzle.replace(".", "0") if i % 3 else puzzle for i, (_, puzzle) in enumerate(all_puzzles())]
    found, complete, first = count_many("".join(boards), limit=limit, max_steps=cap, solutions=True)
    assert len(found) == len(complete) == len(boards) and len(first) == 81 * len(boards)
    for i, board in enumerate(boards):
        assert (found[i], bool(complete[i])) == count(board, limit=limit, max_steps=cap), board
        solution = first[81 * i : 81 * i + 81]
        if found[i]:
            assert is_completion(board.replace("0", "."), solution), board
        else:
            assert solution == "." * 81
    assert count_many("".join(boards), limit=limit, max_steps=cap)[2] is None


def test_count_many_names_the_board_and_cell_of_a_bad_character():
    boards = [WIKIPEDIA, WIKIPEDIA[:40] + "x" + WIKIPEDIA[41:]]
    with pytest.raises(ValueError, match=r"^board 1: cell r5c5: 'x' is not 1-9, '\.' or '0'$"):
        count_many("".join(boards))
    with pytest.raises(ValueError, match="^boards: 161 characters is not a whole number of 81-cell boards$"):
        count_many(WIKIPEDIA + WIKIPEDIA[:80])
    with pytest.raises(ValueError, match=r"^board 0: cell r1c1: ' ' is not"):
        count_many(" " + WIKIPEDIA[1:])  # no whitespace: boards are exactly 81 cells
    with pytest.raises(ValueError, match=r"^board 0: cell r1c1: 'ÿ' is not"):  # bytes read as Latin-1
        count_many(b"\xff" + WIKIPEDIA[1:].encode())
    with pytest.raises(TypeError, match="boards must be a str or bytes, not list"):
        count_many([WIKIPEDIA])
    assert count_many(WIKIPEDIA.encode(), solutions=True) == count_many(WIKIPEDIA, solutions=True)
    with pytest.raises(ValueError, match="limit must be >= 1"):
        count_many(WIKIPEDIA, limit=0)
    assert count_many("") == ([], b"", None)
    assert count_many("", solutions=True) == ([], b"", "")


def test_pack_boards_joins_clean_boards_and_refuses_anything_else():
    boards = [puzzle for _, puzzle in all_puzzles()][:50] + [EMPTY.replace(".", "0")]
    assert pack_boards(boards) == "".join(boards).encode()
    assert pack_boards([]) == b""
    for bad in [WIKIPEDIA[:80], WIKIPEDIA + ".", "x" + WIKIPEDIA[1:], " " + WIKIPEDIA[1:], "é" + WIKIPEDIA[1:],
                "\U0001F600" + WIKIPEDIA[1:], WIKIPEDIA.encode(), None]:
        assert pack_boards([WIKIPEDIA, bad]) is None, bad
    with pytest.raises(TypeError, match="boards must be a list of str, not tuple"):
        pack_boards((WIKIPEDIA,))


def test_bad_boards_lists_the_boards_with_a_byte_out_of_place():
    clean = WIKIPEDIA.encode()
    assert bad_boards(clean * 3 + EMPTY.replace(".", "0").encode()) == []
    assert bad_boards(b"") == []
    dirty = [b"x" + clean[1:], clean[:80] + b"\xff", b" " + clean[1:], clean[:40] + b"\x00" + clean[41:]]
    assert bad_boards(clean + b"".join(dirty) + clean) == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="^80 bytes is not a whole number of 81-cell boards$"):
        bad_boards(clean[:80])
    with pytest.raises(TypeError, match="packed must be bytes, not str"):
        bad_boards(WIKIPEDIA)


@pytest.mark.parametrize("path", files(), ids=lambda p: p.stem)
def test_the_stepper_answers_every_sample_puzzle(path):
    least, most = expected_solutions(path)
    for puzzle in read(path):
        stepper = Stepper(puzzle, limit=2)  # mrv + rotate, the defaults
        stepper.skip(ALL)
        assert stepper.status == ("exhausted" if least == 0 else "solved"), puzzle
        assert least <= stepper.solutions <= (most if most is not None else 2), puzzle
        if least:
            assert is_completion(puzzle, stepper.solution), puzzle
            assert stepper.solution == solve(puzzle) or most is None


# ---- threads ----


def test_a_stepper_used_by_two_threads_at_once_raises_instead():
    stepper = Stepper(EMPTY, strategy="naive", limit=10**9)
    errors = []
    seen_busy = threading.Event()

    def long_skip():
        stepper.skip(20_000_000)

    worker = threading.Thread(target=long_skip)
    worker.start()
    while worker.is_alive():
        try:
            stepper.run(1)
        except RuntimeError as error:
            errors.append(str(error))
            seen_busy.set()
            break
    worker.join()
    # The main thread ran while the C loop did: the GIL was released.
    assert seen_busy.is_set() and "another thread" in errors[0]
    assert stepper.steps >= 20_000_000


def test_steppers_in_parallel_threads_give_the_sequential_results():
    puzzles = read(Path(__file__).parent / "data" / "forum_hardest_1106.txt")[:8]
    expected = [Stepper(p, tie_break="first").run(ALL) for p in puzzles]
    results = [b""] * len(puzzles)

    def search(i):
        results[i] = Stepper(puzzles[i], tie_break="first").run(ALL)

    threads = [threading.Thread(target=search, args=(i,)) for i in range(len(puzzles))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == expected


# ---- the full puzzle sets (slow) ----


@pytest.mark.slow
def test_the_fast_path_answers_every_puzzle_of_the_full_sets():
    folder = os.environ.get("SUDOKU_PUZZLES")
    if not folder or not files(Path(folder)):
        pytest.skip("the full puzzle sets are not here: set SUDOKU_PUZZLES to a folder holding "
                    "them (the *.txt files named in tests/data/README.md) to run this test")
    for path in files(Path(folder)):
        least, most = expected_solutions(path)
        for puzzle in read(path):
            found, complete = count(puzzle, limit=2)
            assert complete and least <= found <= (most or 2), (path.name, puzzle)
            solution = solve(puzzle)
            assert (solution is None) if least == 0 else is_completion(puzzle, solution), (
                path.name, puzzle)
