"""Frames for phones: sizes, fan-out and memory. Run by hand, prints figures.

    python bench/frames.py

  - bytes per frame (median, max) and bytes per step of an unpaced naive
    solve of a hard puzzle (norvig_hardest #1: 671,215 steps), cut by
    duration (10 s at 30 fps) and one step per frame (capped by max frames);
  - frames per second the service delivers to 1, 100 and 1,000 concurrent
    watchers of a finished job, unpaced and at 30 fps (one client process,
    which is itself a bottleneck: Python gRPC costs ~0.2 ms a message);
  - the service process's resident memory idle and with 1,000 open paced
    streams (Linux /proc; elsewhere `ps`).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

# The repository instead of bench/ itself: bench/service.py must not shadow
# the `service` package when run as `python bench/service.py`.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402

from bench.stack import puzzles, sudoku_server  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc  # noqa: E402

HARD = puzzles("norvig_hardest")[0]


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except FileNotFoundError:
        pass
    return int(subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True).stdout) / 1024


def sizes(stub, pacing: pb.Pacing) -> str:
    request = pb.SolveRequest(board=HARD, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH, pacing=pacing)
    frames = list(stub.Solve(request))
    byte_sizes = [f.ByteSize() for f in frames]
    steps = frames[-1].counters.steps
    return (
        f"{len(frames)} frames, {steps} steps: bytes/frame median {statistics.median(byte_sizes):.0f}, "
        f"max {max(byte_sizes)}; bytes/step {sum(byte_sizes) / steps:.3f}"
    )


def channels_for(address: str, streams: int) -> list[grpc.aio.Channel]:
    """One connection per 100 streams (the server's default per-connection
    limit); a local subchannel pool keeps gRPC from sharing one connection."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    return [grpc.aio.insecure_channel(address, options=options) for _ in range((streams + 99) // 100)]


async def fan_out(address: str, job_id: str, watchers: int, unpaced: bool = True) -> tuple[int, float, dict]:
    channels = channels_for(address, watchers)
    stubs = [pb_grpc.SudokuStub(c) for c in channels]
    failed: dict[str, int] = {}

    async def watch(i: int) -> int:
        request = pb.WatchRequest(job_id=job_id, unpaced=unpaced)
        frames = 0
        try:
            async for _ in stubs[i // 100].Watch(request):
                frames += 1
        except grpc.aio.AioRpcError as exc:
            failed[exc.code().name] = failed.get(exc.code().name, 0) + 1
        return frames

    t0 = time.perf_counter()
    counts = await asyncio.gather(*(watch(i) for i in range(watchers)))
    elapsed = time.perf_counter() - t0
    for channel in channels:
        await channel.close()
    return sum(counts), elapsed, failed


async def open_streams(address: str, job_id: str, n: int, pid: int) -> float:
    channels = channels_for(address, n)
    calls = [pb_grpc.SudokuStub(channels[i // 100]).Watch(pb.WatchRequest(job_id=job_id)) for i in range(n)]
    await asyncio.gather(*(call.read() for call in calls))  # every stream is open and has a frame
    await asyncio.sleep(2)  # paced: they stay open, reading slowly
    held = rss_mb(pid)
    for call in calls:
        call.cancel()
    for channel in channels:
        await channel.close()
    return held


def main() -> None:
    with sudoku_server(workers=2) as (address, proc):
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.SudokuStub(channel)
            print("duration 10 s x 30 fps:", sizes(stub, pb.Pacing(duration_ms=10_000, fps=30, unpaced=True)))
            print("one step per frame:    ", sizes(stub, pb.Pacing(steps_per_frame=1, unpaced=True)))
            print("64 steps per frame:    ", sizes(stub, pb.Pacing(steps_per_frame=64, unpaced=True)))
            # Slow streams for the memory figure: one frame a second, so a
            # thousand of them fit the frame-rate budget (SUDOKU_MAX_FRAME_RATE).
            paced = pb.SolveRequest(board=HARD, view=pb.VIEW_SEARCH, pacing=pb.Pacing(duration_ms=120_000, fps=1))
            job_id = list(stub.Solve(pb.SolveRequest(board=HARD, view=pb.VIEW_SEARCH,
                                                      pacing=pb.Pacing(duration_ms=10_000, unpaced=True))))[0].job_id
            paced_id = next(stub.Solve(paced)).job_id
            ten_s = next(stub.Solve(pb.SolveRequest(board=HARD, view=pb.VIEW_SEARCH,
                                                     pacing=pb.Pacing(duration_ms=10_000, fps=30))))
        for watchers in (1, 100, 1000):
            frames, seconds, failed = asyncio.run(fan_out(address, job_id, watchers))
            print(f"{watchers:5d} watchers, unpaced: {frames} frames in {seconds:.2f} s = {frames / seconds:,.0f} "
                  f"frames/s; calls failed: {failed or 0}")
        # A thousand phones each asking for 30 frames a second (10 s, 300 frames
        # each): unpaced, the first streams would hog the loop and later calls
        # wait (gRPC cancels calls not picked up within 30 s).
        for watchers in (100, 1000):
            frames, seconds, failed = asyncio.run(fan_out(address, ten_s.job_id, watchers, unpaced=False))
            print(f"{watchers:5d} watchers at 30 fps: {frames} frames in {seconds:.2f} s = "
                  f"{frames / seconds:,.0f} frames/s (asked: {watchers * 30:,}/s); calls failed: {failed or 0}")
        idle = rss_mb(proc.pid)
        held = asyncio.run(open_streams(address, paced_id, 1000, proc.pid))
        print(f"service RSS: {idle:.0f} MB idle, {held:.0f} MB with 1,000 open paced streams "
              f"({(held - idle) * 1024 / 1000:.0f} KB a stream)")


if __name__ == "__main__":
    main()
