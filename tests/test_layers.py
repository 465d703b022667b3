"""What each package may import: sudoku/ sits below the service and the
workers, which never import each other; the launcher (sudoku-server) sits
above both; and the client stands alone (its own distribution has no worker
and no service). Checked on the source, every import of every module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# package: the packages of this repo it must not import
FORBIDDEN = {
    "service": {"worker", "client", "launcher"},
    "worker": {"service", "client", "launcher"},
    "sudoku": {"service", "worker", "client", "launcher"},
    "client": {"service", "worker", "launcher"},
}


def imported(path: Path) -> set[str]:
    """The top-level package of every module `path` imports, anywhere in it."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_imports_nothing_above_it(package):
    wrong = {str(path.relative_to(ROOT)): sorted(names)
             for path in sorted((ROOT / package).rglob("*.py")) if (names := imported(path) & FORBIDDEN[package])}
    assert not wrong, f"{package}/ imports what it must not: {wrong}"
