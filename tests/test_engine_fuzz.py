"""sudoku.engine under arbitrary input (hypothesis): it never crashes; it
either raises ValueError/TypeError or gives a result consistent with itself,
with the puzzle and with the Python reference."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudoku.engine import Stepper, count, parse_board, solve
from tests.puzzles import WIKIPEDIA_SOLUTION, is_completion
from worker import logic, reference

FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
STATE = ("status", "steps", "placements", "retractions", "solutions", "cursor",
         "board", "solution", "conflicts")


@st.composite
def boards(draw):
    """Mostly near-valid boards: a solution grid with cells blanked, maybe a
    clashing value, maybe some whitespace; sometimes any text at all."""
    if draw(st.integers(0, 4)) == 0:
        return draw(st.text(max_size=200))
    cells = list(WIKIPEDIA_SOLUTION)
    for cell in draw(st.lists(st.integers(0, 80), max_size=81)):
        cells[cell] = draw(st.sampled_from(".0"))
    if draw(st.booleans()):
        cells[draw(st.integers(0, 80))] = draw(st.sampled_from("123456789"))
    for _ in range(draw(st.integers(0, 3))):
        cells.insert(draw(st.integers(0, len(cells))), draw(st.sampled_from([" ", "\n", "x", "٣"])))
    return "".join(cells)


def any_of(*choices):
    return st.one_of(*choices, st.none(), st.floats(allow_nan=False), st.text(max_size=5))


options = st.fixed_dictionaries({}, optional={
    "strategy": st.one_of(st.sampled_from(["mrv", "naive"]), any_of()),
    "tie_break": st.one_of(st.sampled_from(["rotate", "first", "random"]), any_of()),
    "seed": st.one_of(st.integers(0, 2**64 - 1), any_of(st.integers(-(2**70), 2**70))),
    "max_steps": st.one_of(st.integers(0, 300), any_of(st.integers(-(2**70), 2**70))),
    "limit": st.one_of(st.integers(1, 4), any_of(st.integers(-(2**70), 2**70))),
})


def valid(board: str) -> bool:
    try:
        parse_board(board)
    except ValueError:
        return False
    return True


@FUZZ
@given(board=boards(), options=options, budget=st.integers(0, 120))
def test_the_stepper_never_crashes_and_agrees_with_the_reference(board, options, budget):
    try:
        stepper = Stepper(board, **options)
    except (ValueError, TypeError) as error:
        assert str(error)
        # The reference validates the same way (its messages may differ).
        try:
            reference.Stepper(board, **options)
        except (ValueError, TypeError):
            return
        raise AssertionError(f"only the C side rejected {options}: {error}")
    options.setdefault("max_steps", 300)
    stepper = Stepper(board, **options)
    oracle = reference.Stepper(board, **options)
    while stepper.status == "running":
        data = stepper.run(budget or 1)
        assert data == oracle.run(budget or 1)
        assert all(cell < 81 and value <= 9 for cell, value in zip(data[::2], data[1::2]))
        assert stepper.steps == stepper.placements + stepper.retractions
    assert [getattr(stepper, n) for n in STATE] == [getattr(oracle, n) for n in STATE]
    assert stepper.cursor == -1
    puzzle = "".join("." if v == 0 else str(v) for v in parse_board(board))
    if stepper.solution is not None:
        assert is_completion(puzzle, stepper.solution)
    if stepper.status == "exhausted":
        assert stepper.solutions == 0 and solve(board) is None


@FUZZ
@given(board=boards(), limit=any_of(st.integers(-3, 5)), cap=any_of(st.integers(-3, 50)))
def test_the_fast_path_never_crashes_and_answers_consistently(board, limit, cap):
    try:
        found, complete = count(board, limit=limit, max_steps=cap)
    except (ValueError, TypeError) as error:
        assert str(error)
        return
    assert 0 <= found <= limit and isinstance(complete, bool)
    solution = solve(board)
    puzzle = "".join("." if v == 0 else str(v) for v in parse_board(board))
    if solution is None:
        assert found == 0 or not complete
    else:
        assert is_completion(puzzle, solution)
        assert found >= 1 or not complete


@FUZZ
@given(text=st.text(max_size=300))
def test_parse_board_takes_exactly_81_cells_of_1_9_dot_or_0(text):
    cells = [ch for ch in text if ch not in " \t\n\r\v\f"]
    if valid(text):
        assert len(cells) == 81 and all(ch in "123456789.0" for ch in cells)
        assert parse_board(text) == bytes(0 if ch in ".0" else int(ch) for ch in cells)
    else:
        assert len(cells) != 81 or any(ch not in "123456789.0" for ch in cells)


@st.composite
def pencil_marks(draw):
    """81 masks: sometimes any ints at all, mostly masks 0-511."""
    if draw(st.integers(0, 5)) == 0:
        return draw(st.lists(any_of(st.integers(-5, 2**40)), max_size=90))
    return draw(st.lists(st.integers(0, 0x1FF), min_size=81, max_size=81))


@FUZZ
@given(board=boards(), marks=st.one_of(st.none(), pencil_marks()), unique=st.booleans(),
       level=st.integers(1, 5))
def test_the_human_solver_never_crashes_and_its_steps_are_candidates(board, marks, unique, level):
    try:
        step = logic.step(board, marks, unique=unique, max_level=level)
    except (ValueError, TypeError) as error:
        assert str(error)
        return
    if step is None:
        return
    cells = parse_board(board)
    assert logic.LEVELS[step.technique] <= level
    assert (step.cell >= 0) != bool(step.eliminations)
    for c, d in step.eliminations + (((step.cell, step.digit),) if step.cell >= 0 else ()):
        assert cells[c] == 0 and 1 <= d <= 9
        assert marks is None or marks[c] >> (d - 1) & 1


@FUZZ
@given(blanks=st.lists(st.integers(0, 80), min_size=40, max_size=81), data=st.data())
def test_steps_from_right_pencil_marks_never_remove_the_solution(blanks, data):
    """Pencil marks that keep the solution's values, whatever else they drop: every
    step places the solution's value or removes another."""
    cells = list(WIKIPEDIA_SOLUTION)
    for c in blanks:
        cells[c] = "."
    board = "".join(cells)
    solution = parse_board(WIKIPEDIA_SOLUTION)
    marks = [data.draw(st.integers(0, 0x1FF)) | 1 << (solution[c] - 1) for c in range(81)]
    for step in logic.path(board, marks, unique=count(board)[0] == 1)[:30]:
        if step.cell >= 0:
            assert solution[step.cell] == step.digit
        assert all(solution[c] != d for c, d in step.eliminations)
