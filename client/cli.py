"""The `sudoku` command: solve, watch, hint, count and batch from a shell.

Exit codes (every subcommand):
  0  done (solved, counted, hinted)
  1  unsolvable: the puzzle has no solution ("unsolvable" on stderr, and
     the conflicting cells when the givens break a rule)
  2  bad input (the message names the line and column) or bad arguments
  3  the service cannot be reached (the message names the address)
  4  the search gave up: the step cap or the time limit came first
  5  any other error from the service (its status code and message)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from client.boards import CELLS, PUZZLE_HELP, InputError, entries_of, read_boards, read_one
from client.connection import ADDRESS_ENV, DEFAULT_ADDRESS, LOAD_BALANCING, UNARY_TIMEOUT, Retry, resolve_address
from client.errors import SudokuError
from client.requests import STRATEGIES, TIE_BREAKS
from client.sync import Client
from sudoku.grid import cell_name, nine_lines
from sudoku.v1 import sudoku_pb2 as pb

OK, UNSOLVABLE, BAD_INPUT, UNREACHABLE, GAVE_UP, FAILED = range(6)
PROG = "sudoku"

EXAMPLES = """\
examples:
  sudoku solve puzzle.txt                 nine lines of nine, or one line of 81
  echo 53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79 | sudoku solve
  sudoku watch --compare --duration 10s hard.txt
  sudoku hint board.txt                   the givens, then the player's board
  sudoku explain puzzle.txt               every logical step to the solution
  sudoku grade puzzles.txt                level and score of each puzzle
  sudoku generate --level hard -n 100     new puzzles, one a line
  sudoku count --limit 2 puzzle.txt
  sudoku batch puzzles.txt -o counts.csv

The service is at $SUDOKU_ADDR, else localhost:50051 (--addr overrides).
Exit codes: 0 done, 1 unsolvable, 2 bad input, 3 service unreachable,
4 gave up (step cap or time limit), 5 other service error.
"""


class Failure(Exception):
    """Ends the command with a message on stderr and an exit code."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def say(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def failure_of(error: SudokuError, address: str) -> Failure:
    if error.unreachable:
        return Failure(UNREACHABLE, f"cannot reach the service at {address}: {error.message}")
    if error.code.name == "INVALID_ARGUMENT":
        return Failure(BAD_INPUT, error.message)
    return Failure(FAILED, f"{error.code.name}: {error.message}")


def read_text(path: str | None) -> tuple[str, str]:
    """(text, name for messages) of FILE, or of stdin for None or '-'; an
    argument of 81 cells that names no file is the puzzle itself."""
    if path is None or path == "-":
        return sys.stdin.read(), "stdin"
    if len(path) == 81 and not os.path.exists(path) and CELLS.issuperset(path):
        return path, "the argument"
    try:
        return Path(path).read_text(), path
    except OSError as exc:
        raise Failure(BAD_INPUT, f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise Failure(BAD_INPUT, f"{path}: not a text file") from None


def read_puzzle(path: str | None) -> str:
    text, source = read_text(path)
    return read_one(text, source).cells


def connect(args: argparse.Namespace) -> Client:
    return Client(args.addr, ca_file=args.ca_file, token=args.token, timeout=args.timeout,
                  retry=Retry(attempts=args.retries), load_balancing=args.lb)


def names(cells: Sequence[int]) -> str:
    return ", ".join(cell_name(c) for c in cells)


def human(n: int) -> str:
    return f"{n:,}"


def counters_text(counters: pb.Counters) -> str:
    return (f"{human(counters.steps)} steps ({human(counters.placements)} placements, "
            f"{human(counters.retractions)} retractions)")


# ---- solve -----------------------------------------------------------------

def cmd_solve(args: argparse.Namespace) -> int:
    board = read_puzzle(args.file)
    with connect(args) as client:
        started = time.perf_counter()
        result = client.solve(board, strategy=args.strategy, tie_break=args.tie_break, max_steps=args.max_steps)
        seconds = time.perf_counter() - started
    strategy = pb.Strategy.Name(result.job.strategy).removeprefix("STRATEGY_").lower()
    if args.json:
        print(json.dumps({
            "puzzle": board,
            "outcome": result.outcome_name.lower(),
            "solution": result.solution or None,
            "steps": result.counters.steps,
            "placements": result.counters.placements,
            "retractions": result.counters.retractions,
            "conflicts": [cell_name(c) for c in result.conflicts],
            "strategy": strategy,
            "seconds": round(seconds, 6),
            "job_id": result.job_id,
            "adjustments": list(result.job.adjustments),
        }))
    elif result.solved:
        sys.stdout.write(nine_lines(result.solution))
    for note in result.job.adjustments:
        say(note)
    timing = f"{seconds * 1000:.1f} ms, {counters_text(result.counters)}, {strategy}"
    if result.outcome == pb.SOLVED:
        say(f"solved in {timing}")
        return OK
    if result.outcome == pb.EXHAUSTED:
        if result.conflicts:
            say(f"unsolvable: the givens conflict at {names(result.conflicts)}")
        else:
            say(f"unsolvable: no solution ({timing})")
        return UNSOLVABLE
    if result.outcome == pb.GAVE_UP:
        say(f"gave up after {timing}: the step cap or the time limit came first")
        return GAVE_UP
    say(f"the search ended {result.outcome_name.lower()}")
    return FAILED


# ---- hint ------------------------------------------------------------------

TECHNIQUES = {
    pb.Move.NAKED_SINGLE: "naked single",
    pb.Move.HIDDEN_SINGLE: "hidden single",
    pb.Move.FROM_SOLUTION: "from the solution",
}


def hint_input(args: argparse.Namespace) -> tuple[str, str]:
    text, source = read_text(args.file)
    boards = read_boards(text, source)
    if args.entries is not None:
        entries_text, entries_source = read_text(args.entries)
        boards += read_boards(entries_text, entries_source)[:1] or []
    if not boards:
        raise InputError(source, 1, 1, "no puzzle: expected the givens, then optionally the player's board")
    if len(boards) > 2:
        raise InputError(source, boards[2].line, 1, "a third board; expected the givens and the player's board")
    givens = boards[0].cells
    entries = entries_of(givens, boards[1].cells) if len(boards) == 2 else ""
    return givens, entries


def hint_lines(reply: pb.HintReply) -> list[str]:
    from client.cli_logic import effect, hint_step_lines, technique_name

    if reply.kind == pb.HintReply.NEXT_MOVE:
        move = reply.move
        how = technique_name(reply.step.technique) if reply.HasField("step") else TECHNIQUES[move.technique]
        first = f"{cell_name(move.cell)} = {move.value} ({how})"
    elif reply.kind == pb.HintReply.ELIMINATION:
        first = f"eliminate {effect(reply.step)} ({technique_name(reply.step.technique)})"
    elif reply.kind == pb.HintReply.WRONG_ENTRY:
        wrong = reply.wrong
        first = f"wrong {'pencil marks' if wrong.pencil_marks else 'entry'}: {names(wrong.cells)}"
        if wrong.should_be:
            first += f" should {'keep' if wrong.pencil_marks else 'be'} {wrong.should_be}"
    elif reply.kind == pb.HintReply.SOLVED:
        first = "solved"
    else:
        first = "unsolvable" + (f": the givens conflict at {names(reply.conflicts)}" if reply.conflicts else "")
    lines = [first]
    if reply.reason:
        lines.append(reply.reason)
    lines += hint_step_lines(reply)
    if reply.not_unique:
        lines.append("note: the puzzle has more than one solution; this hint follows one that fits the entries")
    return lines


def candidates_grid(masks: Sequence[int]) -> str:
    """Pencil marks: each cell's candidates, nine cells a line."""
    def marks(mask: int) -> str:
        return "".join(str(v) for v in range(1, 10) if mask >> (v - 1) & 1) or "-"
    width = max(len(marks(m)) for m in masks)
    return "".join(" ".join(marks(masks[r * 9 + c]).ljust(width) for c in range(9)).rstrip() + "\n"
                   for r in range(9))


def cmd_hint(args: argparse.Namespace) -> int:
    from client.cli_logic import read_pencil_marks

    givens, entries = hint_input(args)
    marks = read_pencil_marks(*read_text(args.pencil_marks)) if args.pencil_marks else None
    with connect(args) as client:
        reply = client.hint(givens, entries, include_candidates=args.candidates, pencil_marks=marks)
    if args.json:
        print(json.dumps(json_format.MessageToDict(reply)))
    else:
        print("\n".join(hint_lines(reply)))
        if args.candidates and reply.candidates:
            sys.stdout.write(candidates_grid(reply.candidates))
    return UNSOLVABLE if reply.kind == pb.HintReply.NO_SOLUTION else OK


# ---- count -----------------------------------------------------------------

def count_line(reply: pb.CountReply, limit: int) -> str:
    """One line: the verdict and what the count means. `complete` is true
    both when the search ran out and when it reached the limit; only
    count < limit says it found every solution."""
    verdict = pb.CountReply.Verdict.Name(reply.verdict).lower()
    found = f"{reply.count} solution{'s' if reply.count != 1 else ''}"
    limit = limit or 2  # CountRequest.limit 0 means 2
    if reply.verdict == pb.CountReply.VERDICT_MULTIPLE:
        if not reply.complete:
            return f"multiple: at least {found}, when the step cap or the time limit stopped the count"
        if reply.count >= limit:
            return f"multiple: {found} found (stopped at the limit, {limit})"
        return f"multiple: {found}, all of them (the count finished below the limit, {limit})"
    if reply.verdict == pb.CountReply.VERDICT_UNKNOWN or not reply.complete:
        return f"unknown: {found} found before the step cap or the time limit"
    if reply.verdict == pb.CountReply.VERDICT_UNSPECIFIED:
        return found
    return f"{verdict}: {found}"


def cmd_count(args: argparse.Namespace) -> int:
    board = read_puzzle(args.file)
    with connect(args) as client:
        reply = client.count(board, limit=args.limit, max_steps=args.max_steps, include_solution=args.solution)
    if args.json:
        print(json.dumps(json_format.MessageToDict(reply, always_print_fields_with_no_presence=True)))
    else:
        print(count_line(reply, args.limit))
        if reply.solution:
            sys.stdout.write(nine_lines(reply.solution))
    if reply.conflicts:
        say(f"unsolvable: the givens conflict at {names(reply.conflicts)}")
    if reply.complete and reply.count == 0:
        return UNSOLVABLE
    return OK if reply.complete else GAVE_UP


# ---- the parser --------------------------------------------------------------

def non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def connection_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("connection")
    group.add_argument("--addr", default=None, metavar="TARGET",
                       help=f"the service: HOST:PORT, or any gRPC target, e.g. dns:///HOST:PORT (every address "
                            f"of the name) or ipv4:IP:PORT,IP:PORT (default: ${ADDRESS_ENV}, else {DEFAULT_ADDRESS})")
    group.add_argument("--lb", default=os.environ.get("SUDOKU_LB") or None, choices=LOAD_BALANCING,
                       help="with several addresses: send every call to the first that answers (pick_first, "
                            "gRPC's default) or spread them (round_robin) (default: $SUDOKU_LB)")
    group.add_argument("--ca-file", default=os.environ.get("SUDOKU_CA_FILE"), metavar="PEM",
                       help="use TLS, trusting this CA certificate (default: $SUDOKU_CA_FILE)")
    group.add_argument("--token", default=os.environ.get("SUDOKU_TOKEN"),
                       help="send 'authorization: Bearer TOKEN' (default: $SUDOKU_TOKEN, safer than the flag)")
    group.add_argument("--timeout", type=float, default=UNARY_TIMEOUT, metavar="SECONDS",
                       help=f"deadline of each call (default: {UNARY_TIMEOUT:g})")
    group.add_argument("--retries", type=non_negative, default=Retry().attempts, metavar="N",
                       help=f"retries while the service is unavailable, with backoff (default: {Retry().attempts})")
    return common


def sub(subparsers: Any, name: str, summary: str, example: str, common: argparse.ArgumentParser,
        run: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(name, help=summary, description=summary, epilog=example, parents=[common],
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(run=run)
    return parser


def build_parser() -> argparse.ArgumentParser:
    from client import cli_batch, cli_logic, cli_watch  # the subcommands with their own modules

    parser = argparse.ArgumentParser(
        prog=PROG, description="Solve, watch, hint and count Sudoku puzzles with the sudoku service.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = connection_options()

    solve = sub(subparsers, "solve", "Solve one puzzle; the solution as nine lines on stdout.", """\
input: FILE or stdin, nine lines of nine cells or one line of 81; '.' or '0'
is a blank; spaces, blank lines and '#' comments are ignored.
stdout: the solution, nine lines of nine digits (or JSON with --json).
stderr: timing and counters; "unsolvable" and the conflicting cells.

example:
  $ sudoku solve puzzle.txt
  534678912
  ...
  sudoku: solved in 15.5 ms, 51 steps (51 placements, 0 retractions), mrv""", common, cmd_solve)
    solve.add_argument("file", nargs="?", metavar="FILE", help=PUZZLE_HELP)
    solve.add_argument("--strategy", choices=sorted(STRATEGIES), help="how the search picks a cell (default: mrv)")
    solve.add_argument("--tie-break", choices=sorted(TIE_BREAKS), help="how mrv breaks ties (default: rotate)")
    solve.add_argument("--max-steps", type=non_negative, default=0, help="give up after this many steps (0: the "
                       "service's ceiling)")
    solve.add_argument("--json", action="store_true", help="print one JSON object on stdout")

    cli_watch.add_parser(sub(subparsers, "watch", "Watch the search solve a puzzle, live in the terminal.",
                             cli_watch.HELP, common, cli_watch.cmd_watch))

    hint = sub(subparsers, "hint", "The next move and why, or which entry is wrong.", """\
input: FILE (or stdin) holds the givens, then optionally the player's board
(entries), each as nine lines of nine or one line of 81. The player's board
may repeat the givens or leave them blank. --entries reads it from another
file instead. Without --pencil-marks the hint is the next placement, after
the eliminations it needs; with them, the next step on them, which may be
eliminations to cross out.

example:
  $ sudoku hint board.txt
  r5c5 = 5 (naked single)
  r5c5 can only be 5: its row, column and box hold the other eight values""", common, cmd_hint)
    hint.add_argument("file", nargs="?", metavar="FILE", help="the givens (and entries) (default: stdin)")
    hint.add_argument("--entries", metavar="FILE", help="the player's board from this file")
    hint.add_argument("--candidates", action="store_true", help="also print every empty cell's candidates")
    hint.add_argument("--pencil-marks", metavar="FILE", help="the player's pencil marks, 81 cells as --candidates "
                      "prints them: the hint continues from them and may be eliminations")
    hint.add_argument("--json", action="store_true", help="print the reply as JSON")

    cli_logic.add_explain_parser(sub(subparsers, "explain", "The whole logical solution of a puzzle, step by step.",
                                     cli_logic.EXPLAIN_HELP, common, cli_logic.cmd_explain))
    cli_logic.add_grade_parser(sub(subparsers, "grade", "How hard puzzles are for a person: level and score.",
                                   cli_logic.GRADE_HELP, common, cli_logic.cmd_grade))
    cli_logic.add_generate_parser(sub(subparsers, "generate", "New puzzles of a level, one a line.",
                                      cli_logic.GENERATE_HELP, common, cli_logic.cmd_generate))

    count = sub(subparsers, "count", "Count a puzzle's solutions up to a limit (2: is it unique?).", """\
exit code: 0 when counted (unique, multiple), 1 when there is no solution,
4 when the cap stopped the count before it could tell.

example:
  $ sudoku count --limit 2 puzzle.txt
  unique: 1 solution""", common, cmd_count)
    count.add_argument("file", nargs="?", metavar="FILE", help=PUZZLE_HELP)
    count.add_argument("--limit", type=non_negative, default=2, help="stop counting here (default: 2)")
    count.add_argument("--max-steps", type=non_negative, default=0, help="cap on the search's guesses")
    count.add_argument("--solution", action="store_true", help="also print the first solution found")
    count.add_argument("--json", action="store_true", help="print the reply as JSON")

    cli_batch.add_parser(sub(subparsers, "batch", "Count (or solve) every puzzle of a file, one per line.",
                             cli_batch.HELP, common, cli_batch.cmd_batch))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    address = resolve_address(args.addr)
    try:
        return args.run(args)
    except InputError as exc:
        say(str(exc))
        return BAD_INPUT
    except SudokuError as exc:
        failure = failure_of(exc, exc.address or address)
        say(failure.message)
        return failure.code
    except Failure as exc:
        say(exc.message)
        return exc.code
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except BrokenPipeError:
        # `sudoku batch ... | head`: the reader left. Point stdout at
        # /dev/null so the interpreter's final flush does not complain.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK


if __name__ == "__main__":
    sys.exit(main())
