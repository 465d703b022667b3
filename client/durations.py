"""Durations as people type them: 10s, 500ms, 2m, 1m30s, 1.5s (a bare number is seconds)."""

from __future__ import annotations

import re

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")


def parse_duration(text: str) -> float:
    """Seconds in `text`; ValueError naming the text when it is not a duration."""
    text = text.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        seconds = float(text)
    else:
        parts = _PART.findall(text)
        if not parts or "".join(n + u for n, u in parts) != text:
            raise ValueError(f"{text!r} is not a duration (e.g. 10s, 500ms, 2m, 1m30s)")
        seconds = sum(float(n) * _UNITS[u] for n, u in parts)
    if seconds <= 0:
        raise ValueError(f"{text!r}: a duration must be more than zero")
    return seconds
