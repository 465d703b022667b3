"""Garbage collection for a long-running process that answers in milliseconds.

With CPython's defaults, a full collection in sudoku-server (the service
and each worker) took tens of milliseconds, longer than the calls it
interrupted (README, "Garbage collection", has the figures), most of it
scanning the objects of the imported libraries, which live as long as the
process. Frozen after set-up, those objects are not scanned again; the
collector still runs as usual for what comes after.
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Call once, when set-up is done: what exists now is collected once,
    then never scanned again (gc.freeze)."""
    gc.collect()
    gc.freeze()
