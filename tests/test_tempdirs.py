"""sudoku/tempdirs.py: folders left by a SIGKILLed owner are swept, no others."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from sudoku import tempdirs

PREFIX = "sudoku-test-tempdirs-"


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_only_folders_of_dead_owners_are_swept():
    mine = tempdirs.owned(PREFIX)
    orphan = tempdirs.owned(PREFIX)
    with open(os.path.join(orphan, tempdirs.OWNER), "w") as f:
        f.write(str(dead_pid()))
    unowned = tempfile.mkdtemp(prefix=PREFIX)  # not made by tempdirs: never ours to remove
    try:
        assert tempdirs.owner_of(mine) == os.getpid()
        assert tempdirs.sweep(PREFIX) == [orphan]
        assert os.path.isdir(mine) and os.path.isdir(unowned) and not os.path.exists(orphan)
    finally:
        for path in (mine, orphan, unowned):
            subprocess.run(["rm", "-rf", path], check=True)
