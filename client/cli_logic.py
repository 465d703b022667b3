"""The `sudoku` subcommands of the human solver: explain (and the step lines
`hint` prints), grade and generate."""

from __future__ import annotations

import argparse
import json
import sys

from google.protobuf import json_format

from client.boards import PUZZLE_HELP, InputError, read_boards
from sudoku.grid import UNITS, cell_name
from sudoku.v1 import sudoku_pb2 as pb

EXPLAIN_HELP = """\
input: FILE or stdin, one puzzle (nine lines of nine, or one line of 81).
stdout: every step of its logical solution, in order: the technique, what
it places or removes, and the sentence a player can follow; then a summary.

example:
  $ sudoku explain puzzle.txt
    1. pointing: r1c1-6 r1c2-6 r1c3-6
       Pointing: in box 2, 6 can only go in row 1, so 6 is not in r1c1, r1c2 or r1c3
    2. naked single: r1c1=5
  ...
  solved in 101 steps; hardest: forcing net (extreme)"""


SINGLES = (pb.Step.FULL_HOUSE, pb.Step.NAKED_SINGLE, pb.Step.HIDDEN_SINGLE)


def technique_name(technique: int) -> str:
    return pb.Step.Technique.Name(technique).replace("_", " ").lower()


def level_name(level: int) -> str:
    return pb.Level.Name(level).lower() if level else "ungraded"


def effect(step: pb.Step) -> str:
    """"r1c1=5", or the eliminations as "r1c1-6 r1c2-6"."""
    if step.HasField("placement"):
        return f"{cell_name(step.placement.cell)}={step.placement.value}"
    return " ".join(f"{cell_name(e.cell)}-{e.value}" for e in step.eliminations)


def pattern_line(step: pb.Step) -> str:
    """The pattern to highlight: its candidates by group, its units."""
    groups: dict[int, list[str]] = {}
    for p in step.pattern:
        groups.setdefault(p.group, []).append(f"{cell_name(p.cell)}({p.value})")
    parts = [" ".join(items) for _, items in sorted(groups.items())]
    text = "pattern: " + " | ".join(parts)
    if step.units:
        text += " in " + ", ".join(str(UNITS[_unit_number(u)]) for u in step.units)
    return text


def _unit_number(unit: pb.Unit) -> int:
    return (unit.kind - 1) * 9 + unit.index - 1


def step_lines(step: pb.Step, number: int | None = None) -> list[str]:
    head = f"{technique_name(step.technique)}: {effect(step)}"
    if number is not None:
        head = f"{number:4}. {head}"
    lines = [head]
    if step.technique not in SINGLES:
        indent = "      " if number is not None else ""
        lines.append(indent + step.reason)
    return lines


def hint_step_lines(reply: pb.HintReply) -> list[str]:
    """What `sudoku hint` adds for a logical step: the steps before, the pattern."""
    lines = []
    for i, before in enumerate(reply.before, 1):
        lines.append(f"first ({i}/{len(reply.before)}): {before.reason}")
    if reply.HasField("step") and reply.step.technique not in SINGLES:
        lines.append(f"{technique_name(reply.step.technique)} ({level_name(reply.step.level)}); "
                     + pattern_line(reply.step))
    return lines


def read_pencil_marks(text: str, source: str) -> list[int]:
    """81 tokens, as `sudoku hint --candidates` prints them: a cell's candidate
    digits ("137"), or "-" for none; whitespace between cells."""
    tokens = [t for t in text.split() if not t.startswith("#")]
    if len(tokens) != 81:
        raise InputError(source, 1, 1, f"pencil marks: expected 81 cells, got {len(tokens)}")
    masks = []
    for i, token in enumerate(tokens):
        if token == "-":
            masks.append(0)
            continue
        if not token.isdigit() or "0" in token:
            raise InputError(source, i // 9 + 1, 1,
                             f"pencil marks: cell {cell_name(i)}: {token!r} is not digits 1-9 or '-'")
        masks.append(sum(1 << (int(d) - 1) for d in set(token)))
    return masks


def cmd_explain(args: argparse.Namespace) -> int:
    from client.cli import OK, UNSOLVABLE, connect, read_puzzle, read_text

    board = read_puzzle(args.file)
    marks = None
    if args.pencil_marks:
        marks = read_pencil_marks(*read_text(args.pencil_marks))
    with connect(args) as client:
        reply = client.explain(board, pencil_marks=marks)
    if args.json:
        print(json.dumps(json_format.MessageToDict(reply)))
        return OK
    for i, step in enumerate(reply.steps, 1):
        sys.stdout.write("\n".join(step_lines(step, i)) + "\n")
    print(summary(reply))
    return UNSOLVABLE if reply.verdict == pb.CountReply.NONE else OK


def summary(reply: pb.ExplainReply) -> str:
    if reply.verdict == pb.CountReply.NONE:
        return "unsolvable: the puzzle has no solution"
    hardest = max(reply.steps, key=lambda s: (s.level, s.technique), default=None)
    text = f"{'solved' if reply.solved else 'stuck'} in {len(reply.steps)} steps"
    if hardest is not None:
        text += f"; hardest: {technique_name(hardest.technique)} ({level_name(hardest.level)})"
    if reply.verdict == pb.CountReply.MULTIPLE:
        text += "; the puzzle has more than one solution, so logic alone cannot finish it"
    return text


def add_explain_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE", help=PUZZLE_HELP)
    parser.add_argument("--pencil-marks", metavar="FILE",
                        help="start from these pencil marks (81 cells as `hint --candidates` prints them)")
    parser.add_argument("--json", action="store_true", help="print the reply as JSON")


GRADE_HELP = """\
input: FILE or stdin, one puzzle or many (each nine lines of nine, or one
line of 81).
stdout: for one puzzle, its level, score, hardest technique and the steps of
each technique, and HoDoKu's level where its score raises it; for many, one
line each: puzzle,level,score,hardest.

example:
  $ sudoku grade puzzle.txt
  hard: score 1128, hardest xy wing, 54 steps
  naked single 20, hidden single 18, full house 9, pointing 4, xy wing 1, ..."""


def grade_text(reply: pb.GradeReply) -> str:
    if reply.verdict != pb.CountReply.UNIQUE:
        return f"ungraded: {pb.CountReply.Verdict.Name(reply.verdict).lower()} solutions"
    text = (f"{level_name(reply.level)}: score {reply.score}, hardest {technique_name(reply.hardest)}, "
            f"{reply.steps} steps")
    if reply.hodoku_level and reply.hodoku_level != reply.level:
        text += f" ({level_name(reply.hodoku_level)} for HoDoKu, by its score)"
    return text


def cmd_grade(args: argparse.Namespace) -> int:
    from client.cli import OK, connect, read_text

    text, source = read_text(args.file)
    boards = [b.cells for b in read_boards(text, source)]
    if not boards:
        raise InputError(source, 1, 1, "no puzzle")
    with connect(args) as client:
        if len(boards) == 1 and not args.csv:
            reply = client.grade(boards[0])
            if args.json:
                print(json.dumps(json_format.MessageToDict(reply)))
                return OK
            print(grade_text(reply))
            ordered = sorted(reply.techniques, key=lambda t: -t.count)
            if ordered:
                print(", ".join(f"{technique_name(t.technique)} {t.count}" for t in ordered))
            return OK
        for board, reply in zip(boards, client.grade_many(boards)):
            level = level_name(reply.level) if not reply.error.message else "error"
            print(f"{board},{level},{reply.score},{technique_name(reply.hardest).replace(' ', '_')}")
    return OK


def add_grade_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE", help="the puzzle(s) (default: stdin)")
    parser.add_argument("--csv", action="store_true", help="one CSV line even for a single puzzle")
    parser.add_argument("--json", action="store_true", help="print the reply as JSON (one puzzle)")


GENERATE_HELP = """\
stdout: one puzzle a line (81 characters, '.' blank), as they come; with
--solution also its solution, with --grade its level and score
(puzzle,solution,level,score as CSV). The same --seed gives the same
puzzles; stderr says the seed used when none was given.

example:
  $ sudoku generate --level hard -n 100 > hard.txt
  $ sudoku generate --level expert --symmetry rotational --seed 7 --grade"""


def cmd_generate(args: argparse.Namespace) -> int:
    from client.cli import OK, connect, read_puzzle, say

    givens = read_puzzle(args.givens) if args.givens else ""
    with connect(args) as client:
        first = True
        for puzzle in client.generate(args.level, args.n, seed=args.seed, symmetry=args.symmetry, givens=givens,
                                      timeout=None):
            if first and args.seed is None:
                say(f"seed {puzzle.seed} (--seed {puzzle.seed} makes these again)")
            first = False
            fields = [puzzle.puzzle]
            if args.solution:
                fields.append(puzzle.solution)
            if args.grade:
                fields += [level_name(puzzle.grade.level), str(puzzle.grade.score)]
            print(",".join(fields), flush=args.n <= 100)
    return OK


def add_generate_parser(parser: argparse.ArgumentParser) -> None:
    from client.requests import LEVELS, SYMMETRIES

    parser.add_argument("--level", required=True, choices=list(LEVELS), help="the level every puzzle grades at")
    parser.add_argument("-n", type=int, default=1, metavar="N", help="how many puzzles (default: 1)")
    parser.add_argument("--seed", type=int, default=None, help="the same seed makes the same puzzles")
    parser.add_argument("--symmetry", choices=list(SYMMETRIES), default="none", help="cells the givens mirror")
    parser.add_argument("--givens", metavar="FILE", help="a board whose values every puzzle keeps")
    parser.add_argument("--solution", action="store_true", help="also print each puzzle's solution")
    parser.add_argument("--grade", action="store_true", help="also print each puzzle's level and score")
