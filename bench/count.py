"""Uniqueness counting at generator scale: run by hand, prints figures.

    python bench/count.py [--set 17_clue] [--n 500000] [--chunk 16384] [--runs 5]

Puzzles per second for count(limit=2):
  - the engine alone, one process (one core), the baseline: a count() call
    per puzzle, and one count_many() call for them all (the faster is the
    baseline);
  - CountMany through the service with 2 workers (embedded Redis), one
    client streaming requests of --chunk puzzles, each run right after an
    engine run, so the ratio compares runs on the same machine state;
  - CountBatch (one puzzle a message, cache off) on the first 20,000;
and the ratio per worker (the target is >= 80% of the engine's single-core
rate per worker). Also the hint round trip p50/p99.

On a machine shared with other work the wall-time ratio measures the
neighbours too, so the CPU time of each process of the stack (client,
service, workers, Redis; Linux /proc) is summed over the CountMany runs:
µs of CPU a board for each, and the per-worker ratio those allow when the
two cores are the stack's alone (the engine's µs a board over their sum).

Puzzles come from tests/data, or from SUDOKU_PUZZLES when it points at the
full sets; they are repeated to reach --n, with their digits relabelled so
that each is a distinct puzzle (and the result cache could not help anyway,
it is off).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

# The repository instead of bench/ itself: bench/service.py must not shadow
# the `service` package when run as `python bench/service.py`.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402

from bench.stack import percentile, puzzles, sudoku_server  # noqa: E402
from client import Client  # noqa: E402
from client.requests import MANY_CHUNK  # noqa: E402
from sudoku import engine  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc  # noqa: E402
from tests.puzzles import relabelled  # noqa: E402


def engine_rate(boards: list[str]) -> float:
    t0 = time.perf_counter()
    for board in boards:
        engine.count(board, limit=2)
    return len(boards) / (time.perf_counter() - t0)


def engine_many_rate(boards: list[str]) -> tuple[float, float]:
    """Boards per second, and µs of CPU a board."""
    joined = "".join(boards)
    t0, c0 = time.perf_counter(), time.process_time()
    engine.count_many(joined, limit=2)
    return len(boards) / (time.perf_counter() - t0), (time.process_time() - c0) / len(boards) * 1e6


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (0 where /proc is missing)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every process below pid, from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            try:
                command = (Path("/proc") / str(child) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            found.append((child, command))
            todo.append(child)
    return found


def stack_cpu(server_pid: int) -> dict[str, float]:
    """CPU seconds so far of the client (this process), service, workers and Redis."""
    cpu = {"client": time.process_time(), "service": cpu_seconds(server_pid), "workers": 0.0, "Redis": 0.0}
    for pid, command in descendants(server_pid):
        cpu["Redis" if "redis-server" in command else "workers"] += cpu_seconds(pid)
    return cpu


def many_rate(client: Client, boards: list[str], chunk: int) -> float:
    """Through the client library, as a generator would call it."""
    t0 = time.perf_counter()
    counted = 0
    for part in client.count_many(boards, chunk=chunk):
        assert not part.errors
        counted += len(part.counts)
    assert counted == len(boards)
    return counted / (time.perf_counter() - t0)


def service_rate(stub, boards: list[str]) -> float:
    t0 = time.perf_counter()
    replies = sum(1 for _ in stub.CountBatch(pb.CountRequest(board=b) for b in boards))
    assert replies == len(boards)
    return replies / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="17_clue")
    parser.add_argument("--n", type=int, default=500_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=MANY_CHUNK, help="CountMany: puzzles per request")
    parser.add_argument("--batch-size", type=int, default=None, help="SUDOKU_BATCH_SIZE for the service")
    parser.add_argument("--job-size", type=int, default=None, help="SUDOKU_MANY_JOB_SIZE for the service")
    args = parser.parse_args()
    rng = random.Random(1)
    source = puzzles(args.set)
    boards = [relabelled(source[i % len(source)], rng) for i in range(args.n)]
    settings = {"cache_ttl_s": 0}
    if args.batch_size:
        settings["batch_size"] = args.batch_size
    if args.job_size:
        settings["many_job_size"] = args.job_size
    if args.chunk > 20_000:
        settings["max_chunk"] = args.chunk
    with sudoku_server(workers=2, **settings) as (address, server):
        with grpc.insecure_channel(address) as channel, Client(address) as client:
            stub = pb_grpc.SudokuStub(channel)
            many_rate(client, boards[:20_000], args.chunk)  # warm up
            # Engine and service runs alternate, so that both see the same
            # machine (a 2-core VM's speed drifts by 20% from minute to minute).
            one, base, many, engine_cpu = [], [], [], []
            used = dict.fromkeys(stack_cpu(server.pid), 0.0)
            for _ in range(args.runs):
                one.append(engine_rate(boards[:20_000]))
                rate, cpu_us = engine_many_rate(boards)
                base.append(rate)
                engine_cpu.append(cpu_us)
                before = stack_cpu(server.pid)
                many.append(many_rate(client, boards, args.chunk))
                for part, seconds in stack_cpu(server.pid).items():
                    used[part] += seconds - before[part]
            service_rate(stub, boards[:2000])
            rates = [service_rate(stub, boards[:20_000]) for _ in range(3)]
            hints = []
            for board in source[:300]:
                t0 = time.perf_counter()
                stub.Hint(pb.HintRequest(givens=relabelled(board, rng)))
                hints.append(time.perf_counter() - t0)
    ratios = sorted(m / 2 / b for m, b in zip(many, base))
    batch = statistics.median(rates)

    def runs(values: list[float]) -> str:
        return f"{statistics.median(values):10.0f} puzzles/s (runs: {', '.join(f'{v:.0f}' for v in values)})"

    print(f"set {args.set}, {args.n} puzzles, count(limit=2), {args.runs} alternating runs")
    print(f"engine alone, count() each:     {runs(one)}")
    print(f"engine alone, count_many():     {runs(base)}, the baseline")
    print(f"CountMany, 2 workers:           {runs(many)}, {args.chunk} a request")
    print(f"  per worker vs engine alone:   {statistics.median(ratios):10.1%}   (each run against the baseline run"
          f" before it: {', '.join(f'{r:.0%}' for r in ratios)}; target >= 80%)")
    per_board = {part: seconds / (args.runs * args.n) * 1e6 for part, seconds in used.items()}
    engine_us = statistics.median(engine_cpu)
    if per_board["workers"]:
        print(f"  CPU a board (µs):             {', '.join(f'{k} {v:.2f}' for k, v in per_board.items())}"
              f" (engine alone {engine_us:.2f}, CPU)")
        print(f"  per worker the CPU allows:    {engine_us / sum(per_board.values()):10.1%}   (two cores for the"
              f" stack alone: engine µs / all processes' µs a board)")
    print(f"CountBatch, 2 workers:          {runs(rates)}, one puzzle a message")
    print(f"  per worker vs engine alone:   {batch / 2 / statistics.median(base):10.1%}")
    p50, p99 = percentile(hints, .5) * 1000, percentile(hints, .99) * 1000
    print(f"hint round trip p50/p99:        {p50:.2f} / {p99:.2f} ms")


if __name__ == "__main__":
    main()
