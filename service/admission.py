"""How many frames a second this service process has promised its streams.

One process delivers a few thousand frames a second (bench/frames.py); a
thousand phones each asking for 30 would need 30,000. Past its limit a
grpc.aio server falls behind on taking new calls, and gRPC cancels those it
has not taken within 30 s: a client would wait half a minute for nothing.
So each stream reserves its frame rate when it opens, and a stream that
would take the total past SUDOKU_MAX_FRAME_RATE is refused at once with
RESOURCE_EXHAUSTED: retry later, or on another instance.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

# An unpaced stream goes as fast as its client reads (one alone takes ~3,000
# frames/s on loopback); it is counted as this many, so that by default at
# most 50 run at once beside the paced ones.
UNPACED_RATE = 100.0


class Saturated(Exception):
    """The process has promised all the frames a second it can deliver."""


class FrameBudget:
    def __init__(self, limit: float):
        self.limit = limit
        self.promised = 0.0
        self.streams = 0

    @contextmanager
    def reserve(self, rate: float) -> Iterator[None]:
        if self.promised + rate > self.limit:
            raise Saturated(
                f"this instance is streaming all the frames it can ({self.streams} streams, "
                f"{self.promised:.0f} of {self.limit:.0f} frames/s promised); retry later or elsewhere"
            )
        self.promised += rate
        self.streams += 1
        try:
            yield
        finally:
            self.promised -= rate
            self.streams -= 1
