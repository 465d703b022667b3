"""Generate: new puzzles of a level, streamed in order (worker/generate.py).

The request is checked first (INVALID_ARGUMENT naming the field). Puzzle i
is made from its own seed (worker.generate.puzzle_seed), so the same seed
gives the same puzzles however they are split: into RQ jobs of
`generate_job_size` seeds, at most `batch_inflight` out at once, spread over
the workers; puzzles leave in index order as their jobs end.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

from service import validate
from service.config import Settings
from service.queueing import Jobs
from service.validate import Invalid
from sudoku import grid, keys
from sudoku.specs import GenerateSpec
from sudoku.v1 import sudoku_pb2 as pb
from worker import engine
from worker.generate import puzzle_seed

SYMMETRIES = {pb.SYMMETRY_UNSPECIFIED: "none", pb.SYMMETRY_NONE: "none",
              pb.SYMMETRY_ROTATIONAL: "rotational", pb.SYMMETRY_MIRROR: "mirror"}
# A job's time limit per puzzle: an extreme one takes tens of milliseconds,
# rarely more than a second.
GENERATE_MS_PER_PUZZLE = 10_000
# Guesses the service's check that kept givens have a solution may take.
GIVENS_CHECK_GUESSES = 10_000


class NoPuzzle(Exception):
    """A job found no puzzle of the level (the kept givens may forbid it)."""


def generate_options(request: pb.GenerateRequest, settings: Settings) -> tuple[int, int, int, str, str]:
    """(level, count, seed, symmetry, givens), checked."""
    if request.level == pb.LEVEL_UNSPECIFIED or request.level not in pb.Level.values():
        # values() lists a number once per name (the bare names are aliases),
        # Name() gives the first: each level once, by the name JSON uses.
        names = ", ".join(dict.fromkeys(pb.Level.Name(v) for v in pb.Level.values() if v))
        raise Invalid(f"level: required, one of {names}")
    if request.count < 0:
        raise Invalid(f"count: must not be negative, got {request.count}")
    count = request.count or 1
    if count > settings.max_generate:
        raise Invalid(f"count: at most {settings.max_generate} puzzles per call, got {count}")
    symmetry = validate.enum(request.symmetry, SYMMETRIES, "symmetry", pb.Symmetry)
    givens = validate.board(request.givens, "givens") if request.givens else grid.EMPTY
    stepper = engine.Stepper(givens)
    if stepper.conflicts:
        names = ", ".join(grid.cell_name(c) for c in stepper.conflicts)
        raise Invalid(f"givens: they break the rules at {names}")
    found, complete = engine.count(givens, limit=1, max_steps=GIVENS_CHECK_GUESSES)
    if complete and not found:
        raise Invalid("givens: they have no solution")
    seed = request.seed if request.HasField("seed") else secrets.randbits(64)
    return request.level, count, seed, symmetry, givens


class Generator:
    def __init__(self, settings: Settings, jobs: Jobs):
        self.settings = settings
        self.jobs = jobs

    async def puzzles(self, request: pb.GenerateRequest) -> AsyncIterator[pb.GeneratedPuzzle]:
        level, count, seed, symmetry, givens = generate_options(request, self.settings)
        size = self.settings.generate_job_size
        starts = list(range(0, count, size))
        pending: list[asyncio.Task] = []
        index = 0
        try:
            for start in starts:
                seeds = [puzzle_seed(seed, i) for i in range(start, min(count, start + size))]
                spec = GenerateSpec(level=level, seeds=seeds, symmetry=symmetry, givens=givens)
                pending.append(asyncio.ensure_future(self._job(spec)))
                if len(pending) < self.settings.batch_inflight and start != starts[-1]:
                    continue
                async for made in self._drain(pending, full=start == starts[-1]):
                    yield pb.GeneratedPuzzle(index=index, **made)
                    index += 1
        finally:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    async def _drain(self, pending: list[asyncio.Task], full: bool) -> AsyncIterator[dict]:
        """The oldest job's puzzles (all jobs' when `full`), in order."""
        while pending:
            result = await pending[0]
            pending.pop(0)
            if "error" in result:
                raise NoPuzzle(result["error"])
            for made in result["puzzles"]:
                yield made
            if not full:
                return

    async def _job(self, spec: GenerateSpec) -> dict:
        return await self.jobs.run("worker.jobs.generate", spec, keys.QUEUE_BATCH,
                                   len(spec.seeds) * GENERATE_MS_PER_PUZZLE)
