"""One worker process (`python -m worker.run.process`), as worker/run/supervisor.py
starts it: an RQ worker on our queues, plus its maintenance thread
(worker/run/recovery.py). Configured by the environment, through Settings, like
every other process of the service.
"""

from __future__ import annotations

import faulthandler
import logging
import os
import signal
import threading

from rq.serializers import JSONSerializer
from rq.utils import import_attribute

from sudoku import cells, connections, heap, keys, tracing
from sudoku.config import Settings
from worker import calls
from worker.run import readiness
from worker.run.classes import WORKER_CLASSES
from worker.run.recovery import maintain
from worker.run.supervisor import SUPERVISOR_PID


def worker_class(name: str) -> type:
    """"simple", "fork", or the dotted path of a subclass of either (as
    `rq worker -w` takes one; the tests' fault-injecting workers are such)."""
    if name in WORKER_CLASSES:
        return WORKER_CLASSES[name]
    try:
        found = import_attribute(name) if "." in name else None
    except (ImportError, AttributeError) as exc:
        raise SystemExit(f"SUDOKU_WORKER_CLASS={name!r}: {exc}") from None
    if not (isinstance(found, type) and issubclass(found, tuple(WORKER_CLASSES.values()))):
        raise SystemExit(f"SUDOKU_WORKER_CLASS={name!r}: use one of {', '.join(WORKER_CLASSES)}, "
                         "or the dotted path of a subclass of their classes")
    return found


def queues(which: str) -> list[str]:
    """The queues to take jobs from, in order: interactive first (the two
    kinds of worker that keys.lingering_for rings)."""
    if which == "all":
        return list(keys.QUEUES)
    if which == "interactive":
        return [keys.QUEUE_INTERACTIVE]
    raise SystemExit(f"SUDOKU_WORKER_QUEUES={which!r}: use all or interactive")


def run(settings: Settings) -> None:
    """Runs one worker until SIGTERM/SIGINT (warm; a second one is cold)."""
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s worker[%(process)d] %(levelname)s %(message)s")
    if not settings.redis_url:
        raise SystemExit("worker: REDIS_URL is not set (sudoku-server and sudoku-worker set it for their workers)")
    try:
        url = cells.one(settings.redis_url, "a worker")
    except cells.BadCells as exc:
        raise SystemExit(f"worker: {exc}") from None
    tracing.setup("sudoku-worker")  # only when OTEL_* asks for it
    # `kill -USR1 <pid>` prints where each of its threads is (the job, the
    # liveness beat, the maintenance) to its log, and the worker goes on.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    parent = int(os.environ.get(SUPERVISOR_PID) or os.getppid())
    redis = connections.worker(url)
    readiness.wait_until_usable(redis, parent)
    # Names, not Queue objects: each worker class makes its own kind of queue.
    names = queues(settings.worker_queues)
    calls.WORKER_QUEUES = tuple(names)  # a coalesced job waiting for calls can be rung on them
    worker = worker_class(settings.worker_class)(names, connection=redis, serializer=JSONSerializer)
    worker.supervisor = parent
    threading.Thread(target=maintain, args=(connections.worker(url), parent),
                     name="maintenance", daemon=True).start()
    heap.settle()
    worker.work(logging_level=settings.log_level, with_scheduler=False)


if __name__ == "__main__":
    run(Settings.from_env())
