"""`sudoku watch --step` (client/cli_step.py) in a real terminal: tmux runs
the command against the real stack, the test types keys into it and reads
the screen back, waiting for each key's answer to show.

Naive and mrv side by side on the hardest naive puzzle: the first 30 steps
one key at a time (→, then n), each board, cursor and counter read off the
screen equal to the reference stepper's; then 10,000 typed and Enter; then
space plays naive to its end (671,215 steps) and q quits.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import uuid

import pytest

from sudoku.engine import Stepper
from tests.puzzles import is_completion, puzzles
from tests.stack import until
from tests.test_cli import COMMAND
from worker import reference

pytestmark = [
    pytest.mark.slow,  # a terminal drawn and read back key by key
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (Debian: apt-get install tmux)"),
]

HARD = puzzles("norvig_hardest")[0]  # naive: 671,215 steps; mrv: 1,675
WAIT_S = 60
CELL = r"[ >][.1-9][ '*]"
ROW = re.compile(rf"│((?:{CELL}){{3}})│((?:{CELL}){{3}})│((?:{CELL}){{3}})│")


class Terminal:
    """A tmux session of its own (its own server socket) running one command."""

    def __init__(self, command: list[str], env: dict[str, str], folder):
        self.socket = f"sudoku-test-{uuid.uuid4().hex[:8]}"
        self.folder = folder
        line = " ".join(subprocess.list2cmdline([part]) for part in command)
        variables = " ".join(f"{k}={subprocess.list2cmdline([v])}" for k, v in env.items())
        # The pane stays after the command exits, with its exit code on screen.
        self.tmux("new-session", "-d", "-s", "t", "-x", "110", "-y", "45",
                  f"env {variables} {line}; echo EXIT=$?; sleep 600")

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, "-f", os.devnull, *args], check=True,
                              capture_output=True, text=True, timeout=10).stdout

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "t", *keys)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, predicate, what: str):
        """Reads the screen until predicate(screen) is truthy; returns its value."""
        return until(lambda: predicate(self.screen()), lambda: f"{what}; the screen:\n{self.screen()}",
                     timeout=WAIT_S, every=0.05)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10)


def panels(text: str) -> list[dict]:
    """What each panel of the screen shows, left to right."""
    rows: list[list[str]] = [[], []]
    for line in text.splitlines():
        for side, match in enumerate(ROW.finditer(line)):
            rows[side].append("".join(match.groups()))
    numbers = {name: [int(n.replace(",", "")) for n in re.findall(rf"{name} ([\d,]+)", text)]
               for name in ("steps", "placements", "retractions", "depth")}
    cursors = re.findall(r"cursor (r\dc\d|-)", text)
    titles = re.findall(r"─ (naive|mrv): (\w+)", text)
    shown = []
    for side, cells in enumerate(rows):
        if len(cells) != 9 or side >= len(titles):
            continue
        row_text = "".join(cells)
        board = "".join(row_text[3 * i + 1] for i in range(81))
        cursor = next((i for i in range(81) if row_text[3 * i] == ">"), -1)
        shown.append({"strategy": titles[side][0], "state": titles[side][1], "board": board, "cursor": cursor,
                      "cursor_name": cursors[side] if side < len(cursors) else "",
                      **{name: values[side] for name, values in numbers.items() if side < len(values)}})
    return shown


def at_steps(naive: int, mrv: int):
    def check(text: str):
        shown = panels(text)
        if len(shown) == 2 and (shown[0].get("steps"), shown[1].get("steps")) == (naive, mrv):
            return shown
        return None

    return check


def same(panel: dict, python: reference.Stepper) -> None:
    assert (panel["board"], panel["cursor"], panel["steps"], panel["placements"], panel["retractions"],
            panel["depth"]) == (python.board, python.cursor, python.steps, python.placements, python.retractions,
                                python.placements - python.retractions), (panel, python.steps)


def test_step_run_and_play_from_the_keyboard(service, tmp_path):
    (tmp_path / "hard.txt").write_text(HARD + "\n")
    env = {"SUDOKU_ADDR": service.address, "NO_COLOR": "1", "TERM": "xterm", "PATH": os.environ["PATH"]}
    command = [*COMMAND, "watch", "--step", "--compare", "--speed", "200000", str(tmp_path / "hard.txt")]
    terminal = Terminal(command, env, tmp_path)
    try:
        naive, mrv = reference.Stepper(HARD, strategy="naive"), reference.Stepper(HARD, strategy="mrv")
        start = terminal.wait_for(at_steps(0, 0), "the puzzle drawn at step 0")
        assert [p["state"] for p in start] == ["ready", "ready"]
        for step in range(1, 31):
            terminal.keys("Right" if step == 1 else "n")
            left, right = terminal.wait_for(at_steps(step, step), f"step {step} on both")
            naive.run(1)
            mrv.run(1)
            same(left, naive)
            same(right, mrv)
        terminal.keys(*"10000", "Enter")
        left, right = terminal.wait_for(at_steps(10_030, 1_675), "10,000 more steps (mrv ends on the way)")
        naive.run(10_000)
        same(left, naive)
        whole_mrv = Stepper(HARD, strategy="mrv")
        whole_mrv.skip(10**9)
        assert right["state"] == "solved" and right["board"] == whole_mrv.solution and right["cursor_name"] == "-"
        terminal.keys("Space")
        left, right = terminal.wait_for(at_steps(671_215, 1_675), "naive played to its end")
        assert left["state"] == "solved" and is_completion(HARD, left["board"]) and left["cursor"] == -1
        terminal.keys("q")
        text = terminal.wait_for(lambda screen: "EXIT=" in screen and screen, "the command to quit")
        assert "EXIT=0" in text
        assert "naive: solved at step 671,215" in text and "mrv: solved at step 1,675" in text
    finally:
        terminal.close()


def test_without_a_terminal_it_says_it_needs_one(service):
    done = subprocess.run([*COMMAND, "watch", "--step", HARD], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "SUDOKU_ADDR": service.address}, start_new_session=True)
    assert done.returncode == 2 and "watch --step needs a terminal" in done.stderr


def test_space_plays_and_pauses_where_it_is_and_a_step_goes_on_from_there(service, tmp_path):
    """Space plays on the terminal's clock, space again holds the search
    where it is (nothing more is drawn), and → steps on from that step."""
    (tmp_path / "hard.txt").write_text(HARD + "\n")
    env = {"SUDOKU_ADDR": service.address, "NO_COLOR": "1", "TERM": "xterm", "PATH": os.environ["PATH"]}
    command = [*COMMAND, "watch", "--step", "--strategy", "naive", "--speed", "40", str(tmp_path / "hard.txt")]
    terminal = Terminal(command, env, tmp_path)

    def state(name: str, beyond: int = -1):
        def check(text: str):
            shown = panels(text)
            if len(shown) == 1 and shown[0]["state"] == name and shown[0].get("steps", -1) > beyond:
                return shown[0]
            return None

        return check

    try:
        terminal.wait_for(state("ready"), "the puzzle drawn at step 0")
        terminal.keys("Space")
        terminal.wait_for(state("playing", 5), "a few steps played")
        terminal.keys("Space")
        paused = terminal.wait_for(state("paused"), "the search paused")
        time.sleep(1)  # at 40 steps a second, 40 more would be drawn by now if it played on
        held = terminal.wait_for(state("paused"), "the search still paused")
        assert held["steps"] == paused["steps"] > 5, (paused, held)
        python = reference.Stepper(HARD, strategy="naive")
        python.run(held["steps"])
        same(held, python)
        terminal.keys("Right")
        after = terminal.wait_for(state("stepping", held["steps"]), "one step after the pause")
        python.run(1)
        same(after, python)
        terminal.keys("q")
        assert "EXIT=0" in terminal.wait_for(lambda screen: "EXIT=" in screen and screen, "the command to quit")
    finally:
        terminal.close()
