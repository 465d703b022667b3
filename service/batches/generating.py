"""Generate: new puzzles of a level, streamed in order (worker/generate.py).

The request is checked first (INVALID_ARGUMENT naming the field). Puzzle i
is made from its own seed (sudoku.seeds.puzzle_seed), so the same seed
gives the same puzzles however they are split: into jobs of
`generate_job_size` seeds through the call's fan-out (service/batches/fanout.py:
jobs in flight, the call's worker time, its caller's share, the stop when it
ends early); each job answers with its GeneratedPuzzle messages, which go to
the client as they are, in index order. A run its job's worker time cut
short ends the call RESOURCE_EXHAUSTED after the puzzles made.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Iterator

import grpc

from service.batches.callbudget import BudgetSpent
from service.batches.fanout import FanOut, Part, Unit, failed
from service.jobs.shares import Shares
from service.rpc import validate
from service.rpc.validate import Invalid
from sudoku import engine, grid, replies
from sudoku.config import Settings
from sudoku.errors import CallError
from sudoku.seeds import puzzle_seed
from sudoku.v1 import sudoku_pb2 as pb

SYMMETRIES = {pb.SYMMETRY_UNSPECIFIED: "none", pb.SYMMETRY_NONE: "none",
              pb.SYMMETRY_ROTATIONAL: "rotational", pb.SYMMETRY_MIRROR: "mirror"}
# A job's time limit per puzzle: an extreme one takes tens of milliseconds,
# rarely more than a second.
GENERATE_MS_PER_PUZZLE = 10_000
# Guesses the service's check that kept givens have a solution may take.
GIVENS_CHECK_GUESSES = 10_000


class NoPuzzle(CallError):
    """A job found no puzzle of the level (the kept givens may forbid it)."""

    code = grpc.StatusCode.FAILED_PRECONDITION


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
    def __init__(self, settings: Settings, cells, shares: Shares):
        self.settings = settings
        self.cells = cells
        self.shares = shares

    async def puzzles(self, request: pb.GenerateRequest, peer: str | None) -> AsyncIterator:
        options = generate_options(request, self.settings)  # before any job: a bad request queues nothing
        fan = FanOut(self.settings, self.cells, self.shares, peer)
        async with contextlib.aclosing(fan.replies(self._units(*options))) as puzzles:
            async for puzzle in puzzles:
                yield puzzle

    async def _units(self, level: int, count: int, seed: int, symmetry: str, givens: str) -> AsyncIterator[Unit]:
        size = self.settings.generate_job_size
        for start in range(0, count, size):
            seeds = [puzzle_seed(seed, i) for i in range(start, min(count, start + size))]
            spec = {"level": level, "seeds": seeds, "symmetry": symmetry, "givens": givens, "first": start}
            yield Unit([Part("generate", spec, len(seeds) * GENERATE_MS_PER_PUZZLE)], _puzzles)


def _puzzles(answers) -> Iterator[bytes]:
    """A run's puzzles, each GeneratedPuzzle's bytes; the call's end where the run ended early."""
    (answer,) = answers
    if answer.code is not None:
        raise NoPuzzle(answer.message) if answer.code == "FAILED_PRECONDITION" else failed(answer)
    yield from replies.undelimited(answer.data)
    if answer.cut:
        raise BudgetSpent("this call used its share of worker time (SUDOKU_MAX_CALL_WORK_S) before its last "
                          "puzzles; ask for the rest in another call")
