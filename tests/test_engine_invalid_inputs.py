"""sudoku.engine on bad input: a clear exception with a useful message, never a crash.

parse_board is the one validator (the gRPC service shows its messages to
users), so its messages are pinned exactly.
"""

from __future__ import annotations

import time

import pytest

from sudoku.engine import Stepper, count, parse_board, solve
from tests.puzzles import EMPTY, WIKIPEDIA
from worker import reference

CELL_CHARS = set("123456789.0")
SPACES = set(" \t\n\r\v\f")
BOARD_TAKERS = [
    parse_board,
    solve,
    count,
    Stepper,
    reference.Stepper,
]


def rejects(function, exception, message, *args, **kwargs):
    with pytest.raises(exception) as error:
        function(*args, **kwargs)
    assert str(error.value) == message
    return error


# ---- boards ----


@pytest.mark.parametrize("take", BOARD_TAKERS, ids=lambda f: f.__qualname__)
@pytest.mark.parametrize("length", [0, 1, 80, 82, 162])
def test_wrong_lengths_say_how_many_cells(take, length):
    rejects(take, ValueError, f"expected 81 cells, got {length}", "." * length)


def test_whitespace_does_not_count_as_cells():
    rejects(parse_board, ValueError, "expected 81 cells, got 80", " \n".join("." * 80))
    rejects(parse_board, ValueError, "expected 81 cells, got 0", " \t\n\r\v\f" * 1000)


@pytest.mark.parametrize("code", range(256))
def test_every_byte_value_is_a_cell_whitespace_or_a_named_error(code):
    char = chr(code)
    board = "." * 40 + char + "." * 40
    if char in CELL_CHARS:
        assert len(parse_board(board)) == 81
    elif char in SPACES:
        rejects(parse_board, ValueError, "expected 81 cells, got 80", board)
    else:
        rejects(parse_board, ValueError, f"cell r5c5: {char!r} is not 1-9, '.' or '0'", board)


@pytest.mark.parametrize("char", [
    "\u0663",  # Arabic-Indic digit three: str.isdigit() is True
    "\u06f5",  # extended Arabic-Indic five
    "\uff13",  # full-width 3
    "\u2463",  # circled digit four
    "\u00b2",  # superscript two
    "\u0969",  # Devanagari three
    "\x00",    # NUL
    "\u00a0",  # no-break space: whitespace, but not ASCII
    "\u2003",  # em space
    "\x1c",    # a separator str.split() treats as whitespace
    "\ud800",  # a lone surrogate
    "\U0001f600",
    "x",
    "'",
])
@pytest.mark.parametrize("take", BOARD_TAKERS, ids=lambda f: f.__qualname__)
def test_unicode_lookalikes_and_control_characters_are_named(take, char):
    board = "." * 20 + char + "." * 60
    rejects(take, ValueError, f"cell r3c3: {char!r} is not 1-9, '.' or '0'", board)


def test_the_first_bad_character_is_reported_before_the_length():
    rejects(parse_board, ValueError, "cell r1c1: 'x' is not 1-9, '.' or '0'", "x")
    rejects(parse_board, ValueError, "cell r9c9: 'y' is not 1-9, '.' or '0'", "." * 80 + "yz")
    rejects(parse_board, ValueError, "cell 82: '\\x00' is not 1-9, '.' or '0'", "." * 81 + "\x00")
    rejects(parse_board, ValueError, "cell 1001: '?' is not 1-9, '.' or '0'", "." * 1000 + "?")


def test_cells_are_numbered_by_cells_not_by_characters():
    rejects(parse_board, ValueError, "cell r2c1: '-' is not 1-9, '.' or '0'",
            "\n".join(["." * 9, "-" * 9]))


@pytest.mark.parametrize("value", [None, b"." * 81, bytearray(b"." * 81), 81, 3.5, ["."] * 81,
                                   memoryview(b"." * 81)])
@pytest.mark.parametrize("take", BOARD_TAKERS, ids=lambda f: f.__qualname__)
def test_a_board_that_is_not_a_str_is_a_type_error(take, value):
    with pytest.raises(TypeError, match="board must be a str"):
        take(value)


def test_a_str_subclass_is_a_board():
    class Board(str):
        pass

    assert parse_board(Board(WIKIPEDIA)) == parse_board(WIKIPEDIA)


def test_a_huge_string_is_rejected_quickly_with_a_short_message():
    size = 10_000_000
    for huge, message in [
        ("1" * size, f"expected 81 cells, got {size}"),
        ("." * size + "x", f"cell {size + 1}: 'x' is not 1-9, '.' or '0'"),
        ("x" * size, "cell r1c1: 'x' is not 1-9, '.' or '0'"),
        ("." * 81 + "\u0663" * size, "cell 82: '\u0663' is not 1-9, '.' or '0'"),
    ]:
        start = time.perf_counter()
        for take in (parse_board, solve, count, Stepper):
            rejects(take, ValueError, message, huge)
        assert time.perf_counter() - start < 2.0  # about 0.1 s: one linear pass each


# ---- options ----


@pytest.mark.parametrize("make", [Stepper, reference.Stepper], ids=["C", "reference"])
class TestStepperOptions:
    def test_unknown_strategy_names_the_accepted_ones(self, make):
        rejects(make, ValueError, "unknown strategy 'dfs': expected 'mrv' or 'naive'",
                EMPTY, strategy="dfs")
        rejects(make, ValueError, "unknown strategy 'MRV': expected 'mrv' or 'naive'",
                EMPTY, strategy="MRV")

    def test_unknown_tie_break_names_the_accepted_ones(self, make):
        rejects(make, ValueError,
                "unknown tie_break 'last': expected 'rotate', 'first' or 'random'",
                EMPTY, tie_break="last")

    @pytest.mark.parametrize("name", ["strategy", "tie_break"])
    def test_a_non_str_option_is_a_type_error(self, make, name):
        with pytest.raises((TypeError, ValueError)):
            make(EMPTY, **{name: None})

    def test_negative_caps_limits_and_seeds_are_value_errors(self, make):
        for name, value in [("max_steps", -1), ("limit", 0), ("limit", -5), ("seed", -1),
                            ("seed", 2**64), ("max_steps", -10**30)]:
            with pytest.raises(ValueError, match=name):
                make(EMPTY, **{name: value})

    def test_non_int_caps_limits_and_seeds_are_type_errors(self, make):
        for name in ("max_steps", "limit", "seed"):
            for value in (1.0, "3", b"3"):
                with pytest.raises(TypeError, match=f"{name} must be an int"):
                    make(EMPTY, **{name: value})

    def test_options_are_keyword_only(self, make):
        with pytest.raises(TypeError):
            make(EMPTY, "mrv")

    def test_huge_caps_and_limits_mean_no_cap(self, make):
        stepper = make(EMPTY, max_steps=10**30, limit=10**30, strategy="naive")
        assert stepper.skip(2000) == 2000 and stepper.status == "running"

    def test_zero_max_steps_gives_up_before_the_first_step(self, make):
        stepper = make(EMPTY, max_steps=0)
        assert (stepper.status, stepper.steps, stepper.run(10)) == ("gave_up", 0, b"")

    def test_bad_budgets_are_rejected_and_change_nothing(self, make):
        stepper = make(WIKIPEDIA)
        for method in (stepper.run, stepper.skip):
            rejects(method, ValueError, "budget must be >= 0, got -1", -1)
            with pytest.raises(ValueError, match="budget must be >= 0"):
                method(-10**40)
            for value in (1.5, "10", None, b"1"):
                with pytest.raises(TypeError, match="budget must be an int"):
                    method(value)
        assert stepper.steps == 0 and stepper.status == "running"

    def test_zero_and_huge_budgets_are_fine(self, make):
        stepper = make(WIKIPEDIA)
        assert stepper.run(0) == b"" and stepper.skip(0) == 0
        assert len(stepper.run(10**40)) == 2 * stepper.steps
        assert stepper.status == "solved"

    def test_state_is_read_only(self, make):
        stepper = make(WIKIPEDIA)
        for name in ("status", "steps", "placements", "retractions", "solutions", "cursor",
                     "board", "solution", "conflicts"):
            with pytest.raises(AttributeError):
                setattr(stepper, name, 0)


def test_count_rejects_bad_limits_and_caps():
    rejects(count, ValueError, "limit must be >= 1, got 0", EMPTY, limit=0)
    rejects(count, ValueError, "limit must be >= 1, got -3", EMPTY, -3)
    # The fast path's cap counts guesses; 0 would forbid any, which it
    # cannot express, so it is refused rather than read as "no cap".
    rejects(count, ValueError, "max_steps must be >= 1, got 0", EMPTY, max_steps=0)
    rejects(count, ValueError, "max_steps must be >= 1, got -1", EMPTY, max_steps=-1)
    with pytest.raises(TypeError, match="limit must be an int"):
        count(EMPTY, limit=2.0)
    with pytest.raises(TypeError, match="max_steps must be an int"):
        count(EMPTY, max_steps="5")
    assert count(EMPTY, limit=10**30, max_steps=3)[1] is False


def test_wrong_arity_is_a_type_error():
    with pytest.raises(TypeError):
        solve()
    with pytest.raises(TypeError):
        solve(EMPTY, EMPTY)
    with pytest.raises(TypeError):
        count(EMPTY, 2, None, 4)
    with pytest.raises(TypeError):
        parse_board(board=EMPTY)
    with pytest.raises(TypeError):
        Stepper()
    with pytest.raises(TypeError):
        Stepper(EMPTY, colour="red")
    stepper = Stepper(EMPTY)
    with pytest.raises(TypeError):
        stepper.run()
    with pytest.raises(TypeError):
        stepper.run(budget=5)  # positional only, as in the stub


def test_a_huge_option_string_is_not_echoed_back():
    with pytest.raises(ValueError) as error:
        Stepper(EMPTY, strategy="m" * 10_000_000)
    assert len(str(error.value)) < 200
