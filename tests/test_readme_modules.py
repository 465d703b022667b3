"""docs/architecture.md, "How it runs", names the file of every idea in its
table: a module that is in none of its rows is one a newcomer cannot find
from there."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = "docs/architecture.md"
PACKAGES = ("service", "launcher", "worker", "sudoku", "client")


def module_table() -> str:
    """The table of `| idea | file |` rows, up to the first line that is not one."""
    text = (ROOT / PAGE).read_text()
    start = text.index("\n| idea | file |")
    end = text.find("\n\n", start + 1)
    return text[start:end if end != -1 else len(text)]


def modules() -> list[str]:
    found = [str(path.relative_to(ROOT)) for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
             if path.name != "__init__.py" and "v1" not in path.parts]  # v1: generated from proto/
    return found + [str(path.relative_to(ROOT)) for path in sorted((ROOT / "sudoku" / "csrc").rglob("*.c"))]


def test_how_it_runs_names_every_module():
    text = module_table()
    # A folder named with its trailing slash names the files in it (sudoku/csrc/logic/).
    missing = [m for m in modules() if f"`{m}`" not in text and f"`{m.rsplit('/', 1)[0]}/`" not in text]
    assert not missing, (f"{PAGE}'s \"How it runs\" table names no row for: {', '.join(missing)}; "
                         "add each to the row of its idea (or a new row)")
