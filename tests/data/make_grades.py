"""Remakes grades.tsv: the same puzzles, graded by the grader of today.

    python tests/data/make_grades.py

For a change that is meant to change grades (see README.md here, "Recorded
grades"); run bench/grades.py before and after to see what it does to the
calibration. The first line (the header) and the puzzles, in order, stay.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[0] = str(HERE.parent.parent)  # the repository, for `worker`

from worker import logic  # noqa: E402


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


if __name__ == "__main__":
    main()
