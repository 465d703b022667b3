"""Step: a search a learner steps through (the proto's Sudoku.Step).

A request becomes a StepSpec here: every field checked (INVALID_ARGUMENT
naming it), `steps` and `skip` clamped to the settings (each clamp a line of
the reply's `adjustments`), a position opened with the deployment's key
(service/streams/positions.py) before anything is queued. The spec then goes as a
coalesced call, like a hint's (service/jobs/calls.py, kind "step"): the worker
answers it with the reply's bytes, the position it ends at signed in them
(worker/stepping.py), and they go to the client as they are. So a call's
work is known before it is queued, and nothing of the search stays on the
server between calls.
"""

from __future__ import annotations

from base64 import b64encode

from redis.asyncio import Redis as AsyncRedis

from service.rpc import validate
from service.rpc.validate import Invalid
from service.streams.positions import Positions
from sudoku.config import Settings
from sudoku.specs import StepSpec
from sudoku.v1 import sudoku_pb2 as pb

# The fields that start a search: with a position they must stay unset (it holds them).
START_FIELDS = ("board", "entries", "strategy", "tie_break", "seed")


class Stepping:
    """The Step RPC's checks: a request to the spec of its call."""

    def __init__(self, settings: Settings, redis: AsyncRedis):
        self.settings = settings
        self.positions = Positions(redis, settings.position_key)

    async def spec(self, request: pb.StepRequest) -> StepSpec:
        adjustments: list[str] = []
        settings = self.settings
        steps = validate.capped(request.steps, settings.max_step_count, "steps", adjustments, default=1)
        skip = validate.capped(request.skip, settings.max_step_skip, "skip", adjustments, default=0)
        common = {"steps": steps, "skip": skip, "max_steps": settings.max_steps, "adjustments": adjustments}
        if request.position:
            for name in START_FIELDS:
                if getattr(request, name):
                    raise Invalid(f"{name}: the position holds the search's board and options; send {name} only "
                                  "to start a search")
            snapshot = await self.positions.unseal(request.position)
            return StepSpec(board="", strategy="", tie_break="", seed=0, snapshot=b64encode(snapshot).decode(),
                            **common)
        if not request.board:
            raise Invalid("board: required to start a search (or position, to go on from a StepReply's)")
        givens = validate.board(request.board, "board")
        entries = validate.entries(givens, request.entries)
        return StepSpec(
            board="".join(e if e != "." else g for g, e in zip(givens, entries)),
            strategy=validate.enum(request.strategy, validate.STRATEGIES, "strategy", pb.Strategy),
            tie_break=validate.enum(request.tie_break, validate.TIE_BREAKS, "tie_break", pb.TieBreak),
            seed=request.seed,
            snapshot="",
            **common,
        )
