"""Remakes grades.tsv and paths.tsv: the same puzzles, graded and solved by
the grader of today.

    python tests/data/make_grades.py

For a change that is meant to change grades or steps (see README.md here,
"Recorded grades"); run bench/grades.py before and after to see what it does
to the calibration. The first line (the header) and the puzzles, in order,
stay. paths.tsv holds, for each puzzle of grades.tsv, a digest of every
step of its logical solution (logic.path, unique), so that a change meant
only to be faster shows that it changed no technique, pattern or
elimination anywhere.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if __name__ == "__main__":
    sys.path[0] = str(HERE.parent.parent)  # the repository, for `worker`

from worker import logic  # noqa: E402


def path_digest(puzzle: str) -> str:
    """A digest of every step of the puzzle's logical solution, all fields."""
    return hashlib.sha256(repr(logic.path(puzzle, unique=True)).encode()).hexdigest()[:16]


def main() -> None:
    path = HERE / "grades.tsv"
    header, *rows = path.read_text().splitlines()
    puzzles = [row.split("\t")[0] for row in rows]
    lines = [header]
    for puzzle, g in zip(puzzles, logic.grade_many("".join(puzzles))):
        used = ",".join(f"{logic.TECHNIQUES[t]}={n}" for t, n in enumerate(g.counts) if n)
        lines.append("\t".join((puzzle, g.level_name, logic.TECHNIQUES[g.hardest], str(g.steps), str(g.score), used)))
    path.write_text("\n".join(lines) + "\n")
    print(f"{path}: {len(puzzles)} grades")
    paths = HERE / "paths.tsv"
    lines = ["# puzzle\tdigest of its logical solution's steps (make_grades.path_digest)"]
    lines += [f"{puzzle}\t{path_digest(puzzle)}" for puzzle in puzzles]
    paths.write_text("\n".join(lines) + "\n")
    print(f"{paths}: {len(puzzles)} paths")


if __name__ == "__main__":
    main()
