"""The heap of a long-running process that answers in milliseconds.

Garbage collection: with CPython's defaults, a full collection in
sudoku-server (the service and each worker) took tens of milliseconds,
longer than the calls it interrupted (docs/performance.md, "Garbage
collection", has the figures), most of it scanning the objects of the
imported libraries, which live as long as the process. Frozen after set-up,
those objects are not scanned again; the collector still runs as usual for
what comes after.

Large blocks: a CountMany job moves megabyte buffers (its boards) through
every process several times (gRPC message, protobuf field, Redis command,
reply). glibc serves a block above its mmap threshold with a fresh mapping
and unmaps it when freed, so each such buffer is faulted in page by page
again, in the kernel, every time; its threshold adapts upwards only once
such a block is freed, and the heap above the trim threshold goes back to
the kernel too. Fixed thresholds above those buffers keep them in the heap
for reuse (docs/performance.md, "Large blocks", has the figures;
bench/count.py measures it).
"""

from __future__ import annotations

import ctypes
import gc

# mallopt() parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# Above a CountMany job's boards (SUDOKU_MANY_JOB_SIZE x 81 bytes, and the
# largest CountMany message), below what a worker would miss if kept.
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20


def settle() -> None:
    """Call once, when set-up is done: what exists now is collected once,
    then never scanned again (gc.freeze); large blocks stay in the heap."""
    gc.collect()
    gc.freeze()
    keep_large_blocks()


def keep_large_blocks() -> bool:
    """Fixes glibc's mmap and trim thresholds (see above). False where the C
    library has no mallopt (macOS) or refuses: nothing changes there."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
