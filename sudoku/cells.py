"""Cells: independent Redis primaries, each with its own RQ queues and workers.

A deployment outgrows one Redis by adding Redis servers that know nothing
of each other (no queue library here runs on Redis Cluster; README,
"Scale-out"). REDIS_URL lists them, comma-separated, in the same order for
every service instance: a cell is named by its place in that list. A job's
id carries that number in its first two hex digits, so any service
instance sends a Watch, a Cancel or a result wait straight to the job's
cell, with nothing to look up. A worker serves one cell (its REDIS_URL is
one URL).
"""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit

MAX_CELLS = 256  # two hex digits of a job id
SCHEMES = ("redis", "rediss", "unix", "redis+sentinel")


class BadCells(ValueError):
    """A REDIS_URL the service cannot use as written; the message says why."""


def parse(setting: str) -> list[str]:
    """The cells' URLs of REDIS_URL (one URL, or several comma-separated)."""
    urls = [part.strip() for part in setting.split(",")]
    if any(not url for url in urls):
        raise BadCells(f"REDIS_URL={_safe(setting)!r}: an empty cell between commas; list each cell's URL once")
    for url in urls:
        scheme = urlsplit(url).scheme
        if scheme not in SCHEMES:
            raise BadCells(f"REDIS_URL: {_safe(url)!r} is not a Redis URL (it must start with "
                           f"{', '.join(s + '://' for s in SCHEMES)})")
    if len(set(urls)) != len(urls):
        raise BadCells(f"REDIS_URL={_safe(setting)!r}: a cell is listed twice (each would get half its calls "
                       "under two names)")
    if len(urls) > MAX_CELLS:
        raise BadCells(f"REDIS_URL: {len(urls)} cells; at most {MAX_CELLS}")
    return urls


def one(setting: str, who: str) -> str:
    """The one cell a worker serves: BadCells when REDIS_URL lists several."""
    urls = parse(setting)
    if len(urls) > 1:
        raise BadCells(f"{who} serves one cell, and REDIS_URL lists {len(urls)}; start one {who} per cell, "
                       "each with its cell's URL")
    return urls[0]


def new_job_id(cell: int) -> str:
    """A job id (32 lowercase hex digits, as ever) whose first two name its cell."""
    return f"{cell:02x}{uuid.uuid4().hex[2:]}"


def cell_of(job_id: str, cells: int) -> int | None:
    """The cell a job id names, None when this deployment has no such cell.
    With one cell every id is its own: ids made before cells existed too."""
    if cells == 1:
        return 0
    cell = int(job_id[:2], 16)
    return cell if cell < cells else None


def _safe(text: str) -> str:
    """The setting without passwords, for messages."""
    out = []
    for url in text.split(","):
        password = urlsplit(url.strip()).password if "://" in url else None
        out.append(url.replace(password, "***") if password else url)
    return ",".join(out)
