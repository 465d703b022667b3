"""The seed of each puzzle of a Generate request, which the service hands out
and a worker's generator uses: the request's seed itself for the first, so
a puzzle's own seed, asked for with count 1, makes it again."""

from __future__ import annotations

MASK64 = (1 << 64) - 1


def puzzle_seed(seed: int, index: int) -> int:
    """The seed of puzzle `index` (from 0) of a request with `seed`: splitmix64's
    finaliser of seed + index for index > 0, so neighbours are unrelated."""
    if index == 0:
        return seed
    z = (seed + index * 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)
