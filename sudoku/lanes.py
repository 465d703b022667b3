"""The lanes a job goes by, and the bounds that make a call cheap.

Every call's worst-case cost to a worker is known from its limits before it
is queued, and decides its lane: an RQ queue of its own (sudoku/keys.py).

- **cheap** (keys.QUEUE_INTERACTIVE): jobs bounded to a few milliseconds of
  a worker. The workers kept for interactive calls take only these, so a
  Hint never waits behind an expensive call. A Hint, a count, a grade and
  an explanation run here first, within the cheap bounds: the human
  solver's levels below forcing chains (CHEAP_LEVEL), a count's first
  CHEAP_GUESSES guesses. Almost every answer comes within them; one that
  does not is said to be harder, and its call goes on in the heavy lane
  with the whole ladder and its own limits (an escalation). A solve is
  cheap when its step cap is at most CHEAP_SOLVE_STEPS; an unwatched one
  by MRV is tried within them first, as a count is, and one they do not
  end goes on as a heavy job of its own.
- **heavy** (keys.QUEUE_HEAVY): the rest of the unary calls and solves,
  bounded by their limits (time_limit_ms, max_steps); one caller may have
  at most SUDOKU_CALLER_HEAVY_CALLS of them queued or running at once
  (service/jobs/shares.py).
- **batch** (keys.QUEUE_BATCH): the jobs of batch and streaming calls
  (CountBatch, CountMany, GradeMany, Generate), each within its call's
  worker-time budget and its caller's share of jobs in flight.

General workers take the three in this order; the interactive ones the
first only. `python bench/attacks.py` measures a Hint's latency while each
kind of expensive call floods the others.
"""

from __future__ import annotations

from sudoku import keys

CHEAP, HEAVY, BATCH = "cheap", "heavy", "batch"
QUEUES = {CHEAP: keys.QUEUE_INTERACTIVE, HEAVY: keys.QUEUE_HEAVY, BATCH: keys.QUEUE_BATCH}

# The human solver's levels a cheap call may use: all but forcing chains
# and nets (level 5), whose searches take tens of milliseconds a step where
# the others take microseconds (the whole path to a placement of a forum
# hardest puzzle took up to half a second).
CHEAP_LEVEL = 4
# A count's guesses in the cheap lane: a count to 2 of any puzzle of the
# shared sets needs far fewer, and 20,000 take about 15 ms at most.
CHEAP_GUESSES = 20_000
# A solve with at most this step cap is cheap: about 15 ms of the stepper
# (naive search runs some 60,000 steps a millisecond).
CHEAP_SOLVE_STEPS = 1_000_000
