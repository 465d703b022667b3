"""When each frame of a paced stream is due, and when to skip ahead.

The first frame a stream sends goes at once and starts its clock; frame k
after it is due k / fps seconds later. The schedule, not the moment of
sending, sets the next due time, so a stream that keeps running late
accumulates its lag; past MAX_LAG it skips ahead to the next keyframe (as
a video player drops frames, instead of replaying stale frames late) and
its clock starts again there. That also keeps a service with more watchers
than it can feed at their frame rate serving all of them, each at a lower
rate, instead of starving some.

Runs (Pacing.runs): one message carries the frames due in the next
`run_s` seconds and is sent `lead` seconds before its first frame is due;
the client plays them on its own clock, so a late wake-up of the service
costs the client nothing as long as it is shorter than the lead.
"""

from __future__ import annotations

MAX_LAG = 1.0
# How early a run is sent before its first frame is due.
RUN_LEAD_S = 0.1


class Schedule:
    def __init__(self, fps: float, run_s: float = 0.0):
        self.interval = 1.0 / fps if fps > 0 else 0.0
        self.run_s = run_s if self.interval else 0.0
        self.lead = min(RUN_LEAD_S, self.run_s / 2)
        self.next_due: float | None = None

    @property
    def paced(self) -> bool:
        return self.interval > 0

    def behind(self, now: float) -> bool:
        """True when the stream is so late that it should skip to a keyframe."""
        return self.next_due is not None and now - self.next_due > MAX_LAG

    def wait(self, now: float) -> float:
        """Seconds until the next message should go (0: now)."""
        if self.next_due is None:
            return 0.0
        return max(0.0, self.next_due - self.lead - now)

    def start(self, now: float) -> float:
        """The next frame goes now; returns its due time. (Re)starts the
        clock on the first frame and after skipping ahead."""
        if self.next_due is None or self.behind(now):
            self.next_due = now
        return self.next_due

    def fits_run(self, first_due: float) -> bool:
        """Whether the next frame belongs to the run that began at `first_due`."""
        return self.next_due is not None and self.next_due < first_due + self.run_s - 1e-9

    def sent(self) -> None:
        """One frame went (or was put in the message being built)."""
        if self.next_due is not None:
            self.next_due += self.interval
