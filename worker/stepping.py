"""A Step call: the next steps of a search a learner steps through (Sudoku.Step).

One call of a coalesced job (worker/calls.py), like a hint. The search
starts from the spec's board, or resumes from its snapshot (sudoku.engine:
the engine checks every byte of it, which came back from a client through
the service's signature check), takes `skip` steps without events, then
`steps` steps whose events it returns, and exports the snapshot of where it
stands, signed into the reply's position (sudoku/positions.py) with the key
read from Redis once a job (or SUDOKU_POSITION_KEY). The work is known
before the call is queued: skip + steps, plus at most 81 placements to
rebuild a resumed state, whatever the depth of the search; the service
clamped both to its settings, and a call of more than the cheap lane's
steps (sudoku/lanes.py CHEAP_SOLVE_STEPS) goes to the heavy lane.
"""

from __future__ import annotations

import logging
import os
from base64 import b64decode

from redis import Redis
from redis.exceptions import RedisError
from rq import get_current_job

from sudoku import engine, keys, positions
from sudoku.lanes import CHEAP_SOLVE_STEPS
from sudoku.positions import KeyRing
from sudoku.specs import StepSpec
from sudoku.v1 import sudoku_pb2 as pb

log = logging.getLogger("sudoku.worker")

OUTCOMES = {"solved": pb.SOLVED, "exhausted": pb.EXHAUSTED, "gave_up": pb.GAVE_UP}


class Heavy(Exception):
    """More steps than a cheap call may take."""


class BadSnapshot(ValueError):
    """A signed snapshot the engine refuses (made by another version of it)."""


def step_reply(spec: StepSpec, cheap: bool, key: bytes) -> pb.StepReply:
    """The reply to one Step call, its position signed with `key`."""
    if cheap and spec.skip + spec.steps > CHEAP_SOLVE_STEPS:
        raise Heavy()
    try:
        stepper = _stepper(spec)
    except ValueError as exc:
        raise BadSnapshot(f"position: {exc}") from None
    if spec.skip:
        stepper.skip(spec.skip)
    # Where the returned steps start, when the client has not drawn it: a new
    # search, or steps skipped.
    first_board = stepper.board if spec.skip or not spec.snapshot else ""
    first_step = stepper.steps
    events = stepper.run(spec.steps)
    running = stepper.status == "running"
    return pb.StepReply(
        position=positions.seal(key, stepper.export()) if running else b"",
        first_step=first_step,
        last_step=stepper.steps,
        steps=events,
        cursor=stepper.cursor,
        counters=pb.Counters(steps=stepper.steps, placements=stepper.placements,
                             retractions=stepper.retractions, solutions=stepper.solutions),
        board=stepper.board,
        first_board=first_board,
        outcome=pb.OUTCOME_UNSPECIFIED if running else OUTCOMES[stepper.status],
        solution=stepper.solution or "",
        conflicts=stepper.conflicts,
        adjustments=spec.adjustments,
    )


def _stepper(spec: StepSpec):
    if spec.snapshot:
        return engine.Stepper.resume(b64decode(spec.snapshot), max_steps=spec.max_steps)
    return engine.Stepper(spec.board, strategy=spec.strategy, tie_break=spec.tie_break, seed=spec.seed,
                          max_steps=spec.max_steps)


# The keys of this worker process: one ring, looked up again in Redis by
# every job that signs (a job of many calls looks once).
_RING = KeyRing(os.environ.get(positions.ENV, ""))
_LOOKED_BY: str | None = None


def signing_key(redis: Redis, job_id: str) -> bytes:
    """The key to sign with: the configured one, or the one Redis holds
    (written there first if Redis has none), read once per job."""
    global _LOOKED_BY
    if _RING.fixed is not None:
        return _RING.fixed
    if _LOOKED_BY != job_id or _RING.current is None:
        mine = _RING.candidate()
        try:
            with redis.pipeline(transaction=False) as pipe:
                pipe.set(keys.POSITION_KEY, mine, nx=True)
                pipe.get(keys.POSITION_KEY)
                _, shared = pipe.execute()
            _RING.adopt(shared or mine)
        except (RedisError, OSError):
            if _RING.current is None:
                raise
            log.debug("the position key could not be read again; signing with the one in hand", exc_info=True)
        _LOOKED_BY = job_id
    assert _RING.current is not None
    return _RING.current


def answer(spec: dict, cheap: bool) -> bytes:
    """worker/calls.py's entry point for a "step" call: the reply's bytes."""
    job = get_current_job()
    assert job is not None, "a Step call runs inside its coalesced job"
    s = StepSpec.from_dict(spec)
    if cheap and s.skip + s.steps > CHEAP_SOLVE_STEPS:
        raise Heavy()  # before the key is read: no work for the cheap lane
    return step_reply(s, cheap, signing_key(job.connection, job.id)).SerializeToString()
