"""Work a call leaves running, and what becomes of it when the call or the
service ends.

A call's clean-up in Redis (its jobs' cancel flag, its boards) must run to
its end even when the call is cancelled mid-way: `finish` makes the call
wait for it. A batch call's jobs may outlive the call (their replies are
awaited by futures): `Outliving` keeps them, so a stopping service ends
them before it closes its Redis clients. A task still running after that
would open a connection on a closed client, which nobody closes. `stop`
ends tasks within a bound, though a cancel may be lost on the way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Coroutine, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger("sudoku.service")


def seen(future: asyncio.Future) -> None:
    """A done-callback marking the future's failure as taken. A batch call
    hands each job's outcome to a future its reply stream awaits; when the
    call has ended first (the client left, Redis went away), nobody else
    will take it, and asyncio would log it as an error of the service's."""
    if not future.cancelled():
        future.exception()


# How long a cancelled caller still waits for its clean-up (finish), and a
# stopping service for the tasks it cancels (stop): each is a few Redis
# commands, each bounded by sudoku/connections.py's timeouts.
CLEAN_UP_S = 5.0


async def finish(work: Awaitable[T]) -> T:
    """Awaits `work` to its end even when the caller is cancelled meanwhile
    (for at most CLEAN_UP_S more), then raises the cancel. Unlike
    asyncio.shield, the caller's task ends only after the work has, so
    whoever waits for the call (a stopping service) waits for its clean-up
    too."""
    task = asyncio.ensure_future(work)
    cancelled: asyncio.CancelledError | None = None
    loop = asyncio.get_running_loop()
    caller = asyncio.current_task()
    # Called in the `finally` of a call being cancelled, the bound runs from now.
    deadline = loop.time() + CLEAN_UP_S if caller is not None and caller.cancelling() else None
    while not task.done():
        try:
            await asyncio.wait((task,), timeout=None if deadline is None else max(0.0, deadline - loop.time()))
        except asyncio.CancelledError as exc:
            cancelled = exc
            deadline = deadline or loop.time() + CLEAN_UP_S
            continue
        if deadline is not None and not task.done():  # it had its time
            task.cancel()
            raise cancelled or asyncio.CancelledError()
    if cancelled is not None:
        raise cancelled
    return task.result()


async def stop(tasks: Iterable[asyncio.Task], within: float = CLEAN_UP_S) -> None:
    """Cancels the tasks and waits for them to end, at most `within`.

    A cancel can be lost: redis-py writes through asyncio.wait_for, which on
    Python 3.11 swallows a cancel that lands as the write completes
    (sudoku/connections.py, raise_lost_cancel), and a loop around such a
    command then runs on. So those still running are cancelled again while
    there is time, and any left are logged by name rather than waited for."""
    pending = {task for task in tasks if not task.done()}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while pending and (left := deadline - loop.time()) > 0:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=min(left, 0.1))
    if pending:
        log.warning("still running after %.0f s, left behind: %s", within,
                    ", ".join(sorted(repr(task.get_coro()) for task in pending)))


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
        """Gives the tasks `grace` seconds to end, those spawned meanwhile
        included (a stream cut short as the service stops spawns its own),
        then stops those left."""
        deadline = asyncio.get_running_loop().time() + grace
        while pending := {task for task in self.tasks if not task.done()}:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                await stop(pending)
                return
            await asyncio.wait(pending, timeout=left)


async def settle(tasks: Iterable[asyncio.Task], grace: float) -> None:
    """Gives the tasks `grace` seconds to end, then stops those left (stop)."""
    pending = {task for task in tasks if not task.done()}
    if pending and grace > 0:
        _, pending = await asyncio.wait(pending, timeout=grace)
    await stop(pending)
