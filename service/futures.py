"""What a call's background work does with a failure nobody waits for."""

from __future__ import annotations

import asyncio


def seen(future: asyncio.Future) -> None:
    """A done-callback marking the future's failure as taken. A batch call
    hands each job's outcome to a future its reply stream awaits; when the
    call has ended first (the client left, Redis went away), nobody else
    will take it, and asyncio would log it as an error of the service's."""
    if not future.cancelled():
        future.exception()
