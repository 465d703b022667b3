"""Step round trips at step 1 and at step 600,000 of the hardest naive search.

    python bench/step.py [--calls 400] [--depth 600000]

The first puzzle of tests/data/norvig_hardest.txt, naive: 671,215 steps.
Through sudoku-server (2 workers and 1 interactive, embedded Redis), one
call at a time over gRPC, each a single step from the position the call
before it returned (a learner tapping Step): one chain from step 1, one
from step `--depth`, their calls interleaved so that the machine's drift
falls on both alike. Then, for scale, the call a design without positions
would make for each step there: the search from its start, skipping to
the step (StepRequest.skip). Last, the engine alone: resuming a snapshot
and taking one step, at both depths.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # the repository, for `bench` and `service`

import grpc  # noqa: E402

from bench.stack import percentile, puzzles, sudoku_server  # noqa: E402
from sudoku import engine  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc  # noqa: E402


def timed(call, request) -> tuple[float, pb.StepReply]:
    start = time.perf_counter_ns()
    reply = call(request, timeout=30)
    return (time.perf_counter_ns() - start) / 1e6, reply


def line(name: str, times: list[float], unit: str = "ms") -> str:
    return f"{name:54} {statistics.median(times):9.3f} {percentile(times, 0.99):9.3f} {unit}"


def chains(stub, board: str, depth: int, calls: int) -> tuple[list[float], list[float]]:
    """Round trips of `calls` single steps from step 1 and from step `depth`, interleaved."""
    shallow = stub.Step(pb.StepRequest(board=board, strategy=pb.STRATEGY_NAIVE), timeout=30)
    deep = stub.Step(pb.StepRequest(board=board, strategy=pb.STRATEGY_NAIVE, skip=depth - 1), timeout=30)
    assert (shallow.last_step, deep.last_step) == (1, depth), (shallow.last_step, deep.last_step)
    at_1, at_depth = [], []
    for _ in range(calls):
        took, shallow = timed(stub.Step, pb.StepRequest(position=shallow.position))
        at_1.append(took)
        took, deep = timed(stub.Step, pb.StepRequest(position=deep.position))
        at_depth.append(took)
    assert deep.last_step == depth + calls and not deep.outcome
    return at_1, at_depth


def replays(stub, board: str, depth: int, calls: int) -> list[float]:
    """Each step there as the search from its start, skipped to it."""
    times = []
    for i in range(calls):
        took, reply = timed(stub.Step, pb.StepRequest(board=board, strategy=pb.STRATEGY_NAIVE, skip=depth + i))
        assert reply.last_step == depth + i + 1
        times.append(took)
    return times


def engine_alone(board: str, depth: int, repeat: int) -> tuple[list[float], list[float]]:
    """µs to resume a snapshot and take a step, at step 1 and at `depth`."""
    snapshots = []
    for at in (1, depth):
        stepper = engine.Stepper(board, strategy="naive")
        stepper.skip(at)
        snapshots.append(stepper.export())
    results: list[list[float]] = [[], []]
    for _ in range(repeat):
        for i, snapshot in enumerate(snapshots):
            start = time.perf_counter_ns()
            engine.Stepper.resume(snapshot).run(1)
            results[i].append((time.perf_counter_ns() - start) / 1e3)
    return results[0], results[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=400, help="single steps timed at each depth (default: 400)")
    parser.add_argument("--depth", type=int, default=600_000, help="the deep point (default: 600,000)")
    args = parser.parse_args()
    board = puzzles("norvig_hardest", Path(__file__).resolve().parent.parent / "tests" / "data")[0]
    with sudoku_server(workers=2) as (address, _), grpc.insecure_channel(address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        chains(stub, board, args.depth, 50)  # warm up: connections, workers, the position key
        at_1, at_depth = chains(stub, board, args.depth, args.calls)
        skipped = replays(stub, board, args.depth, min(args.calls, 100))
    print(f"Step round trips, naive, the hardest puzzle (671,215 steps), one call at a time, {args.calls} calls")
    print(f"{'':54} {'p50':>9} {'p99':>9}")
    print(line("one step from the position, at step 1", at_1))
    print(line(f"one step from the position, at step {args.depth:,}", at_depth))
    print(line(f"the search from step 0, skipped to {args.depth:,}", skipped))
    resumed_1, resumed_deep = engine_alone(board, args.depth, 2_000)
    print(line("engine: resume the snapshot + 1 step, at step 1", resumed_1, "µs"))
    print(line(f"engine: resume the snapshot + 1 step, at step {args.depth:,}", resumed_deep, "µs"))


if __name__ == "__main__":
    main()
