"""The `sudoku` command run as a subprocess against the real stack: every
exit code, both input layouts, --json, watch --plain (and its keys under a
pseudo-terminal), hint, count, and a batch of a few thousand puzzles."""

from __future__ import annotations

import json
import os
import random
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sudoku.grid import is_solution_of, nine_lines
from tests.puzzles import DATA, puzzles, relabelled
from tests.stack import free_port

WIKIPEDIA = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
WIKIPEDIA_SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps
SCRIPT = Path(sys.executable).with_name("sudoku")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "client.cli"]


def sudoku(*args: str, stdin: str = "", address: str | None = None, timeout: float = 60,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "NO_COLOR": "1", **(env or {})}
    if address is not None:
        environment["SUDOKU_ADDR"] = address
    return subprocess.run([*COMMAND, *args], input=stdin, capture_output=True, text=True,
                          env=environment, timeout=timeout)


@pytest.fixture
def run(service):
    return lambda *args, **kw: sudoku(*args, address=service.address, **kw)


def closed_port_address() -> str:
    return f"127.0.0.1:{free_port()}"


# ---- solve -------------------------------------------------------------------

def test_solve_reads_nine_lines_with_dots_from_a_file(run, tmp_path):
    path = tmp_path / "puzzle.txt"
    path.write_text("# the Wikipedia puzzle\n" + nine_lines(WIKIPEDIA))
    done = run("solve", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == nine_lines(WIKIPEDIA_SOLUTION)
    assert re.search(r"solved in [\d.]+ ms, [\d,]+ steps \([\d,]+ placements, [\d,]+ retractions\)", done.stderr)


def test_solve_reads_one_line_with_zeros_from_stdin(run):
    done = run("solve", stdin=WIKIPEDIA.replace(".", "0") + "\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == nine_lines(WIKIPEDIA_SOLUTION)


def test_solve_json_parses(run):
    done = run("solve", "--json", "--strategy", "naive", "--tie-break", "first", stdin=HARD)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["outcome"] == "solved" and is_solution_of(result["solution"], HARD)
    assert (result["steps"], result["strategy"], result["conflicts"]) == (671_215, "naive", [])
    assert result["placements"] + result["retractions"] == result["steps"]


def test_conflicting_givens_are_unsolvable_naming_the_cells(run):
    done = run("solve", stdin="55" + "." * 79)
    assert done.returncode == 1
    assert "unsolvable" in done.stderr and "r1c1, r1c2" in done.stderr
    assert done.stdout == ""
    as_json = run("solve", "--json", stdin="55" + "." * 79)
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["conflicts"] == ["r1c1", "r1c2"]


def test_a_puzzle_without_solution_is_unsolvable(run):
    done = run("solve", stdin=puzzles("invalid_no_solution")[0])
    assert done.returncode == 1 and "unsolvable" in done.stderr


@pytest.mark.parametrize(("text", "where"), [
    (nine_lines(WIKIPEDIA).replace("6..195...", "6..1x5..."), "line 2, column 5"),
    (nine_lines(WIKIPEDIA).replace("6..195...", "6..195.."), "line 2, column 9"),
    ("".join(nine_lines(WIKIPEDIA).splitlines(keepends=True)[:8]), "line 9, column 1"),
    (WIKIPEDIA[:80] + "\n", "line 1, column 81"),
    ("", "line 1, column 1"),
])
def test_bad_input_exits_2_naming_the_line_and_column(run, text, where):
    done = run("solve", stdin=text)
    assert done.returncode == 2
    assert f"stdin, {where}:" in done.stderr, done.stderr


def test_a_missing_file_is_bad_input(run, tmp_path):
    done = run("solve", str(tmp_path / "missing.txt"))
    assert done.returncode == 2 and "missing.txt" in done.stderr


def test_a_puzzle_can_be_the_argument_itself(run):
    done = run("count", WIKIPEDIA)
    assert (done.returncode, done.stdout) == (0, "unique: 1 solution\n"), done.stderr
    solved = run("solve", WIKIPEDIA.replace(".", "0"))
    assert solved.returncode == 0 and solved.stdout.replace("\n", "") == WIKIPEDIA_SOLUTION
    # 81 characters that are not all cells stay a file name.
    missing = run("count", "x" * 81)
    assert missing.returncode == 2 and "x" * 81 in missing.stderr


def test_the_step_cap_gives_up_with_exit_4(run):
    done = run("solve", "--strategy", "naive", "--max-steps", "100", stdin=HARD)
    assert done.returncode == 4 and "gave up" in done.stderr


@pytest.mark.slow
def test_an_unreachable_service_exits_3_naming_the_address():
    address = closed_port_address()
    done = sudoku("solve", stdin=WIKIPEDIA, address=address)  # after the default retries, a few seconds
    assert done.returncode == 3
    assert f"cannot reach the service at {address}" in done.stderr
    for args in (["count"], ["hint"], ["watch", "--plain"], ["batch", "-"]):
        done = sudoku(*args, "--retries", "0", stdin=WIKIPEDIA, address=address)
        assert done.returncode == 3, (args, done.stderr)
        assert f"cannot reach the service at {address}" in done.stderr
    flag = sudoku("solve", "--retries", "0", "--addr", address, stdin=WIKIPEDIA, address="127.0.0.1:1")
    assert flag.returncode == 3 and address in flag.stderr


def test_several_addresses_and_a_load_balancing_policy(service):
    """--addr takes any gRPC target; --lb picks how calls spread over its
    addresses: a closed port beside the service is passed over."""
    target = f"ipv4:{closed_port_address()},{service.address}"
    for policy in ("pick_first", "round_robin"):
        done = sudoku("count", "--addr", target, "--lb", policy, stdin=WIKIPEDIA)
        assert done.returncode == 0 and "unique" in done.stdout, done.stderr
    bad = sudoku("count", "--lb", "fastest", stdin=WIKIPEDIA, address=service.address)
    assert bad.returncode == 2 and "--lb" in bad.stderr


def test_every_help_shows_an_example():
    assert "examples:" in sudoku("--help").stdout
    for command in ("solve", "watch", "hint", "count", "batch"):
        done = sudoku(command, "--help")
        assert done.returncode == 0 and "example" in done.stdout and "$ sudoku " + command in done.stdout


# ---- watch -------------------------------------------------------------------

def plain_frames(stdout: str) -> list[list[str]]:
    return [line.split(" ") for line in stdout.splitlines()]


def test_watch_plain_ends_on_the_solution(run):
    started = time.monotonic()
    done = run("watch", "--plain", "--duration", "1s", "--fps", "20", "--strategy", "naive", stdin=HARD)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 20
    frames = plain_frames(done.stdout)
    assert [int(f[1]) for f in frames] == list(range(1, len(frames) + 1))
    assert 15 <= len(frames) <= 25  # about 1 s x 20 fps, plus the first frame
    strategy, _, steps, cursor, outcome, board = frames[-1]
    assert (strategy, steps, cursor, outcome) == ("naive", "671215/671215", "-", "solved")
    assert is_solution_of(board, HARD)
    assert "naive: solved, 671,215 steps" in done.stderr


def test_watch_compare_plays_both_strategies_in_the_same_duration(run):
    done = run("watch", "--plain", "--compare", "--duration", "500ms", "--fps", "20", stdin=HARD)
    assert done.returncode == 0, done.stderr
    last = {f[0]: f for f in plain_frames(done.stdout)}
    assert set(last) == {"naive", "mrv"}
    assert last["naive"][-1] == last["mrv"][-1] and is_solution_of(last["mrv"][-1], HARD)
    assert last["naive"][2] == "671215/671215" and last["mrv"][2] == "1675/1675"
    assert abs(int(last["naive"][1]) - int(last["mrv"][1])) <= 1  # same number of frames


def test_watch_conflicting_givens_exit_1(run):
    done = run("watch", "--plain", stdin="55" + "." * 79)
    assert done.returncode == 1 and "r1c1, r1c2" in done.stderr


def test_a_bad_duration_is_a_usage_error(run):
    done = run("watch", "--duration", "ten", stdin=WIKIPEDIA)
    assert done.returncode == 2 and "'ten' is not a duration" in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs setsid (util-linux) for a controlling terminal")
def test_watch_in_a_terminal_pauses_on_space_and_q_cancels(service, tmp_path):
    import pty

    (tmp_path / "hard.txt").write_text(HARD + "\n")
    controller, terminal = pty.openpty()
    environment = {**os.environ, "SUDOKU_ADDR": service.address, "TERM": "xterm-256color", "COLUMNS": "80",
                   "LINES": "40"}
    environment.pop("NO_COLOR", None)
    # setsid -c: a new session whose controlling terminal is the pty, so the
    # command can open /dev/tty for its keys, as in a real terminal.
    child = subprocess.Popen(
        ["setsid", "-c", *COMMAND, "watch", "--duration", "20s", "--fps", "10", "--strategy", "naive",
         str(tmp_path / "hard.txt")],
        stdin=terminal, stdout=terminal, stderr=terminal, env=environment,
    )
    os.close(terminal)
    screen = bytearray()

    def read_for(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([controller], [], [], 0.05)[0]:
                try:
                    screen.extend(os.read(controller, 65536))
                except OSError:
                    return

    try:
        read_for(2.0)
        os.write(controller, b" ")
        read_for(1.0)
        assert b"paused" in screen, screen.decode(errors="replace")[-2000:]
        os.write(controller, b" ")
        read_for(0.5)
        os.write(controller, b"q")
        read_for(3.0)
        assert child.wait(10) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(controller)
    text = screen.decode(errors="replace")
    assert "\x1b[" in text  # colour and cursor movement: drawn in place
    assert "naive: cancelled" in text


# ---- hint and count --------------------------------------------------------------

def test_hint_gives_a_move_and_its_reason(run):
    done = run("hint", stdin=WIKIPEDIA)
    assert done.returncode == 0, done.stderr
    move, reason = done.stdout.splitlines()[:2]
    cell, value = re.fullmatch(r"(r\dc\d) = (\d) \((naked single|hidden single|from the solution)\)", move).groups()[:2]
    index = (int(cell[1]) - 1) * 9 + int(cell[3]) - 1
    assert WIKIPEDIA_SOLUTION[index] == value and reason


def test_hint_with_the_players_board_names_a_wrong_entry(run, tmp_path):
    player = "531" + WIKIPEDIA[3:]  # r1c3 should be 4; the givens repeated
    done = run("hint", stdin=nine_lines(WIKIPEDIA) + "\n" + nine_lines(player))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("wrong entry: r1c3 should be 4\n")
    entries = tmp_path / "entries.txt"
    entries.write_text(player.replace("5", ".", 1) + "\n")
    as_json = run("hint", "--json", "--entries", str(entries), stdin=WIKIPEDIA)
    assert json.loads(as_json.stdout)["wrong"]["shouldBe"] == 4


def test_hint_rejects_an_entry_over_a_given(run):
    done = run("hint", stdin=WIKIPEDIA + "\n" + "6" + "." * 80 + "\n")
    assert done.returncode == 2 and "r1c1" in done.stderr


def test_hint_candidates_and_no_solution(run):
    done = run("hint", "--candidates", stdin=WIKIPEDIA)
    assert done.returncode == 0
    assert done.stdout.splitlines()[2].split()[:3] == ["-", "-", "124"]  # r1c3's pencil marks
    assert run("hint", stdin="55" + "." * 79).returncode == 1


def test_explain_prints_every_step_and_a_summary(run):
    puzzle = puzzles("norvig_hardest")[10]
    done = run("explain", stdin=puzzle)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "   1. pointing: r1c1-6 r1c2-6 r1c3-6"
    assert lines[1] == "      Pointing: in box 2, 6 can only go in row 1, so 6 is not in r1c1, r1c2 or r1c3"
    assert lines[2] == "   2. naked single: r1c1=5"
    assert re.fullmatch(r"solved in \d+ steps; hardest: [a-z ]+ \((hard|expert|extreme)\)", lines[-1])
    assert run("explain", stdin="55" + "." * 79).returncode == 1


def test_explain_shows_an_avoidable_rectangle_and_a_finned_franken_swordfish(run):
    # The cells the solve placed are not givens: an avoidable rectangle on them is
    # step 41 of magictour_top1465 line 56; line 23 meets a finned Franken swordfish.
    lines = run("explain", stdin=puzzles("magictour_top1465")[56]).stdout.splitlines()
    at = lines.index("  41. avoidable rectangle: r7c8-6")
    assert lines[at + 1].startswith("      Avoidable rectangle: r7c5, r9c5 and r9c8 were filled in as 2, 6 and 2")
    lines = run("explain", stdin=puzzles("magictour_top1465")[23]).stdout.splitlines()
    at = lines.index("  27. finned franken swordfish: r4c9-1")
    assert lines[at + 1].startswith("      Finned Franken swordfish on 1: column 6, column 7 and box 3 hold 1 only")


def test_hint_from_pencil_marks_in_a_file(run, tmp_path):
    puzzle = puzzles("norvig_hardest")[10]
    grid = run("hint", "--candidates", stdin=puzzle).stdout.splitlines()[-9:]
    marks = tmp_path / "marks.txt"
    marks.write_text("\n".join(grid) + "\n")
    done = run("hint", "--pencil-marks", str(marks), stdin=puzzle)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "eliminate r1c1-6 r1c2-6 r1c3-6 (pointing)"
    assert "pointing (medium); pattern: r1c4(6) r1c6(6) in box 2, row 1" in done.stdout
    marks.write_text("1 2 3\n")
    bad = run("hint", "--pencil-marks", str(marks), stdin=puzzle)
    assert bad.returncode == 2 and "pencil marks: expected 81 cells, got 3" in bad.stderr


def test_grade_one_puzzle_and_many(run):
    one = run("grade", stdin=puzzles("qqwing_easy")[0])
    assert one.returncode == 0, one.stderr
    assert re.fullmatch(r"easy: score \d+, hardest [a-z ]+, \d+ steps", one.stdout.splitlines()[0])
    raised = run("grade", stdin=puzzles("magictour_top1465")[0])
    assert raised.stdout.splitlines()[0] == ("medium: score 1382, hardest hidden pair, 82 steps "
                                             "(hard for HoDoKu, by its score)")
    boards = puzzles("qqwing_intermediate")[:3] + puzzles("multi_solution_16_clue")[:1]
    many = run("grade", stdin="\n".join(boards))
    lines = [line.split(",") for line in many.stdout.splitlines()]
    assert [line[0] for line in lines] == boards
    assert [line[1] for line in lines] == ["medium"] * 3 + ["ungraded"]


def test_generate_writes_one_puzzle_a_line(run):
    done = run("generate", "--level", "hard", "-n", "5", "--seed", "1", "--grade")
    assert done.returncode == 0, done.stderr
    lines = [line.split(",") for line in done.stdout.splitlines()]
    assert len(lines) == 5 and all(len(p) == 81 and level == "hard" for p, level, _ in lines)
    again = run("generate", "--level", "hard", "-n", "5", "--seed", "1", "--grade")
    assert again.stdout == done.stdout
    unseeded = run("generate", "--level", "easy")
    assert len(unseeded.stdout.strip()) == 81 and unseeded.stderr.startswith("sudoku: seed ")


def test_count_says_unique_multiple_none(run):
    unique = run("count", stdin=WIKIPEDIA)
    assert (unique.returncode, unique.stdout) == (0, "unique: 1 solution\n")
    multiple = run("count", "--limit", "3", "--json", stdin=puzzles("multi_solution_16_clue")[0])
    assert multiple.returncode == 0
    reply = json.loads(multiple.stdout)
    assert (reply["verdict"], reply["count"]) == ("MULTIPLE", "3")
    none = run("count", stdin=puzzles("invalid_no_solution")[0])
    assert none.returncode == 1 and none.stdout.startswith("none: 0 solutions")


def test_count_says_stopped_at_the_limit_only_when_it_was(run):
    """A count that finished below its limit found every solution (issue 27,
    item 12: it said "stopped at the limit" for every MULTIPLE)."""
    puzzle = puzzles("multi_solution_16_clue")[1]  # 302 solutions
    stopped = run("count", "--limit", "3", stdin=puzzle)
    assert (stopped.returncode, stopped.stdout) == (0, "multiple: 3 solutions found (stopped at the limit, 3)\n")
    counted = run("count", "--limit", "1000", stdin=puzzle)
    assert (counted.returncode, counted.stdout) == (
        0, "multiple: 302 solutions, all of them (the count finished below the limit, 1000)\n")


@pytest.mark.parametrize("count, complete, limit, line", [
    (2, True, 0, "multiple: 2 solutions found (stopped at the limit, 2)"),
    (14133, True, 1_000_000, "multiple: 14133 solutions, all of them (the count finished below the limit, 1000000)"),
    (5, False, 100, "multiple: at least 5 solutions, when the step cap or the time limit stopped the count"),
])
def test_count_line_of_a_multiple_count(count, complete, limit, line):
    from client.cli import count_line
    from sudoku.v1 import sudoku_pb2 as pb

    reply = pb.CountReply(count=count, complete=complete, verdict=pb.CountReply.VERDICT_MULTIPLE)
    assert count_line(reply, limit) == line


# ---- batch -------------------------------------------------------------------

def verdict_of(path: Path) -> str:
    if "invalid" in path.name:
        return "none"
    return "multiple" if "multi_solution" in path.name or "serg" in path.name else "unique"


def batch_input(size: int) -> tuple[str, list[tuple[int, str, str]]]:
    """A file of `size` puzzle lines with comments, blank and bad lines, and
    the expected (line number, puzzle, verdict) of every puzzle line."""
    rng = random.Random(6)
    sources = [(p, verdict_of(path)) for path in sorted(DATA.glob("*.txt")) for p in path.read_text().split()]
    lines, expected = ["# generated from tests/data, digits relabelled", ""], []
    for i in range(size):
        if i % 500 == 499:
            puzzle, verdict = "12345", "error"
        else:
            source, verdict = rng.choice(sources)
            puzzle = relabelled(source, rng)
        lines.append(puzzle)
        expected.append((len(lines), puzzle, verdict))
        if i % 97 == 0:
            lines.append("  # a comment")
    return "\n".join(lines) + "\n", expected


def test_batch_writes_one_line_per_puzzle_line_in_order(run, tmp_path):
    text, expected = batch_input(3000)
    (tmp_path / "in.txt").write_text(text)
    done = run("batch", str(tmp_path / "in.txt"), "-o", str(tmp_path / "out.csv"), timeout=240)
    assert done.returncode == 2, done.stderr  # some lines were bad
    rows = [line.split(",") for line in (tmp_path / "out.csv").read_text().splitlines()]
    assert [row[0] for row in rows] == [puzzle for _, puzzle, _ in expected]
    assert [row[1] for row in rows] == [verdict for _, _, verdict in expected]
    assert all(row[2] == {"unique": "1", "multiple": "2", "none": "0", "error": ""}[row[1]] for row in rows)
    bad = [number for number, _, verdict in expected if verdict == "error"]
    reported = [int(n) for n in re.findall(r"in\.txt, line (\d+): board", done.stderr)]
    assert reported == bad and f"{len(bad)} bad lines" in done.stderr


def test_batch_solves_from_stdin_to_stdout(run):
    boards = puzzles("17_clue")[:50] + ["55" + "." * 79]
    done = run("batch", "--solve", "-", stdin="\n".join(boards) + "\n")
    assert done.returncode == 0, done.stderr
    rows = [line.split(",") for line in done.stdout.splitlines()]
    assert [row[0] for row in rows] == boards
    assert all(is_solution_of(solution, board) for board, solution in rows[:-1])
    assert rows[-1][1] == "none"
