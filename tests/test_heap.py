"""sudoku/heap.py: set-up's objects are frozen out of the collector's sight, and large
blocks stay in the heap."""

from __future__ import annotations

import subprocess
import sys

import pytest


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


# A CountMany job's boards travel as buffers of about a megabyte, copied and
# sliced on the way (a packed Redis command, a worker's slice of them).
FAULTS_OF_BIG_BUFFERS = """
import resource, sys
from sudoku import heap
if sys.argv[1] == "keep" and not heap.keep_large_blocks():
    print("unsupported"); sys.exit()
data = b"1" * (1300 * 1024)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(100):
    command = b"".join((b"$1331200\\r\\n", data))
    part = command[10:]
    del command, part
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def test_large_blocks_are_reused_instead_of_faulted_in_again():
    def faults(mode: str) -> str:
        return subprocess.run([sys.executable, "-c", FAULTS_OF_BIG_BUFFERS, mode], check=True, timeout=60,
                              capture_output=True, text=True).stdout.strip()

    kept = faults("keep")
    if kept == "unsupported":
        pytest.skip("this C library has no mallopt (glibc's): large blocks are left to it")
    pages = 100 * 2 * 1300 // 4  # the buffers' 4 KiB pages, touched once each
    assert int(faults("default")) > pages // 10, "the C library's defaults already reuse them: nothing to measure"
    assert int(kept) < pages // 20, f"{kept} page faults for {pages} pages written"
