"""The sample puzzle files in tests/data, their expected solution counts, and
an answer checker (Norvig's is_solution idea: check the answer, not the path)."""

from __future__ import annotations

import random
from pathlib import Path

from sudoku.grid import is_solution_of

DATA = Path(__file__).parent / "data"
EMPTY = "." * 81
WIKIPEDIA = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
# No solution, and naive search finds out only at the last cell (r9c9 sees
# all nine values without any two givens clashing): it runs until stopped,
# which makes it the test suite's long job (~2 s per 100M steps).
ENDLESS = "........5........6........7........8........................9...........1234....."
# Many solutions (tests/data/multi_solution_16_clue.txt's 31st), and MRV
# takes 3,181,631 steps to the first: more than the cheap lane's
# (sudoku/lanes.py CHEAP_SOLVE_STEPS), so an unwatched solve of it goes on
# as a job of its own.
LONG_MRV = "................12..3.4.........63....7.....4.1.5..........84...2..3.....9.....5."
WIKIPEDIA_SOLUTION = (
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
)


def files(folder: Path = DATA) -> list[Path]:
    return sorted(folder.glob("*.txt"))


def read(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def puzzles(name: str) -> list[str]:
    """The puzzles of tests/data/<name>.txt."""
    return read(DATA / f"{name}.txt")


def expected_solutions(path: Path) -> tuple[int, int | None]:
    """(min, max) solutions of every puzzle in the file, per tests/data/README.md."""
    if "invalid" in path.name:
        return 0, 0
    if "multi_solution" in path.name or "serg" in path.name:
        return 2, None
    return 1, 1


def all_puzzles() -> list[tuple[str, str]]:
    """(file stem, puzzle) for every sample puzzle, files in name order."""
    return [(path.stem, puzzle) for path in files() for puzzle in read(path)]


def is_completion(puzzle: str, solution: str) -> bool:
    """True when `solution` is a full valid grid that keeps every given."""
    return is_solution_of(solution, puzzle.replace("0", "."))


def relabelled(puzzle: str, rng: random.Random) -> str:
    """The same puzzle with its digits renamed: same number of solutions.
    A blank may be '.' or '0'; it comes out as '.'."""
    digits = list("123456789")
    rng.shuffle(digits)
    return "".join("." if c in ".0" else digits[int(c) - 1] for c in puzzle)


def transformed(puzzle: str, rng: random.Random) -> str:
    """The same puzzle with its rows and columns shuffled (within their bands
    and stacks, and the bands and stacks themselves) and maybe transposed:
    the same number of solutions and the same grade, a board the caches
    have not seen (they relabel digits, not geometry)."""

    def order() -> list[int]:
        bands = rng.sample(range(3), 3)
        return [3 * band + line for band in bands for line in rng.sample(range(3), 3)]

    rows, columns = order(), order()
    cells = [puzzle[9 * r + c] for r in rows for c in columns]
    if rng.random() < 0.5:
        cells = [cells[9 * c + r] for r in range(9) for c in range(9)]
    return "".join(cells)


def boundless_counts(n: int) -> list[str]:
    """n different boards of ten givens from one solution: more solutions than
    any count in a test gets through (about 1.5 million a second here), so a
    count of one ends at its time limit or its cancel."""
    rng = random.Random(n)
    boards = []
    for _ in range(n):
        keep = set(rng.sample(range(81), 10))
        boards.append("".join(c if i in keep else "." for i, c in enumerate(WIKIPEDIA_SOLUTION)))
    return boards


def long_boards(n: int) -> list[str]:
    """Boards whose count to a million solutions takes seconds each: the
    multi-solution 16-clue ones with the most solutions, relabelled (the
    same count, but not the same board, so no cache answers twice)."""
    from sudoku import engine

    slow = [b for b in puzzles("multi_solution_16_clue")[:20]
            if not engine.count(b, limit=10**6, max_steps=200_000)[1]]
    assert slow, "no long board in the sample"
    rng = random.Random(n)
    return [relabelled(slow[i % len(slow)], rng) for i in range(n)]
