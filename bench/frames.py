"""Frames for phones: sizes, fan-out and memory. Run by hand, prints figures.

    python bench/frames.py                  # everything below
    python bench/frames.py --phones 1000    # only the phones: 1,000 watchers at 30 fps,
                                            # one frame a message, then in runs

  - phones: N watchers of a finished job (10 s at 30 fps, 300 frames each)
    asking for 30 fps, spread over 4 client processes (so the client is not
    the bottleneck) and starting within a second: how many were served and
    refused, the lateness of each frame against its schedule (frame k is
    due k / fps after the first frame that watcher received; a frame that
    arrives early counts 0), frames/s delivered, and the service's memory
    per open stream. With runs (the default here) each message carries
    the frames of 250 ms (Pacing.runs);

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

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import threading
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


def cpu_s(pid: int) -> float:
    """CPU seconds a process has used (Linux; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


async def phones_client(address: str, job_id: str, watchers: int, fps: int, runs: bool) -> dict:
    """One client process's watchers: their lateness (ms) and failures."""
    channels = channels_for(address, watchers)
    stubs = [pb_grpc.SudokuStub(c) for c in channels]
    lateness: list[float] = []
    first_ms: list[float] = []
    failed: dict[str, int] = {}
    frames = 0

    async def watch(i: int) -> None:
        nonlocal frames
        await asyncio.sleep(random.random())  # phones arrive within a second
        request = pb.WatchRequest(job_id=job_id)
        if runs:
            request.runs = True
        first_at, first_seq = None, 0
        opened = time.perf_counter()
        try:
            async for message in stubs[i // 100].Watch(request):
                now = time.perf_counter()
                for frame in [message, *getattr(message, "next_frames", ())]:
                    if first_at is None:
                        first_at, first_seq = now, frame.seq
                        first_ms.append((now - opened) * 1000)
                    lateness.append(max(0.0, now - first_at - (frame.seq - first_seq) / fps) * 1000)
                    frames += 1
        except grpc.aio.AioRpcError as exc:
            failed[exc.code().name] = failed.get(exc.code().name, 0) + 1

    await asyncio.gather(*(watch(i) for i in range(watchers)))
    for channel in channels:
        await channel.close()
    return {"lateness_ms": [round(x, 1) for x in lateness], "first_ms": first_ms, "failed": failed, "frames": frames}


def phones(address: str, pid: int, watchers: int, runs: bool, processes: int = 4, fps: int = 30) -> None:
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        request = pb.SolveRequest(board=HARD, view=pb.VIEW_SEARCH, pacing=pb.Pacing(duration_ms=10_000, fps=fps))
        job_id = list(stub.Solve(request))[0].job_id  # paced: this takes the 10 s itself
    idle = rss_mb(pid)
    peak = [idle]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.25):
            peak[0] = max(peak[0], rss_mb(pid))

    sampler = threading.Thread(target=sample)
    sampler.start()
    share = [watchers // processes + (i < watchers % processes) for i in range(processes)]
    t0, cpu0 = time.perf_counter(), cpu_s(pid)
    procs = [
        subprocess.Popen([sys.executable, __file__, "--client", address, job_id, str(n), str(fps), str(int(runs))],
                         stdout=subprocess.PIPE, text=True)
        for n in share if n
    ]
    results = [json.loads(p.communicate()[0]) for p in procs]
    elapsed, cpu = time.perf_counter() - t0, cpu_s(pid) - cpu0
    done.set()
    sampler.join()
    lateness = sorted(x for r in results for x in r["lateness_ms"])
    failed: dict[str, int] = {}
    for r in results:
        for code, n in r["failed"].items():
            failed[code] = failed.get(code, 0) + n
    frames = sum(r["frames"] for r in results)
    refused = sum(failed.values())
    print(f"{watchers} phones at {fps} fps, {'runs of 250 ms' if runs else 'one frame a message'}, "
          f"{len(procs)} client processes: {watchers - refused} served, refused/failed: {failed or 0}; "
          f"{frames:,} frames in {elapsed:.1f} s ({frames / elapsed:,.0f} frames/s); "
          f"service CPU {cpu:.1f} s ({cpu / elapsed:.0%} of a core)")
    if lateness:
        pick = lambda q: lateness[min(len(lateness) - 1, int(q * len(lateness)))]  # noqa: E731
        print(f"  frame lateness against schedule: p50 {pick(0.5):.0f} ms, p90 {pick(0.9):.0f} ms, "
              f"p99 {pick(0.99):.0f} ms, max {lateness[-1]:.0f} ms")
        first = sorted(x for r in results for x in r["first_ms"])
        print(f"  first frame after the call: p50 {first[len(first) // 2]:.0f} ms, "
              f"p99 {first[min(len(first) - 1, int(0.99 * len(first)))]:.0f} ms")
    served = watchers - refused
    if served:
        print(f"  service RSS: {idle:.0f} MB idle, {peak[0]:.0f} MB at most while streaming "
              f"({(peak[0] - idle) * 1024 / served:.0f} KB per open stream)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=0, help="only the phones figure, with this many watchers")
    parser.add_argument("--client", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        address, job_id, n, fps, runs = args.client
        print(json.dumps(asyncio.run(phones_client(address, job_id, int(n), int(fps), runs == "1"))))
        return
    if args.phones:
        for runs in (False, True):  # before runs, and with them
            with sudoku_server(workers=2) as (address, proc):
                phones(address, proc.pid, args.phones, runs=runs)
        return
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
        phones(address, proc.pid, 1000, runs=False)
        phones(address, proc.pid, 1000, runs=True)


if __name__ == "__main__":
    main()
