"""Work a call leaves running, and what becomes of it when the call or the
service ends.

A call's clean-up in Redis (its jobs' cancel flag, its boards) must run to
its end even when the call is cancelled mid-way: `finish` makes the call
wait for it. A batch call's jobs may outlive the call (their replies are
awaited by futures): `Outliving` keeps them, so a stopping service ends
them before it closes its Redis clients. A task still running after that
would open a connection on a closed client, which nobody closes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def seen(future: asyncio.Future) -> None:
    """A done-callback marking the future's failure as taken. A batch call
    hands each job's outcome to a future its reply stream awaits; when the
    call has ended first (the client left, Redis went away), nobody else
    will take it, and asyncio would log it as an error of the service's."""
    if not future.cancelled():
        future.exception()


async def finish(work: Awaitable[T]) -> T:
    """Awaits `work` to its end even when the caller is cancelled meanwhile,
    then raises the cancel. Unlike asyncio.shield, the caller's task ends
    only after the work has, so whoever waits for the call (a stopping
    service) waits for its clean-up too. The work must bound its own time
    (every Redis command here does: sudoku/connections.py)."""
    task = asyncio.ensure_future(work)
    cancelled: asyncio.CancelledError | None = None
    while not task.done():
        try:
            await asyncio.wait((task,))
        except asyncio.CancelledError as exc:
            cancelled = exc
    if cancelled is not None:
        raise cancelled
    return task.result()


class Outliving:
    """Tasks that may outlive the call that started them."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task] = set()

    def spawn(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(seen)
        return task

    async def close(self, grace: float = 0.0) -> None:
        """Gives the tasks `grace` seconds, then cancels those left and waits
        for their clean-up."""
        pending = set(self.tasks)
        if pending and grace > 0:
            _, pending = await asyncio.wait(pending, timeout=grace)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
