"""worker.hints against the real engine: every kind of reply, its reason, its JSON form."""

from __future__ import annotations

import pytest
from google.protobuf.json_format import MessageToDict, ParseDict

from sudoku import engine
from sudoku.grid import BOXES, COLUMNS, EMPTY, PEERS, ROWS, cell_name, check_entries, to_string, to_values
from sudoku.replies import hint_reply
from sudoku.v1.sudoku_pb2 import HintReply
from tests.puzzles import puzzles
from worker import logic
from worker.hints import FROM_SOLUTION_REASON, candidates, hint

# qqwing "easy": unique, and singles solve it.
EASY = "...7..3..83.9625.7..7.53..2.....52.9...6...4.....8....9...36..8.....76.5.8......3"
# norvig_hardest.txt line 11: unique, and no cell or unit has a single at the start.
NO_SINGLE = "....7..2.8.......6.1.2.5...9.54....8.........3....85.1...3.2.8.4.......9.7..6...."


def board(cells: dict[str, int]) -> str:
    """A board holding `cells` ({"r4c7": 3, ...}), blank elsewhere."""
    values = [0] * 81
    for name, value in cells.items():
        values[(int(name[1]) - 1) * 9 + int(name[3]) - 1] = value
    return to_string(values)


def entries_from(solution: str, cells: list[int], base: str = EMPTY) -> str:
    """`base` with the solution's values written at `cells`."""
    values = to_values(base)
    for c in cells:
        values[c] = int(solution[c])
    return to_string(values)


def place(board_: str, cell: int, value: int) -> str:
    return board_[:cell] + str(value) + board_[cell + 1 :]


def blanks(puzzle: str) -> list[int]:
    return [c for c in range(81) if puzzle[c] == "."]


def round_trip(reply: dict) -> dict:
    return MessageToDict(ParseDict(reply, HintReply()), preserving_proto_field_name=True)


def canonical(reply: dict) -> dict:
    """`reply` as protobuf JSON prints it: proto3 leaves out a zero scalar, and hint()
    writes move.cell even when it is 0 (r1c1), for readers of the dict."""
    if reply.get("move", {}).get("cell") == 0:
        reply = {**reply, "move": {k: v for k, v in reply["move"].items() if k != "cell"}}
    return reply


# -- Hand-made boards: the reasons a player reads ---------------------------------------

# r4c7 sees 1 and 2 in its row, 4, 5 and 6 in its column, 7, 8 and 9 in its box.
NAKED_AT_R4C7 = board(
    {"r4c1": 1, "r4c2": 2, "r1c7": 4, "r2c7": 5, "r3c7": 6, "r5c8": 7, "r5c9": 8, "r6c8": 9}
)

# The 8s in row 4, row 6, column 5 and column 6 leave r5c4 as box 5's only place for 8;
# every other cell has more than one candidate and every box before box 5 more than one
# place for each value.
HIDDEN_AT_R5C4 = board({"r4c1": 8, "r6c9": 8, "r1c5": 8, "r8c6": 8})


def test_naked_single_reason():
    reply = hint(NAKED_AT_R4C7)
    assert reply["kind"] == "NEXT_MOVE"
    assert reply["move"] == {"cell": 33, "value": 3, "technique": "NAKED_SINGLE"}
    assert reply["reason"] == (
        "r4c7 can only be 3: its row, column and box hold the other eight values"
    )


def test_hidden_single_reason():
    reply = hint(HIDDEN_AT_R5C4)
    assert reply["move"] == {
        "cell": 39,
        "value": 8,
        "technique": "HIDDEN_SINGLE",
        "unit": {"kind": "BOX", "index": 5},
    }
    assert reply["reason"] == "in box 5, only r5c4 can hold 8"
    assert reply["not_unique"] is True  # four givens: the single holds in every solution


def test_naked_single_of_lowest_cell_comes_first():
    solution = engine.solve(EASY)
    first, *middle, last = blanks(EASY)
    reply = hint(EASY, entries_from(solution, middle))  # two blanks left, each a naked single
    value = int(solution[first])
    assert reply["move"] == {"cell": first, "value": value, "technique": "NAKED_SINGLE"}


def test_no_single_gives_the_eliminations_then_the_placement_they_allow():
    reply = hint(NO_SINGLE)
    solution = engine.solve(NO_SINGLE)
    assert reply["kind"] == "NEXT_MOVE" and reply["move"]["value"] == int(solution[reply["move"]["cell"]])
    assert [s["technique"] for s in reply["before"]] == ["POINTING"]
    assert reply["step"]["technique"] == "NAKED_SINGLE" and reply["move"]["technique"] == "NAKED_SINGLE"
    pointing = reply["before"][0]["reason"]
    assert pointing == "Pointing: in box 2, 6 can only go in row 1, so 6 is not in r1c1, r1c2 or r1c3"
    # r1c1 lost 6 to the pointing, not to its row, column and box
    assert reply["reason"] == "after 1 elimination step (pointing): Naked single: r1c1 has no candidate left but 5"


def test_no_logical_step_gives_the_most_constrained_cell_from_a_solution():
    reply = hint(EMPTY)  # every grid is a solution: no step can be proved
    assert reply["move"] == {"cell": 0, "value": int(engine.solve(EMPTY)[0]), "technique": "FROM_SOLUTION"}
    assert reply["reason"] == FROM_SOLUTION_REASON and reply["not_unique"] is True
    assert "step" not in reply


# -- Entries --------------------------------------------------------------------------

def test_no_entries():
    reply = hint(EASY)
    solution = engine.solve(EASY)
    assert reply["kind"] == "NEXT_MOVE"
    assert "not_unique" not in reply
    assert EASY[reply["move"]["cell"]] == "."
    assert reply["move"]["value"] == int(solution[reply["move"]["cell"]])


def test_correct_entries_are_kept_and_the_move_is_elsewhere():
    solution = engine.solve(EASY)
    entered = blanks(EASY)[::2]
    reply = hint(EASY, entries_from(solution, entered))
    assert reply["kind"] == "NEXT_MOVE"
    assert reply["move"]["cell"] not in entered
    assert reply["move"]["value"] == int(solution[reply["move"]["cell"]])


def wrong_candidates(puzzle: str, solution: str) -> list[tuple[int, int]]:
    """(cell, value) pairs that break no rule on `puzzle` but differ from `solution`."""
    masks = candidates(engine.parse_board(puzzle))
    return [
        (c, v)
        for c in range(81)
        for v in range(1, 10)
        if masks[c] >> (v - 1) & 1 and v != int(solution[c])
    ]


def test_wrong_entry_that_breaks_no_rule_yet():
    solution = engine.solve(EASY)
    right = blanks(EASY)[:5]
    # Two wrong entries after five right ones; the first wrong one in reading order is named.
    (first, v1), *rest = wrong_candidates(entries_from(solution, right, EASY), solution)
    second, v2 = next((c, v) for c, v in rest if c > first and c not in PEERS[first])
    reply = hint(EASY, place(place(entries_from(solution, right), first, v1), second, v2))
    assert reply == {
        "kind": "WRONG_ENTRY",
        "wrong": {"cells": [first], "should_be": int(solution[first])},
        "reason": f"{cell_name(first)} is wrong: {v1} breaks no rule yet, "
        f"but the solution has {solution[first]} there",
    }


def test_two_entries_in_conflict():
    reply = hint(HIDDEN_AT_R5C4, board({"r2c3": 5, "r2c8": 5}))
    assert reply == {
        "kind": "WRONG_ENTRY",
        "wrong": {"cells": [11, 16], "unit": {"kind": "ROW", "index": 2}},
        "reason": "r2c3 and r2c8 both hold 5 in row 2",
    }


def test_entry_in_conflict_with_a_given():
    reply = hint(HIDDEN_AT_R5C4, board({"r1c1": 8}))
    assert reply["wrong"] == {"cells": [0, 4], "unit": {"kind": "ROW", "index": 1}}
    assert reply["reason"] == "r1c1 and r1c5 both hold 8 in row 1; r1c5 is a given"


def test_conflict_of_the_first_entry_is_named_row_before_box():
    # r7c1 and r7c2 share row 7 and box 7; r9c8 and r9c9 clash too, but come later.
    reply = hint(HIDDEN_AT_R5C4, board({"r9c8": 3, "r9c9": 3, "r7c1": 4, "r7c2": 4}))
    assert reply["wrong"] == {"cells": [54, 55], "unit": {"kind": "ROW", "index": 7}}
    assert reply["reason"] == "r7c1 and r7c2 both hold 4 in row 7"


def test_complete_correct_board_is_solved():
    solution = engine.solve(EASY)
    assert hint(EASY, entries_from(solution, blanks(EASY))) == {
        "kind": "SOLVED",
        "reason": "the board is complete and right",
    }
    assert hint(solution)["kind"] == "SOLVED"


def test_a_whole_grid_repeating_its_givens_is_accepted():
    solution = engine.solve(EASY)
    assert hint(EASY, solution)["kind"] == "SOLVED"  # the game's grid, givens included
    assert hint(EASY, board({"r1c4": 7})) == hint(EASY)  # r1c4's given, repeated: no entry


def test_another_value_on_a_given_is_an_error():
    with pytest.raises(ValueError, match=r"^entries: cell r1c4 holds the given 7, not 3$"):
        hint(EASY, board({"r1c4": 3}))
    with pytest.raises(ValueError, match="r9c9"):
        check_entries(engine.parse_board(EASY), engine.parse_board(board({"r9c9": 4})))
    check_entries(engine.parse_board(EASY), engine.parse_board(board({"r1c1": 1})))


def test_bad_boards_name_the_field_and_the_cell():
    with pytest.raises(ValueError, match=r"^givens: .*r1c3"):
        hint("12x" + "." * 78)
    with pytest.raises(ValueError, match=r"^entries: .*81"):
        hint(EASY, "." * 80)


def test_board_format_blanks_and_whitespace():
    nine_lines = "\n".join(EASY[r * 9 : r * 9 + 9].replace(".", "0") for r in range(9))
    assert hint(nine_lines, " " + "." * 81 + "\n") == hint(EASY)


# -- Puzzles without one solution -------------------------------------------------------

def test_contradictory_givens_list_every_cell_in_conflict():
    # A 7 at r1c2 clashes with r1c4 (row 1) and r3c3 (box 1); an 8 at r4c1 with r2c1.
    givens = place(place(EASY, 1, 7), 27, 8)
    reply = hint(givens, board({"r1c1": 1}))
    assert reply == {
        "kind": "NO_SOLUTION",
        "conflicts": [1, 3, 9, 20, 27],
        "reason": "the givens break the rules: r1c2 and r1c4 both hold 7 in row 1",
    }


def test_no_solution_without_a_conflict():
    for puzzle in puzzles("invalid_no_solution"):
        assert hint(puzzle) == {
            "kind": "NO_SOLUTION",
            "reason": "the givens have no solution, though no two of them break a rule",
        }


def test_two_solutions_still_give_a_move_and_say_so():
    puzzle = puzzles("multi_solution_16_clue")[0]
    reply = hint(puzzle)
    assert reply["not_unique"] is True
    assert reply["kind"] == "NEXT_MOVE"
    assert reply["move"]["value"] == int(engine.solve(puzzle)[reply["move"]["cell"]])


def test_two_solutions_follow_the_one_the_entries_chose():
    puzzle = puzzles("multi_solution_16_clue")[0]
    first = engine.solve(puzzle)
    # An entry from another solution: a cell where some solution differs from the first.
    cell, value = next(
        (c, v) for c in blanks(puzzle) for v in range(1, 10)
        if v != int(first[c]) and engine.solve(place(puzzle, c, v))
    )
    other = engine.solve(place(puzzle, cell, value))
    reply = hint(puzzle, entries_from(other, [cell]))
    assert reply["not_unique"] is True
    assert reply["move"]["value"] == int(other[reply["move"]["cell"]])
    # Finishing the board the other way is SOLVED too.
    assert hint(puzzle, entries_from(other, blanks(puzzle))) == {
        "kind": "SOLVED", "reason": "the board is complete and right", "not_unique": True,
    }


def test_two_solutions_and_no_solution_keeps_every_entry():
    puzzle = puzzles("multi_solution_16_clue")[0]
    first = engine.solve(puzzle)
    kept = blanks(puzzle)[:10]
    with_kept = entries_from(first, kept, puzzle)
    # A value that breaks no rule, yet no solution keeping the first ten entries has it.
    masks = candidates(engine.parse_board(with_kept))
    cell, value = next(
        (c, v) for c in blanks(with_kept) if c > kept[-1] for v in range(1, 10)
        if masks[c] >> (v - 1) & 1 and engine.count(place(with_kept, c, v))[0] == 0
    )
    # A later entry from the first solution, of another value so that it breaks no rule with the
    # wrong one (which solution comes first is the engine's choice).
    later = next(c for c in blanks(with_kept) if c > cell and int(first[c]) != value)
    entries = place(entries_from(first, kept + [later]), cell, value)
    reply = hint(puzzle, entries)
    should_be = int(engine.solve(with_kept)[cell])
    assert reply["kind"] == "WRONG_ENTRY"
    assert reply["not_unique"] is True
    assert reply["wrong"] == {"cells": [cell], "should_be": should_be}
    assert reply["reason"] == (
        f"{cell_name(cell)} is wrong: the puzzle has more than one solution, but none keeps "
        f"{value} there along with your entries before it; one that keeps those has {should_be}"
    )


# -- Candidates -------------------------------------------------------------------------

def test_candidates_on_a_hand_made_board():
    masks = hint(NAKED_AT_R4C7, include_candidates=True)["candidates"]
    assert len(masks) == 81
    assert masks[33] == 0b000000100  # r4c7: only 3
    assert masks[7] == 0b010000111  # r1c8: 1, 2, 3, 8 (row 1 has 4, box 3 5-6, column 8 7 and 9)
    assert masks[0] == 0b111110110  # r1c1: not 1 (column 1) or 4 (row 1)
    assert masks[27] == masks[6] == 0  # givens
    assert masks[75] == 0b111111111  # r9c4: nothing in row 9, column 4 or box 8


def test_candidates_agree_with_the_peers():
    for puzzle in puzzles("qqwing_expert")[:10] + [EASY]:
        cells = engine.parse_board(puzzle)
        seen = [{cells[p] for p in PEERS[c]} for c in range(81)]
        expected = [
            0 if cells[c] else sum(1 << (v - 1) for v in range(1, 10) if v not in seen[c])
            for c in range(81)
        ]
        assert candidates(cells) == expected
        assert hint(puzzle, include_candidates=True)["candidates"] == expected


def test_candidates_count_the_entries():
    reply = hint(NAKED_AT_R4C7, board({"r4c9": 3}), include_candidates=True)
    assert reply["candidates"][33] == 0  # r4c7 lost its last candidate to the entry
    assert reply["candidates"][35] == 0  # r4c9 holds an entry


# -- Over the test puzzles --------------------------------------------------------------

UNIQUE_SETS = [
    "17_clue", "qqwing_easy", "qqwing_intermediate", "qqwing_expert",
    "norvig_top95", "norvig_hardest", "magictour_top1465", "forum_hardest_1106",
    "forum_hardest_1905_11plus", "msolve_hardest_to_solve", "msolve_hardest_to_verify",
]


@pytest.mark.parametrize("name", UNIQUE_SETS)
def test_every_move_agrees_with_the_solution(name):
    # The first hint of a forum puzzle takes forcing nets, up to a second.
    for puzzle in puzzles(name)[: 8 if name.startswith(("forum", "msolve")) else 20]:
        reply = hint(puzzle)
        solution = engine.solve(puzzle)
        assert reply["kind"] == "NEXT_MOVE" and "not_unique" not in reply
        assert puzzle[reply["move"]["cell"]] == "."
        assert reply["move"]["value"] == int(solution[reply["move"]["cell"]]), puzzle


MULTIPLE_SETS = ["multi_solution_16_clue", "serg_benchmark_multi_solution"]


@pytest.mark.parametrize("name", MULTIPLE_SETS)
def test_every_move_of_a_puzzle_with_two_solutions_agrees_with_the_engines_first(name):
    for puzzle in puzzles(name):
        reply = hint(puzzle)
        assert reply["kind"] == "NEXT_MOVE" and reply["not_unique"] is True
        assert reply["move"]["value"] == int(engine.solve(puzzle)[reply["move"]["cell"]]), puzzle


@pytest.mark.parametrize("name", ["qqwing_easy", "norvig_hardest"])
def test_following_the_hints_solves_the_puzzle(name):
    for puzzle in puzzles(name)[:10]:
        solution = engine.solve(puzzle)
        entries = EMPTY
        while (reply := hint(puzzle, entries))["kind"] == "NEXT_MOVE":
            move = reply["move"]
            assert move["value"] == int(solution[move["cell"]])
            entries = place(entries, move["cell"], move["value"])
        assert reply["kind"] == "SOLVED"


def places(puzzle: str, unit_cells: tuple[int, ...], value: int) -> list[int]:
    """The blank cells of a unit where `value` breaks no rule, found from the peers."""
    return [
        c for c in unit_cells
        if puzzle[c] == "." and all(puzzle[p] != str(value) for p in PEERS[c])
    ]


@pytest.mark.parametrize("name", ["17_clue", "magictour_top1465", "qqwing_expert"])
def test_hidden_singles_are_taken_box_row_column_then_lowest_value(name):
    seen = set()
    for puzzle in puzzles(name):
        reply = hint(puzzle)
        if reply["move"]["technique"] != "HIDDEN_SINGLE" or "before" in reply:
            continue
        # The first unit, in that order, with a value that fits one blank only,
        # and its lowest such value.
        unit, value = next(
            (u, v) for u in BOXES + ROWS + COLUMNS for v in range(1, 10)
            if len(places(puzzle, u.cells, v)) == 1
        )
        assert reply["move"] == {
            "cell": places(puzzle, unit.cells, value)[0],
            "value": value,
            "technique": "HIDDEN_SINGLE",
            "unit": {"kind": unit.kind.upper(), "index": unit.index},
        }
        seen.add(unit.kind)
    assert "box" in seen


def test_hard_puzzles_from_the_forum_need_steps_before_their_first_placement():
    for puzzle in puzzles("forum_hardest_1905_11plus")[:10]:
        reply = hint(puzzle)
        assert reply["move"]["technique"] != "FROM_SOLUTION" and reply["before"]
        assert reply["move"]["value"] == int(engine.solve(puzzle)[reply["move"]["cell"]])


# -- Pencil marks ---------------------------------------------------------------------------


def test_pencil_marks_give_the_next_step_on_them():
    masks = candidates(engine.parse_board(NO_SINGLE))
    reply = hint(NO_SINGLE, pencil_marks=masks)
    assert reply["kind"] == "ELIMINATION" and "move" not in reply
    assert reply["step"]["technique"] == "POINTING"
    assert reply["step"]["eliminations"] == [{"value": 6}, {"cell": 1, "value": 6}, {"cell": 2, "value": 6}]
    assert reply["reason"] == reply["step"]["reason"]
    for cell in (0, 1, 2):
        masks[cell] &= ~(1 << 5)
    after = hint(NO_SINGLE, pencil_marks=masks, include_candidates=True)
    assert after["move"] == {"cell": 0, "value": 5, "technique": "NAKED_SINGLE"}
    assert after["reason"] == "Naked single: r1c1 has no candidate left but 5"
    assert after["candidates"][0] == 1 << 4


def test_a_whole_game_by_hints_with_pencil_marks_never_needs_the_solution():
    """The player follows every hint: places the moves, crosses out the eliminations."""
    kinds = set()
    for puzzle in puzzles("norvig_hardest") + puzzles("magictour_top1465")[:5]:
        solution = engine.solve(puzzle)
        entries, masks = EMPTY, candidates(engine.parse_board(puzzle))
        while (reply := hint(puzzle, entries, pencil_marks=masks))["kind"] in ("NEXT_MOVE", "ELIMINATION"):
            kinds.add(reply["kind"])
            assert reply["step"]["technique"] and reply["reason"]
            if reply["kind"] == "NEXT_MOVE":
                move = reply["move"]
                assert move["technique"] != "FROM_SOLUTION"
                assert move["value"] == int(solution[move["cell"]])
                entries = place(entries, move["cell"], move["value"])
            for e in reply["step"].get("eliminations", []):
                cell = e.get("cell", 0)  # proto3 JSON leaves out a zero
                assert int(solution[cell]) != e["value"]
                masks[cell] &= ~(1 << (e["value"] - 1))
        assert reply["kind"] == "SOLVED"
    assert kinds == {"NEXT_MOVE", "ELIMINATION"}


def test_pencil_marks_without_a_cells_value_are_a_wrong_entry():
    solution = engine.solve(EASY)
    masks = candidates(engine.parse_board(EASY))
    cell = blanks(EASY)[3]
    masks[cell] &= ~(1 << (int(solution[cell]) - 1))
    reply = hint(EASY, pencil_marks=masks)
    assert reply == {
        "kind": "WRONG_ENTRY",
        "wrong": {"cells": [cell], "should_be": int(solution[cell]), "pencil_marks": True},
        "reason": f"the pencil marks of {cell_name(cell)} leave out {solution[cell]}, "
        "which the solution has there",
    }
    # A wrong placed entry is named before wrong pencil marks.
    first, value = wrong_candidates(EASY, solution)[0]
    assert hint(EASY, place(EMPTY, first, value), pencil_marks=masks)["wrong"]["cells"] == [first]


def test_marks_the_board_rules_out_and_marks_of_filled_cells_are_ignored():
    masks = [0x1FF] * 81  # every mark on: the rules remove what the board holds
    assert hint(EASY, pencil_marks=masks)["step"] == hint(EASY)["step"]


def test_bad_pencil_marks_name_the_field_and_cell():
    with pytest.raises(ValueError, match=r"^pencil_marks: expected 81 masks \(one per cell\), got 3$"):
        hint(EASY, pencil_marks=[0, 0, 0])
    with pytest.raises(ValueError, match=r"^pencil_marks: cell r1c2: 512 is not a mask of values 1-9"):
        hint(EASY, pencil_marks=[0, 512] + [0] * 79)


# -- The reply's JSON form --------------------------------------------------------------

def test_every_kind_of_reply_parses_as_hint_reply():
    solution = engine.solve(EASY)
    replies = [
        hint(EASY, include_candidates=True),
        hint(HIDDEN_AT_R5C4),
        hint(NO_SINGLE),
        hint(HIDDEN_AT_R5C4, board({"r1c1": 8})),
        hint(EASY, place(EMPTY, *next(iter(wrong_candidates(EASY, solution))))),
        hint(EASY, entries_from(solution, blanks(EASY))),
        hint(puzzles("invalid_no_solution")[0]),
        hint(place(EASY, 1, 7)),
    ]
    replies.append(hint(NO_SINGLE, pencil_marks=candidates(engine.parse_board(NO_SINGLE))))
    replies.append(hint(EASY, pencil_marks=[0] * 81))
    assert {r["kind"] for r in replies} == {"NEXT_MOVE", "WRONG_ENTRY", "SOLVED", "NO_SOLUTION", "ELIMINATION"}
    assert replies[2]["move"]["cell"] == 0  # the one zero hint() writes out
    for reply in replies:
        assert round_trip(reply) == canonical(reply)
        assert hint_reply(reply) == ParseDict(reply, HintReply())  # the service's faster conversion


def test_an_avoidable_rectangle_needs_the_players_entries_not_givens():
    """magictour_top1465 line 56 after 40 steps: r7c5, r9c5 and r9c8 were filled in by the
    player, so with the givens apart r7c8 loses 6; sent as givens, the same board has no
    avoidable rectangle (a given's value is fixed in every solution)."""
    from tests.test_engine_logic import Game
    puzzle = puzzles("magictour_top1465")[56]
    game = Game(puzzle)
    for s in logic.path(puzzle, unique=True)[:40]:
        game.play(s)
    entries = game.board()
    reply = hint(puzzle, entries, pencil_marks=game.masks)
    step = reply["step"]
    assert (reply["kind"], step["technique"], step["variant"]) == ("ELIMINATION", "AVOIDABLE_RECTANGLE", 1)
    assert step["eliminations"] == [{"cell": cell_index("r7c8"), "value": 6}]
    assert reply["reason"].startswith("Avoidable rectangle: r7c5, r9c5 and r9c8 were filled in as 2, 6 and 2")
    assert hint(entries, pencil_marks=game.masks)["step"]["technique"] != "AVOIDABLE_RECTANGLE"
    ParseDict(reply, HintReply())


def cell_index(name: str) -> int:
    return (int(name[1]) - 1) * 9 + int(name[3]) - 1
