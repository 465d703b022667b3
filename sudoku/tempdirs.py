"""Temporary directories that say who owns them, so leftovers can be swept.

sudoku-server keeps its embedded Redis's socket and its workers' metric
files in temporary directories and removes them when it stops. A process
that is SIGKILLed removes nothing, so each directory holds the owner's pid,
and the next start removes the directories of owners that are gone.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile

OWNER = "owner.pid"


def owned(prefix: str) -> str:
    """A fresh directory `prefix*` in the temporary folder, owned by this process;
    older ones of the same prefix whose owner is dead are removed first."""
    sweep(prefix)
    path = tempfile.mkdtemp(prefix=prefix)
    with open(os.path.join(path, OWNER), "w") as f:
        f.write(str(os.getpid()))
    return path


def sweep(prefix: str) -> list[str]:
    """Removes the `prefix*` directories whose owner process is gone; returns them."""
    removed = []
    for path in glob.glob(os.path.join(tempfile.gettempdir(), prefix + "*")):
        owner = owner_of(path)
        if owner is not None and not _running(owner):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def owner_of(path: str) -> int | None:
    try:
        with open(os.path.join(path, OWNER)) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None  # not ours, or still being made: leave it


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True
