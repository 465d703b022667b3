"""Cells: independent Redis primaries, each with its own RQ queues and workers.

A deployment outgrows one Redis by adding Redis servers that know nothing
of each other (no queue library here runs on Redis Cluster;
docs/architecture.md, "Cells: past one Redis"). REDIS_URL lists them,
comma-separated, in the same order for every service instance: a cell is
named by its place in that list. A job's
id carries that number in its first two hex digits, so any service
instance sends a Watch, a Cancel or a result wait straight to the job's
cell, with nothing to look up. A worker serves one cell (its REDIS_URL is
one URL). A cell whose primary must survive its loss is a Sentinel group:
its URL is `redis+sentinel://host:port,host:port,.../service_name/db`
(sudoku/connections.py), whose own commas list the group's sentinels.
"""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit

from sudoku import connections

MAX_CELLS = 256  # two hex digits of a job id
SCHEMES = ("redis", "rediss", "unix", "redis+sentinel")


class BadCells(ValueError):
    """A REDIS_URL the service cannot use as written; the message says why."""


def parse(setting: str) -> list[str]:
    """The cells' URLs of REDIS_URL (one URL, or several comma-separated)."""
    urls: list[str] = []
    for part in (part.strip() for part in setting.split(",")):
        if part and "://" not in part and urls and _open_sentinel(urls[-1]):
            urls[-1] += "," + part  # the next sentinel of the group: host:port[/service_name/db]
        else:
            urls.append(part)
    if any(not url for url in urls):
        raise BadCells(f"REDIS_URL={_safe(setting)!r}: an empty cell between commas; list each cell's URL once")
    for url in urls:
        scheme = urlsplit(url).scheme
        if scheme not in SCHEMES:
            raise BadCells(f"REDIS_URL: {_safe(url)!r} is not a Redis URL (it must start with "
                           f"{', '.join(s + '://' for s in SCHEMES)})")
    for url in urls:
        try:
            connections.sentinel_url(url)
        except ValueError as exc:
            raise BadCells(f"REDIS_URL: {_safe(url)!r}: {exc}") from None
    if len(set(urls)) != len(urls):
        raise BadCells(f"REDIS_URL={_safe(setting)!r}: a cell is listed twice (each would get half its calls "
                       "under two names)")
    if len(urls) > MAX_CELLS:
        raise BadCells(f"REDIS_URL: {len(urls)} cells; at most {MAX_CELLS}")
    return urls


def _open_sentinel(url: str) -> bool:
    """A sentinel URL whose hosts may go on: no service name after them yet."""
    scheme, _, rest = url.partition("://")
    return scheme == connections.SENTINEL_SCHEME and "/" not in rest


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
