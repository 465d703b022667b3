"""README's "How it runs" names the file of every idea: a module that is
in none of its rows is one a newcomer cannot find from there."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("service", "worker", "sudoku", "client")


def how_it_runs() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("\n## How it runs")
    return readme[start:readme.index("\n## ", start + 1)]


def modules() -> list[str]:
    found = [str(path.relative_to(ROOT)) for package in PACKAGES for path in sorted((ROOT / package).glob("*.py"))
             if path.name != "__init__.py"]
    return found + [str(path.relative_to(ROOT)) for path in sorted((ROOT / "worker" / "csrc").rglob("*.c"))]


def test_how_it_runs_names_every_module():
    text = how_it_runs()
    # A folder named with its trailing slash names the files in it (sudoku/csrc/logic/).
    missing = [m for m in modules() if f"`{m}`" not in text and f"`{m.rsplit('/', 1)[0]}/`" not in text]
    assert not missing, f"README's \"How it runs\" names no row for: {', '.join(missing)}"
