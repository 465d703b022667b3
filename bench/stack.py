"""Starting `sudoku-server` for a benchmark, exactly as a user would."""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.stack import free_port, installed_script  # noqa: E402


@contextmanager
def sudoku_server(workers: int = 2, env: dict[str, str] | None = None, **settings):
    """Runs sudoku-server (embedded Redis, unless `env` has a REDIS_URL;
    no HTTP port and no metrics endpoint) and yields its address."""
    exe = installed_script("sudoku-server")
    port = free_port()
    args = [exe, "--listen", f"127.0.0.1:{port}", "--workers", str(workers), "--metrics-port", "0",
            "--http-listen", ""]
    for name, value in settings.items():
        args += ["--" + name.replace("_", "-"), str(value)]
    env = {**{k: v for k, v in os.environ.items() if k != "REDIS_URL"}, **(env or {})}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env)
    try:
        banner = proc.stdout.readline()
        if not re.search(r"listening on", banner):
            raise SystemExit(f"sudoku-server did not start: {banner!r}")
        time.sleep(1.0)  # let the workers connect before timing anything
        yield f"127.0.0.1:{port}", proc
    finally:
        proc.terminate()
        proc.wait(30)
        proc.stdout.close()


def puzzles(name: str, folder: Path | None = None) -> list[str]:
    folder = folder or Path(os.environ.get("SUDOKU_PUZZLES", ROOT / "tests" / "data"))
    return (folder / f"{name}.txt").read_text().split()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def sampled_sets(parser: argparse.ArgumentParser, sample: int) -> argparse.Namespace:
    """Parses the arguments of a benchmark over samples of puzzle sets: the
    folder (default $SUDOKU_PUZZLES, else tests/data), --sample, --seed."""
    parser.add_argument("data", nargs="?", type=Path,
                        default=Path(os.environ.get("SUDOKU_PUZZLES") or ROOT / "tests" / "data"))
    parser.add_argument("--sample", type=int, default=sample, help=f"puzzles per set at most (default {sample})")
    parser.add_argument("--seed", type=int, default=14)
    return parser.parse_args()


def sample(path: Path, n: int, seed: int) -> list[str]:
    """At most n puzzles of the set at path, the same for the same seed."""
    puzzles = path.read_text().split()
    return puzzles if len(puzzles) <= n else random.Random(seed).sample(puzzles, n)
