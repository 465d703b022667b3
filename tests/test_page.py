"""The page at `/` (service/http/static/) in a real headless Chromium, driven by
Selenium through Debian's chromium-driver, against the real service: load
a puzzle, play, take hints that go on from the player's pencil marks (their
sentences, patterns and eliminations), see wrong entries and marks named,
generate a puzzle of a level, watch naive and MRV solve to the end and
compare the drawn grids with the solution, stop (Cancel), resume and
reset; step the searches one step at a time (taps and →), run N, play,
each drawing the reference stepper's; a web game on another origin calls
the API through CORS.
Screenshots go to the test's temporary folder. Also: the committed client
bundle is what `make web` makes from the proto.

Skipped, saying so, where Chromium or its driver is missing; .ci/run
installs both (apt), so CI runs it.
"""

from __future__ import annotations

import filecmp
import functools
import http.server
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from client.frames import draw, split
from sudoku import engine
from sudoku.v1 import sudoku_pb2 as pb
from tests.puzzles import is_completion, puzzles
from tests.stack import until
from worker import hints, logic, reference

# A browser, and a wait for each drawing: seconds a test.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
WIKIPEDIA = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
HARDEST = (ROOT / "tests/data/norvig_hardest.txt").read_text().split()[0]  # naive: 671,215 steps
# From magictour_top1465: with every candidate pencilled in, its first step is
# an elimination (pointing: 4 of box 4 is in column 3, so not in r7c3, r8c3).
POINTING = "........1...2.9.8..4.....7.8...9..3.9...3..642..1.6......68.5..1....53...75......"
WAIT_S = 60

needs_chromium = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="no Chromium here: `apt-get install chromium chromium-driver` (Debian) runs these tests; .ci/run does",
)


@pytest.fixture
def browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # The machine's network is closed: no background calls, no updates, no sync.
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                 f"--user-data-dir={tmp_path / 'chromium'}", "--window-size=430,1400"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_script_timeout(WAIT_S)
    yield driver
    driver.quit()


def page_url(service) -> str:
    return f"http://127.0.0.1:{service.app.http.port}/"


def wait_for(driver, script: str, *args, timeout: float = WAIT_S):
    """Waits until the JavaScript expression `script` is truthy; returns its value."""
    return until(lambda: driver.execute_script(f"return {script}", *args),
                 lambda: f"{script}; the page says: {said(driver)}", timeout=timeout, every=0.05)


def said(driver) -> dict:
    """What the page shows in words, and where each watcher is: for a failure's message."""
    return driver.execute_script(
        "return {status: document.getElementById('puzzle-status').textContent,"
        " hint: document.getElementById('hint-text').textContent,"
        " watchers: [...document.querySelectorAll('.watcher')].map(w => ({...w.dataset,"
        " counters: w.querySelector('.counters').textContent}))}")


def drawn(driver, root: str) -> str:
    """The 81 cells a grid shows, '.' for a blank."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' .cell')]"
        ".map(c => c.firstChild && c.firstChild.nodeType === 3 ? c.textContent : '.').join('')", root)


def cell_classes(driver, root: str, cell: int) -> list[str]:
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' .cell')][arguments[1]].className.split(' ')", root, cell)


def cells_with(driver, name: str) -> list[int]:
    """The cells of the game's grid that have class `name`."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#game .cell')].flatMap((c, i) => c.classList.contains(arguments[0])"
        " ? [i] : [])", name)


def marks(driver, cell: int) -> dict[str, str]:
    """The pencil marks a cell of the game shows: digit -> its class ('' for a plain mark)."""
    return driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#game .cell')[arguments[0]]"
        ".querySelectorAll('.marks span')].filter(s => s.textContent).map(s => [s.textContent, s.className]))", cell)


def hint(driver) -> str:
    """Takes a hint; its words, once they are there."""
    driver.execute_script("document.getElementById('hint-text').dataset.kind = ''")
    click(driver, "#hint")
    return wait_for(driver, "document.getElementById('hint-text').dataset.kind && "
                            "document.getElementById('hint-text').innerText")


def unit_cells(kind: str, index: int) -> set[int]:
    if kind == "row":
        return {(index - 1) * 9 + c for c in range(9)}
    if kind == "column":
        return {r * 9 + index - 1 for r in range(9)}
    top, left = (index - 1) // 3 * 3, (index - 1) % 3 * 3
    return {(top + r) * 9 + left + c for r in range(3) for c in range(3)}


def press(driver, *keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    for key in keys:
        ActionChains(driver).send_keys(key).perform()


def click(driver, selector: str) -> None:
    driver.find_element("css selector", selector).click()


def load(driver, board: str) -> None:
    from selenium.webdriver.common.by import By

    field = driver.find_element(By.ID, "puzzle-text")
    field.clear()
    field.send_keys(board)
    click(driver, "#load")
    wait_for(driver, "document.getElementById('puzzle-status').textContent.startsWith('Loaded')")


def watch_to_the_end(driver, duration_ms: int) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "duration")).select_by_value(str(duration_ms))
    click(driver, "#watch-start")
    wait_for(driver, "[...document.querySelectorAll('.watcher')].every(w => w.dataset.state === 'done')")


def step_table(driver) -> dict[str, list[str]]:
    return driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#step-table tbody tr')]"
        ".map(r => [r.dataset.strategy, [...r.querySelectorAll('td')].map(td => td.textContent)]))")


@needs_chromium
def test_a_game_is_played_with_a_hint_and_its_pencil_marks(browser, service, tmp_path):
    browser.get(page_url(service))
    load(browser, WIKIPEDIA)
    assert drawn(browser, "#game") == WIKIPEDIA
    assert "given" in cell_classes(browser, "#game", 0)

    # r1c3 (cell 2) can only be 1, 2 or 4; pencil in 4 and 5, then ask for a hint.
    browser.find_elements("css selector", "#game .cell")[2].click()
    press(browser, "p", "4", "5", "p")
    assert marks(browser, 2) == {"4": "", "5": ""}
    words = hint(browser)
    # The marks went with the request: the 5 (a given of row 1) is crossed
    # out, which leaves r1c3 a naked single on the player's marks.
    assert "r1c3 = 4" in words and "Naked single: r1c3 has no candidate left but 4" in words, words
    assert "1 pencil mark crossed out" in words
    assert marks(browser, 2) == {"4": "placement", "5": "eliminated"}
    assert cells_with(browser, "hint-cell") == [2]
    browser.save_screenshot(str(tmp_path / "hint.png"))

    # A value twice in a row is shown at once; erasing it clears the conflict.
    browser.find_elements("css selector", "#game .cell")[3].click()
    press(browser, "5")
    assert "conflict" in cell_classes(browser, "#game", 3) and "conflict" in cell_classes(browser, "#game", 0)
    browser.save_screenshot(str(tmp_path / "conflict.png"))
    press(browser, "\ue003")  # Backspace
    assert "conflict" not in cell_classes(browser, "#game", 0)

    # Fill the rest from the solution: the page says it is solved.
    for cell, value in enumerate(SOLVED):
        if WIKIPEDIA[cell] == ".":
            browser.find_elements("css selector", "#game .cell")[cell].click()
            press(browser, value)
    assert drawn(browser, "#game") == SOLVED
    wait_for(browser, "document.getElementById('puzzle-status').textContent.startsWith('Solved')")
    browser.save_screenshot(str(tmp_path / "solved.png"))


# Every control a player uses, and the three grids.
CONTROLS = ("#builtin", "#puzzle-text", "#load", "#level", "#generate", "#game", "#keypad button", "#hint",
            "#fill-marks", "#clear-entries", "#duration", "#watch-start", "#watch-stop", "#watch-resume",
            "#watch-reset", "#watch-step", "#watch-run", "#run-count", "#step-speed", "#watch-naive .grid",
            "#watch-mrv .grid", "#step-table")


@needs_chromium
def test_a_phone_sized_screen_plays_with_taps_and_nothing_runs_off_the_side(browser, service, tmp_path):
    # A small phone, as Chromium's device emulation makes one: 360 CSS px wide, touch.
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 360, "height": 780, "deviceScaleFactor": 2, "mobile": True})
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True})
    browser.get(page_url(service))
    load(browser, WIKIPEDIA)
    # (A page wider than the screen widens a phone's viewport to fit it, zoomed out.)
    overflow = browser.execute_script(
        "return [...document.querySelectorAll(arguments[0].join(','))].flatMap(e => {"
        " const r = e.getBoundingClientRect(); return r.left < 0 || r.right > 360 ?"
        " [`${e.id || e.textContent.trim() || e.className} ${r.left}-${r.right}`] : []})", list(CONTROLS))
    assert overflow == [], f"off the side of a 360 px screen: {overflow}"
    assert browser.execute_script("return [innerWidth, document.documentElement.scrollWidth]") == [360, 360]
    # A cell of the board is big enough to tap, and the two watched boards share the width.
    side = browser.execute_script("return document.querySelector('#game .cell').getBoundingClientRect().width")
    assert side >= 32, side
    # Both read in one script: the grade arriving after "Loaded" may wrap the status line between two reads.
    naive, mrv = browser.execute_script(
        "return ['#watch-naive', '#watch-mrv'].map(r => document.querySelector(r + ' .grid').getBoundingClientRect())")
    assert naive["top"] == mrv["top"] and naive["right"] <= mrv["left"]

    # Played with taps on the keypad: r1c3 (cell 2) is 4; a 5 there clashes with r1c2's.
    browser.find_elements("css selector", "#game .cell")[2].click()
    click(browser, "#keypad button[data-digit='5']")
    assert drawn(browser, "#game")[2] == "5" and "conflict" in cell_classes(browser, "#game", 2)
    click(browser, "#keypad button[data-digit='4']")
    assert drawn(browser, "#game")[2] == "4" and "conflict" not in cell_classes(browser, "#game", 2)
    browser.save_screenshot(str(tmp_path / "phone.png"))


@needs_chromium
def test_hints_go_on_from_the_pencil_marks_crossing_out_and_highlighting(browser, service, tmp_path):
    browser.get(page_url(service))
    load(browser, POINTING)
    click(browser, "#fill-marks")
    wait_for(browser, "document.getElementById('hint-text').textContent.startsWith('Every blank cell')")
    assert marks(browser, 56) == {"2": "", "3": "", "4": "", "9": ""}

    words = hint(browser)
    assert browser.execute_script("return document.getElementById('hint-text').dataset.kind") == "ELIMINATION"
    assert "Cross out 4 in r7c3, r8c3" in words
    assert "pointing (medium, on 4)" in words
    assert "Pointing: in box 4, 4 can only go in column 3, so 4 is not in r7c3 or r8c3." in words
    # The pattern (the 4s of box 4), its units (box 4, column 3), the cells losing a mark.
    assert cells_with(browser, "hint-pattern") == [29, 47]
    assert marks(browser, 29)["4"] == marks(browser, 47)["4"] == "pattern-0"
    assert set(cells_with(browser, "hint-unit")) == unit_cells("box", 4) | unit_cells("column", 3)
    assert cells_with(browser, "hint-elim") == [56, 65]
    assert marks(browser, 56) == {"2": "", "3": "", "4": "eliminated", "9": ""}
    browser.save_screenshot(str(tmp_path / "elimination.png"))

    # The 4s are gone from the player's marks, so the next hint goes on from there.
    words = hint(browser)
    assert "Cross out 5 in r1c2, r2c2" in words, words
    assert marks(browser, 56) == {"2": "", "3": "", "9": ""}
    assert cells_with(browser, "hint-elim") == [1, 10]


# Boards whose first step, with every candidate pencilled in, has a
# pattern in two groups (a finned X-wing: its fin), a chain (an AIC) or a
# chain through a group (a grouped AIC: the group's cells are nodes each).
FINNED_X_WING = "..6.92158.8..7.69229.8.63745627384199..2..8658149652376.8..9721.29.8.546.5.62.983"
AIC = ".2...3..48..7..39...7....61..3.7...8..6..213.5.........4.8....6..8.1..2..5...9..."
GROUPED_AIC = ".82...61..912....84.31.89.2.2..8.....78...2...4..271869..734821814..2735237815469"


@needs_chromium
@pytest.mark.parametrize("board, name", [(FINNED_X_WING, "finned X-wing"), (AIC, "alternating inference chain"),
                                         (GROUPED_AIC, "grouped alternating inference chain")],
                         ids=["fins", "chain", "group"])
def test_a_hints_pattern_groups_and_chain_are_drawn_apart(browser, service, tmp_path, board, name):
    browser.get(page_url(service))
    load(browser, board)
    click(browser, "#fill-marks")
    wait_for(browser, "document.getElementById('hint-text').textContent.startsWith('Every blank cell')")
    words = hint(browser)
    # The oracle: the same step from the logic engine, on the candidates the rules leave.
    step = logic.step(board, hints.candidates(engine.parse_board(board)))
    assert name in words, words
    for group, klass in ((0, "hint-pattern"), (1, "hint-pattern-1")):
        assert cells_with(browser, klass) == sorted({c for g, c, _ in step.pattern if g == group}), klass
    assert cells_with(browser, "hint-chain") == sorted({node.cell for node in step.chain})
    assert cells_with(browser, "hint-elim") == sorted({c for c, _ in step.eliminations})
    for node in step.chain:  # each of the chain's candidates: true or false along it
        assert marks(browser, node.cell)[str(node.digit)] == ("chain-on" if node.on else "chain-off"), node
    chained = {(node.cell, node.digit) for node in step.chain}
    for group, cell, digit in step.pattern:
        if (cell, digit) not in chained:
            assert marks(browser, cell)[str(digit)] == f"pattern-{group}", (cell, digit)
    for cell, digit in step.eliminations:
        assert marks(browser, cell)[str(digit)] == "eliminated", (cell, digit)
    browser.save_screenshot(str(tmp_path / "pattern.png"))


# magictour_top1465 played by hints to its first avoidable rectangle: the player's
# entries, not givens, hold three of its corners.
AVOIDABLE_GIVENS = "..8..........6.784...73.9...9...7...6..1........9..45.5.7.......2.....19..12..3.."
AVOIDABLE_BOARD = "..8492...239561784...7389...9...7...6..1...9....9..45.5.7319.4..2..7..199.12..37."


@needs_chromium
def test_an_avoidable_rectangle_is_drawn_on_the_players_entries(browser, service, tmp_path):
    browser.get(page_url(service))
    load(browser, AVOIDABLE_GIVENS)
    for cell, value in enumerate(AVOIDABLE_BOARD):
        if value != "." and AVOIDABLE_GIVENS[cell] == ".":
            browser.find_elements("css selector", "#game .cell")[cell].click()
            press(browser, value)
    click(browser, "#fill-marks")
    wait_for(browser, "document.getElementById('hint-text').textContent.startsWith('Every blank cell')")
    words = hint(browser)
    step = logic.step(AVOIDABLE_BOARD, hints.candidates(engine.parse_board(AVOIDABLE_BOARD)), unique=True,
                      givens=AVOIDABLE_GIVENS)
    assert step.name == "AVOIDABLE_RECTANGLE" and "avoidable rectangle (hard" in words, words
    corners = sorted({c for _, c, _ in step.pattern})
    assert cells_with(browser, "hint-pattern") == corners  # the entries among them too
    assert [c for c in corners if "entry" in cell_classes(browser, "#game", c)] == [
        c for c in corners if AVOIDABLE_BOARD[c] != "."]
    assert cells_with(browser, "hint-elim") == [c for c, _ in step.eliminations]
    browser.save_screenshot(str(tmp_path / "avoidable.png"))


@needs_chromium
def test_a_wrong_entry_and_wrong_pencil_marks_are_named(browser, service, tmp_path):
    browser.get(page_url(service))
    load(browser, WIKIPEDIA)
    browser.find_elements("css selector", "#game .cell")[2].click()  # r1c3, 4 in the solution
    press(browser, "p", "1", "2", "p")
    words = hint(browser)
    assert "Your pencil marks in r1c3 leave out 4" in words, words
    assert cells_with(browser, "hint-wrong") == [2]
    assert marks(browser, 2) == {"1": "", "2": "", "4": "missing"}
    browser.save_screenshot(str(tmp_path / "wrong-marks.png"))

    press(browser, "1")  # breaks no rule, but the solution has 4 there
    words = hint(browser)
    assert "r1c3 = 1 is wrong" in words and "the solution has 4 there" in words, words
    assert cells_with(browser, "hint-wrong") == [2]


@needs_chromium
def test_a_loaded_puzzle_shows_its_grade_and_hodokus_level_where_it_differs(browser, service):
    browser.get(page_url(service))
    load(browser, puzzles("magictour_top1465")[0])  # medium, score 1,382: over HoDoKu's 1,000 for medium
    status = wait_for(browser, "document.getElementById('puzzle-status').textContent.includes('Grade:') && "
                               "document.getElementById('puzzle-status').textContent")
    assert "Grade: medium (score 1,382; hardest step: " in status and "; HoDoKu: hard)." in status, status
    load(browser, WIKIPEDIA)
    status = wait_for(browser, "document.getElementById('puzzle-status').textContent.includes('Grade: easy') && "
                               "document.getElementById('puzzle-status').textContent")
    assert "HoDoKu" not in status, status


@needs_chromium
def test_generate_fills_the_grid_with_a_unique_puzzle_of_the_level(browser, service, tmp_path):
    from selenium.webdriver.support.ui import Select

    browser.get(page_url(service))
    load(browser, WIKIPEDIA)
    Select(browser.find_element("id", "level")).select_by_visible_text("hard")
    click(browser, "#generate")
    status = wait_for(browser, "document.getElementById('puzzle-status').textContent.startsWith('Generated') && "
                               "document.getElementById('puzzle-status').textContent")
    puzzle = drawn(browser, "#game")
    assert puzzle != WIKIPEDIA
    assert engine.count(puzzle, limit=2) == (1, True)
    assert logic.grade(puzzle).level_name == "hard"
    assert "Grade: hard (score " in status, status
    assert all("given" in cell_classes(browser, "#game", c) for c in range(81) if puzzle[c] != ".")
    browser.save_screenshot(str(tmp_path / "generated.png"))


@needs_chromium
def test_watch_draws_naive_and_mrv_to_the_solution_with_the_players_entries(browser, service, tmp_path):
    browser.get(page_url(service))
    load(browser, WIKIPEDIA)
    browser.find_elements("css selector", "#game .cell")[2].click()
    press(browser, "4")  # an entry of the player's, kept fixed by both searches
    watch_to_the_end(browser, 2000)
    browser.save_screenshot(str(tmp_path / "watched.png"))
    for root in ("#watch-naive", "#watch-mrv"):
        assert drawn(browser, root) == SOLVED, root
        assert cursor_cells(browser, root) == [], root  # the search is over: no cell being decided
        assert "entry" in cell_classes(browser, root, 2) and "given" in cell_classes(browser, root, 0)
        assert "search" in cell_classes(browser, root, 3), root  # a blank the search filled
    table = step_table(browser)
    assert table["naive"][4] == table["mrv"][4] == "solved"


@needs_chromium
def test_the_empty_board_takes_naive_701_steps(browser, service, tmp_path):
    from selenium.webdriver.support.ui import Select

    browser.get(page_url(service))
    Select(browser.find_element("id", "builtin")).select_by_visible_text("Empty board")
    wait_for(browser, "document.getElementById('puzzle-status').textContent.startsWith('Loaded')")
    watch_to_the_end(browser, 2000)
    table = step_table(browser)
    assert table["naive"] == ["701", "391", "310", "81", "solved"]  # 81 placements kept, 310 taken back and redone
    steps, placements, retractions, depth = (int(n.replace(",", "")) for n in table["mrv"][:4])
    assert table["mrv"][4] == "solved" and steps == placements + retractions and placements - retractions == depth == 81
    for root in ("#watch-naive", "#watch-mrv"):
        assert is_completion("." * 81, drawn(browser, root)), root
    browser.save_screenshot(str(tmp_path / "empty.png"))


def cursor_cells(driver, root: str) -> list[int]:
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' .cell')].flatMap((c, i) =>"
        " c.classList.contains('cursor') ? [i] : [])", root)


def watcher(driver, root: str) -> dict[str, str]:
    return driver.execute_script("return {...document.querySelector(arguments[0]).dataset}", root)


def all_states(driver, state: str, negate: bool = False) -> None:
    test = "!==" if negate else "==="
    wait_for(driver, f"[...document.querySelectorAll('.watcher')].every(w => w.dataset.state {test} '{state}')")


STOP_DURATION_MS = 10_000


@needs_chromium
def test_stop_is_cancel_resume_goes_on_from_the_last_seq_and_reset_from_0(browser, service, stub, tmp_path):
    from selenium.webdriver.support.ui import Select

    browser.get(page_url(service))
    load(browser, HARDEST)
    # 10 s, not 2: from the 11th frame to the end must outlast a click on a
    # loaded machine (with 2 s, once, the naive search played to its end first).
    Select(browser.find_element("id", "duration")).select_by_value(str(STOP_DURATION_MS))
    click(browser, "#watch-start")
    wait_for(browser, "Number(document.getElementById('watch-naive').dataset.seq) > 10")
    click(browser, "#watch-stop")
    all_states(browser, "running", negate=True)
    browser.save_screenshot(str(tmp_path / "stopped.png"))
    stopped = watcher(browser, "#watch-naive")
    board = drawn(browser, "#watch-naive")
    browser.execute_script("return new Promise(r => setTimeout(r, 700))")
    assert (watcher(browser, "#watch-naive"), drawn(browser, "#watch-naive")) == (stopped, board), "drawn on"
    assert stopped["state"] == "stopped" and 0 < int(stopped["step"]) < 671_215

    # Stop was Cancel: the job's own frames now end CANCELLED, where its stream was.
    for root, total in (("#watch-naive", 671_215), ("#watch-mrv", 1_675)):
        frames = list(stub.Watch(pb.WatchRequest(job_id=watcher(browser, root)["job"], unpaced=True), timeout=30))
        assert frames[-1].outcome == pb.CANCELLED, root
        assert int(watcher(browser, root)["step"]) <= frames[-1].counters.steps < total, root
        # The job plays in the duration chosen, and the page drew its frames by the proto's
        # recipe up to the stop: the same board, the cursor on the frame's cell.
        assert frames[0].job.pacing.duration_ms == STOP_DURATION_MS, root
        seq = int(watcher(browser, root)["seq"])
        at = [frame.seq for message in frames for frame in split(message)].index(seq)
        assert drawn(browser, root) == draw(frames)[at], root
        cursor = [frame.cursor for message in frames for frame in split(message)][at]
        assert cursor >= 0 and cursor_cells(browser, root) == [cursor], root

    # Resume is Watch from the last seq drawn (of the same search, started again): the
    # first frame drawn is the next one, and it starts at the step the drawing stopped at.
    click(browser, "#watch-resume")
    resumed = wait_for(browser, "document.getElementById('watch-naive').dataset.resumedAt")
    assert resumed == f"{int(stopped['seq']) + 1} {stopped['step']}"
    all_states(browser, "done")
    assert watcher(browser, "#watch-naive")["job"] != stopped["job"]
    solution = drawn(browser, "#watch-mrv")
    assert is_completion(HARDEST, solution)
    assert drawn(browser, "#watch-naive") == solution
    assert step_table(browser)["naive"] == ["671,215", "335,637", "335,578", "59", "solved"]
    browser.save_screenshot(str(tmp_path / "resumed.png"))

    # Reset is Watch from 0: the same job's search from its start, to the end again.
    finished = watcher(browser, "#watch-naive")["job"]
    click(browser, "#watch-reset")
    wait_for(browser, "document.getElementById('watch-naive').dataset.state === 'running' && "
                      "Number(document.getElementById('watch-naive').dataset.seq) < 10")
    assert "final" not in browser.find_element("css selector", "#step-table tr[data-strategy=naive]").get_attribute("class")
    assert watcher(browser, "#watch-naive")["job"] == finished
    all_states(browser, "done")
    assert drawn(browser, "#watch-naive") == solution
    assert step_table(browser)["naive"][0] == "671,215"

    # Reset after a Stop: the cancelled job would end where it stopped, so a new one plays from 0.
    click(browser, "#watch-reset")
    wait_for(browser, "Number(document.getElementById('watch-naive').dataset.seq) > 10")
    click(browser, "#watch-stop")
    all_states(browser, "running", negate=True)
    click(browser, "#watch-reset")
    wait_for(browser, "document.getElementById('watch-naive').dataset.state === 'running' && "
                      "Number(document.getElementById('watch-naive').dataset.seq) < 10")
    all_states(browser, "done")
    assert watcher(browser, "#watch-naive")["job"] != finished
    assert drawn(browser, "#watch-naive") == solution
    assert step_table(browser)["naive"][0] == "671,215"


def shown_step(driver, root: str) -> dict:
    """Where a watcher's drawing is: its board, cursor, step-table row and
    data, read at one moment (a reply drawn between two reads would mix two steps)."""
    return driver.execute_script(
        "const w = document.querySelector(arguments[0]);"
        "const cells = [...w.querySelectorAll('.cell')];"
        "return {...w.dataset,"
        " board: cells.map(c => c.firstChild && c.firstChild.nodeType === 3 ? c.textContent : '.').join(''),"
        " cursor: cells.flatMap((c, i) => c.classList.contains('cursor') ? [i] : []),"
        " row: [...document.querySelectorAll(`#step-table tr[data-strategy=${w.dataset.strategy}] td`)]"
        "  .map(td => td.textContent)}", root)


def expected(python: reference.Stepper, outcome: str = "stepping") -> dict:
    row = [f"{python.steps:,}", f"{python.placements:,}", f"{python.retractions:,}",
           f"{python.placements - python.retractions:,}", outcome]
    return {"board": python.board, "cursor": [python.cursor] if python.cursor >= 0 else [], "row": row}


def at_step(driver, naive: int, mrv: int) -> None:
    wait_for(driver, "document.getElementById('watch-naive').dataset.step === arguments[0] && "
                     "document.getElementById('watch-mrv').dataset.step === arguments[1] && "
                     "[...document.querySelectorAll('.watcher')].every(w => w.dataset.state !== 'running')",
             str(naive), str(mrv))


def same_drawing(driver, root: str, python: reference.Stepper, outcome: str = "stepping") -> None:
    shown = shown_step(driver, root)
    assert {k: shown[k] for k in ("board", "cursor", "row")} == expected(python, outcome), (root, python.steps)


@needs_chromium
def test_a_learner_steps_30_runs_10000_and_plays_to_the_end(browser, service, tmp_path):
    from selenium.webdriver.support.ui import Select

    browser.get(page_url(service))
    load(browser, HARDEST)
    naive, mrv = reference.Stepper(HARDEST, strategy="naive"), reference.Stepper(HARDEST, strategy="mrv")
    for step in range(1, 31):
        if step % 2:
            click(browser, "#watch-step")  # a tap
        else:
            press(browser, "\ue014")  # →, with no cell of the game selected
        at_step(browser, step, step)
        naive.run(1)
        mrv.run(1)
        same_drawing(browser, "#watch-naive", naive)
        same_drawing(browser, "#watch-mrv", mrv)
        assert watcher(browser, "#watch-naive")["mode"] == "step"
    browser.save_screenshot(str(tmp_path / "step-30.png"))

    field = browser.find_element("id", "run-count")
    field.clear()
    field.send_keys("10000")
    click(browser, "#watch-run")
    at_step(browser, 10_030, 1_675)  # MRV ends on the way
    naive.run(10_000)
    mrv.skip(10**6)
    same_drawing(browser, "#watch-naive", naive)
    same_drawing(browser, "#watch-mrv", mrv, "solved")
    assert watcher(browser, "#watch-mrv")["state"] == "done"

    # Resume plays the steps on, on the page's clock, at the speed chosen: to the end.
    Select(browser.find_element("id", "step-speed")).select_by_value("100000")
    click(browser, "#watch-resume")
    all_states(browser, "done")
    naive.skip(10**7)
    same_drawing(browser, "#watch-naive", naive, "solved")
    assert drawn(browser, "#watch-naive") == drawn(browser, "#watch-mrv") == naive.solution
    assert is_completion(HARDEST, naive.solution) and naive.steps == 671_215
    assert browser.find_element("id", "watch-step").get_attribute("disabled")
    browser.save_screenshot(str(tmp_path / "stepped-to-the-end.png"))


@needs_chromium
def test_step_takes_over_a_watched_solve_where_it_is_drawn_and_play_stop_reset_go_on_stepping(browser, service):
    from selenium.webdriver.support.ui import Select

    browser.get(page_url(service))
    load(browser, HARDEST)
    Select(browser.find_element("id", "duration")).select_by_value("60000")
    click(browser, "#watch-start")
    wait_for(browser, "Number(document.getElementById('watch-naive').dataset.seq) > 5")
    click(browser, "#watch-step")
    wait_for(browser, "[...document.querySelectorAll('.watcher')].every(w => w.dataset.mode === 'step' && "
                      "w.dataset.state === 'stopped' && w.dataset.replies === '1')")
    for root, strategy in (("#watch-naive", "naive"), ("#watch-mrv", "mrv")):
        shown = shown_step(browser, root)
        python = reference.Stepper(HARDEST, strategy=strategy)
        python.skip(int(shown["step"]))
        assert {k: shown[k] for k in ("board", "cursor", "row")} == expected(python), root
        assert int(shown["step"]) > 1  # it went on from the frames drawn, not from 0

    # Play at 10 steps a second, then Stop holds it where it is; Step goes on from there.
    click(browser, "#watch-resume")
    wait_for(browser, "document.getElementById('watch-naive').dataset.state === 'running'")
    held = int(watcher(browser, "#watch-naive")["step"])
    wait_for(browser, "Number(document.getElementById('watch-naive').dataset.step) > arguments[0] + 3", held)
    click(browser, "#watch-stop")
    all_states(browser, "running", negate=True)
    stopped = int(watcher(browser, "#watch-naive")["step"])
    browser.execute_script("return new Promise(r => setTimeout(r, 500))")
    assert int(watcher(browser, "#watch-naive")["step"]) == stopped, "drawn on after Stop"
    click(browser, "#watch-step")
    wait_for(browser, "document.getElementById('watch-naive').dataset.step === arguments[0]", str(stopped + 1))
    python = reference.Stepper(HARDEST, strategy="naive")
    python.skip(stopped + 1)
    same_drawing(browser, "#watch-naive", python)

    # Reset goes back to step 0 of the same search, and stepping starts there again.
    click(browser, "#watch-reset")
    at_step(browser, 0, 0)
    assert drawn(browser, "#watch-naive") == HARDEST
    click(browser, "#watch-step")
    at_step(browser, 1, 1)
    python = reference.Stepper(HARDEST, strategy="naive")
    python.run(1)
    same_drawing(browser, "#watch-naive", python)


@needs_chromium
def test_a_position_the_service_lost_is_stepped_on_from_its_step_and_the_page_says_so(browser, custom_service,
                                                                                       redis, tmp_path):
    """The service went away (a phone put away, the instance restarted with
    another key): the next → takes the next step all the same, from the
    search started over at the step drawn, and the counters' line says so."""
    from sudoku import keys
    from tests.stack import free_port

    port = free_port()
    before = custom_service(http_listen=f"127.0.0.1:{port}")
    browser.get(f"http://127.0.0.1:{port}/")
    load(browser, HARDEST)
    field = browser.find_element("id", "run-count")
    field.clear()
    field.send_keys("1234")
    click(browser, "#watch-run")
    at_step(browser, 1_234, 1_234)
    before.stop()
    redis.set(keys.POSITION_KEY, b"the page's key after the loss")
    custom_service(http_listen=f"127.0.0.1:{port}")
    press(browser, "\ue014")  # →
    at_step(browser, 1_235, 1_235)
    for root, strategy in (("#watch-naive", "naive"), ("#watch-mrv", "mrv")):
        python = reference.Stepper(HARDEST, strategy=strategy)
        python.run(1_235)
        same_drawing(browser, root, python)
        said_there = browser.find_element("css selector", f"{root} .counters").text
        assert "the service lost this search's position: started over at step 1,234" in said_there, said_there
    browser.save_screenshot(str(tmp_path / "lost-position.png"))


@needs_chromium
def test_a_service_with_a_token_is_played_once_the_token_is_given(browser, custom_service, tmp_path):
    running = custom_service(auth_token="page-secret")
    browser.get(page_url(running))
    status = "document.getElementById('puzzle-status')"
    said_first = wait_for(browser, f"{status}.classList.contains('error') && {status}.textContent")
    assert 'set the token under "Service" below' in said_first, said_first
    assert browser.execute_script("return document.getElementById('settings').open")

    def use(token: str) -> None:
        field = browser.find_element("id", "token")
        field.clear()
        field.send_keys(token)
        click(browser, "#token-form button")

    use("not-it")
    field = browser.find_element("id", "puzzle-text")
    field.clear()
    field.send_keys(WIKIPEDIA)
    click(browser, "#load")  # "Use" said the token will be sent: a new error, not the first one
    wrong = wait_for(browser, f"{status}.classList.contains('error') && {status}.textContent")
    assert 'set the token under "Service" below' in wrong, wrong
    use("page-secret")
    load(browser, WIKIPEDIA)  # CountSolutions and Grade
    assert re.search(r"r\dc\d = \d", hint(browser))  # Hint: the next placement
    watch_to_the_end(browser, 2000)  # Solve, streamed
    assert drawn(browser, "#watch-naive") == drawn(browser, "#watch-mrv") == SOLVED
    browser.save_screenshot(str(tmp_path / "token.png"))


FOREIGN_PAGE = """<!doctype html><title>waiting</title>
<script type="module">
import {{ createClient, createConnectTransport, Sudoku }} from "{base}static/api.js";
const client = createClient(Sudoku, createConnectTransport({{ baseUrl: "{base}", useBinaryFormat: true }}));
try {{
  const reply = await client.countSolutions({{ board: "{board}" }});
  document.title = "count " + reply.count;
}} catch (error) {{
  document.title = "refused";
}}
</script>"""


@pytest.fixture
def foreign_origin(tmp_path):
    """A web game on another origin: a page on a port of its own."""
    folder = tmp_path / "game"
    folder.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@needs_chromium
@pytest.mark.parametrize("allowed", [True, False], ids=["allowed", "not-allowed"])
def test_a_web_game_on_another_origin_calls_the_api_when_allowed(browser, custom_service, foreign_origin, allowed):
    folder, origin = foreign_origin
    running = custom_service(http_origins=origin if allowed else "")
    (folder / "index.html").write_text(FOREIGN_PAGE.format(base=page_url(running), board=WIKIPEDIA))
    browser.get(origin + "/index.html")
    if allowed:
        assert wait_for(browser, "document.title !== 'waiting' && document.title") == "count 1"
    else:
        # Without CORS the browser will not even load the client from the service's origin.
        browser.execute_script("return new Promise(r => setTimeout(r, 1500))")
        assert browser.title in ("waiting", "refused")


NPM = shutil.which("npm")


@pytest.mark.skipif(not NPM, reason="no npm here: `make web` needs Node and npm (Debian: apt-get install nodejs npm)")
def test_the_committed_client_bundle_is_what_make_web_makes(tmp_path):
    out = tmp_path / "api.js"
    done = subprocess.run(["make", "-s", "web", f"WEB_OUT={out}"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert filecmp.cmp(out, ROOT / "service/http/static/api.js", shallow=False), (
        "service/http/static/api.js differs from what `make web` makes: run `make web` and commit it")
