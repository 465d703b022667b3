"""sudoku/heap.py: set-up's objects are frozen out of the collector's sight."""

from __future__ import annotations

import subprocess
import sys


def test_settle_freezes_what_exists_and_collection_goes_on():
    # In a process of its own: frozen objects are never freed.
    code = (
        "import gc, grpc, redis, rq\n"
        "from sudoku import heap\n"
        "assert gc.get_freeze_count() == 0\n"
        "heap.settle()\n"
        "frozen = gc.get_freeze_count()\n"
        "assert frozen > 10_000, frozen\n"
        "cycle = []; cycle.append(cycle); del cycle\n"
        "assert gc.collect() >= 1  # new garbage is still found\n"
        "assert gc.get_freeze_count() == frozen\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
