"""A load run with faults injected for real. Run by hand, prints figures.

    python bench/load.py --minutes 10 --clients 16
    python bench/load.py --minutes 10 --redis external     # Debian's Redis 7 (REDIS_URL)

sudoku-server (2 workers and the interactive one) takes a steady mix of
calls from `--clients` concurrent clients using the client library (which
retries UNAVAILABLE, submits a lost watched solve again, and keeps one
request_id per solve): unwatched solves of hard puzzles with the naive
strategy (long enough to be running when a fault comes), watched solves
(each stream drawn and checked frame by frame), counts, hints, and small
CountMany calls. Meanwhile, on their own schedules:

- a worker process is SIGKILLed (`--kill-every`);
- a worker process is stopped (SIGSTOP) for `--stop-for` seconds, longer
  than its heartbeat's TTL, so its job moves to another worker, then
  continued (`--stop-every`);
- Redis is SIGKILLed (`--redis-kill-every`): the embedded one is started
  again by sudoku-server; an external one (`--redis external`) by this
  script after `--redis-down` seconds, empty, on the same port;
- Redis is stopped (SIGSTOP) for `--redis-stop-for` seconds (`--redis-stop-every`);
- a hostile client (tests/attacker.py, processes of its own) runs the
  attacks of the hostile-input issue's items 1-4 in turn, each for
  `--hostile-for` seconds: a gzipped JSON Hint that inflates to 16 MB, a
  gzipped protobuf that breaks at its end over the gRPC port, three
  connections of CountSolutions at the largest limit on relabelled boards,
  150 half-sent HTTP bodies, and 50 unread Watch streams on one HTTP/2
  connection with a window of 0 (the connection attacks from 127.0.0.3).

At the end: calls sent, completed, failed by status code (each must be one
that docs/delivery.md documents for the fault: UNAVAILABLE after the client's retries,
NOT_FOUND for a lost job, RESOURCE_EXHAUSTED), lost (sent and never
answered within the call's deadline: must be 0), wrong or contradicting
results (a wrong answer, a stream whose frames do not draw consistently or
do not end on its solution: must be 0), and latency by kind of call (the
honest Hint's p99 must stay under a second), and what the attacks got.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The repository instead of bench/ itself: bench/service.py must not shadow
# the `service` package when run as `python bench/service.py`.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.attacks import attack  # noqa: E402
from bench.stack import free_port, percentile, puzzles, sudoku_server  # noqa: E402
from client import AsyncClient, Retry, SudokuError  # noqa: E402
from client.frames import Drawing  # noqa: E402
from sudoku.grid import is_solution_of  # noqa: E402
from sudoku.v1 import sudoku_pb2 as pb  # noqa: E402
from tests.stack import SYSTEM_REDIS, SystemRedis  # noqa: E402

CALL_TIMEOUT = 60.0
# What docs/delivery.md documents a client may see from a fault, after the
# client library's own retries.
DOCUMENTED = {"UNAVAILABLE", "NOT_FOUND", "RESOURCE_EXHAUSTED"}
# A client's patience with a service whose Redis restarts: about 15 s of retries.
RETRY = Retry(attempts=10, base=0.2, cap=2.0)


def children(server_pid: int, marker: str) -> list[int]:
    out = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,stat=,args="], capture_output=True, text=True).stdout
    pids = []
    for line in out.splitlines():
        pid, ppid, stat, args = line.split(None, 3)
        if int(ppid) == server_pid and marker in args and not stat.startswith("Z"):
            pids.append(int(pid))
    return pids


class Tally:
    def __init__(self) -> None:
        self.sent = collections.Counter()
        self.done = collections.Counter()
        self.failed: collections.Counter[str] = collections.Counter()
        self.wrong: list[str] = []
        self.latency: dict[str, list[float]] = collections.defaultdict(list)
        self.open = 0
        self.resubmitted = 0


async def watch(client: AsyncClient, board: str, tally: Tally) -> bool:
    stream = client.watch(board, duration=1.0, fps=30, timeout=CALL_TIMEOUT)
    drawing = Drawing()
    async for frame in stream:
        drawing.apply(frame)  # raises on a frame that does not draw where it claims
    tally.resubmitted += stream.resubmissions
    result = stream.result()
    return result.solved and is_solution_of(result.solution, board) and drawing.text == result.solution


async def one_call(client: AsyncClient, rng: random.Random, boards: dict, tally: Tally) -> None:
    kind = rng.choices(["solve", "watch", "count", "hint", "many"], weights=[2, 2, 4, 3, 1])[0]
    tally.sent[kind] += 1
    tally.open += 1
    t0 = time.perf_counter()
    try:
        if kind == "solve":
            board = rng.choice(boards["hard"])
            result = await client.solve(board, strategy="naive", max_steps=20_000_000, timeout=CALL_TIMEOUT)
            ok = result.outcome in (pb.SOLVED, pb.GAVE_UP) and (not result.solved or is_solution_of(result.solution, board))
        elif kind == "watch":
            ok = await watch(client, rng.choice(boards["easy"]), tally)
        elif kind == "count":
            reply = await client.count(rng.choice(boards["easy"]), timeout=CALL_TIMEOUT)
            ok = reply.verdict == pb.CountReply.UNIQUE
        elif kind == "hint":
            reply = await client.hint(rng.choice(boards["easy"]), timeout=CALL_TIMEOUT)
            ok = reply.kind in (pb.HintReply.NEXT_MOVE, pb.HintReply.ELIMINATION)
        else:
            chosen = rng.sample(boards["easy"], 40)
            counted = [item async for chunk in client.count_many(chosen, chunk=20, timeout=CALL_TIMEOUT)
                       for item in chunk.items()]
            ok = [item.verdict_name for item in counted] == ["UNIQUE"] * len(chosen)
        tally.done[kind] += 1
        if not ok:
            tally.wrong.append(kind)
        tally.latency[kind].append(time.perf_counter() - t0)
    except SudokuError as exc:
        tally.failed[exc.code.name] += 1
    except Exception as exc:  # noqa: BLE001 - a stream that does not draw is a contradicting result
        tally.wrong.append(f"{kind}: {type(exc).__name__}: {exc}")
    finally:
        tally.open -= 1


async def client_loop(address: str, seed: int, boards: dict, tally: Tally, until: float) -> None:
    rng = random.Random(seed)
    async with AsyncClient(address, retry=RETRY) as client:
        while time.monotonic() < until:
            await one_call(client, rng, boards, tally)


async def every(period: float, until: float, action) -> int:
    """Runs `action` every `period` seconds (0: never) until `until`; returns how often it ran."""
    if period <= 0:
        return 0
    count = 0
    while time.monotonic() + period < until:
        await asyncio.sleep(period)
        if await action():
            count += 1
    return count


class Faults:
    def __init__(self, server_pid: int, args, external: SystemRedis | None):
        self.server_pid = server_pid
        self.args = args
        self.external = external
        self.rng = random.Random(0)

    def _worker(self) -> int | None:
        pids = children(self.server_pid, "worker.run.process")
        return self.rng.choice(pids) if pids else None

    async def kill_worker(self) -> bool:
        pid = self._worker()
        return bool(pid) and _signal(pid, signal.SIGKILL)

    async def stop_worker(self) -> bool:
        pid = self._worker()
        if not pid or not _signal(pid, signal.SIGSTOP):
            return False
        await asyncio.sleep(self.args.stop_for)
        _signal(pid, signal.SIGCONT)  # it may have been killed meanwhile
        return True

    def _redis(self) -> int | None:
        if self.external is not None:
            return self.external.proc.pid
        pids = children(self.server_pid, "redis-server")
        return pids[0] if pids else None

    async def kill_redis(self) -> bool:
        pid = self._redis()
        if not pid or not _signal(pid, signal.SIGKILL):
            return False
        if self.external is not None:
            self.external.proc.wait()
            await asyncio.sleep(self.args.redis_down)
            await asyncio.to_thread(self.external.start)
        return True

    async def stop_redis(self) -> bool:
        pid = self._redis()
        if not pid or not _signal(pid, signal.SIGSTOP):
            return False
        await asyncio.sleep(self.args.redis_stop_for)
        _signal(pid, signal.SIGCONT)
        return True


def _signal(pid: int, sig: int) -> bool:
    """Sends `sig`; False when the process is gone already."""
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False


# Items 1-4 of the hostile-input issue, in turn: (attack, processes of it).
HOSTILE = [("json-bomb", 1), ("proto-bomb-grpc", 1), ("expensive-count", 3), ("half-bodies", 1),
           ("unread-streams", 1)]


async def hostile(address: str, http_address: str, seconds: float, until: float) -> dict[str, collections.Counter]:
    """Runs the attacks of HOSTILE in turn (bench/attacks.py attack), each
    for `seconds`, until `until`; returns what each got back, counted."""
    got: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    turn = 0
    while seconds > 0 and time.monotonic() + seconds < until:
        name, copies = HOSTILE[turn % len(HOSTILE)]
        turn += 1
        got[name]["rounds"] += 1
        got[name].update(await asyncio.to_thread(attack, name, copies, address, http_address, seconds))
    return got


async def run(address: str, http_address: str, faults: Faults, args) -> tuple[Tally, dict[str, int], dict]:
    boards = {"hard": puzzles("forum_hardest_1106")[:30], "easy": puzzles("qqwing_easy")}
    tally = Tally()
    until = time.monotonic() + args.minutes * 60
    clients = [client_loop(address, i, boards, tally, until) for i in range(args.clients)]
    counts = await asyncio.gather(
        every(args.kill_every, until, faults.kill_worker),
        every(args.stop_every, until, faults.stop_worker),
        every(args.redis_kill_every, until, faults.kill_redis),
        every(args.redis_stop_every, until, faults.stop_redis),
        hostile(address, http_address, args.hostile_for, until),
        *clients,
    )
    names = ("workers SIGKILLed", "workers stopped", "Redis SIGKILLed", "Redis stopped")
    return tally, dict(zip(names, counts[:4])), counts[4]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--redis", choices=["embedded", "external"], default="embedded")
    parser.add_argument("--kill-every", type=float, default=30, help="seconds between worker SIGKILLs (0: none)")
    parser.add_argument("--stop-every", type=float, default=45, help="seconds between worker SIGSTOPs (0: none)")
    parser.add_argument("--stop-for", type=float, default=8)
    parser.add_argument("--redis-kill-every", type=float, default=120, help="seconds between Redis SIGKILLs (0: none)")
    parser.add_argument("--redis-down", type=float, default=2, help="external Redis: seconds it stays down")
    parser.add_argument("--redis-stop-every", type=float, default=90, help="seconds between Redis SIGSTOPs (0: none)")
    parser.add_argument("--redis-stop-for", type=float, default=3)
    parser.add_argument("--hostile-for", type=float, default=20,
                        help="seconds each hostile attack runs, in turn (0: no hostile client)")
    args = parser.parse_args()
    external = None
    env = {}
    if args.redis == "external":
        if not os.path.exists(SYSTEM_REDIS):
            raise SystemExit(f"{SYSTEM_REDIS} is missing: apt-get install redis-server")
        external = SystemRedis(tempfile.mkdtemp(prefix="load-redis-")).start()
        env["REDIS_URL"] = external.url
    try:
        http_address = f"127.0.0.1:{free_port()}"
        with sudoku_server(workers=2, env=env, http_listen=http_address) as (address, proc):
            tally, faults, attacks = asyncio.run(run(address, http_address, Faults(proc.pid, args, external), args))
    finally:
        if external is not None:
            external.kill()
    # Lost: never answered, neither a result nor an error the client can act
    # on (a deadline that passed is a request nobody answered).
    lost = tally.failed.get("DEADLINE_EXCEEDED", 0) + tally.open
    undocumented = {code: n for code, n in tally.failed.items() if code not in DOCUMENTED | {"DEADLINE_EXCEEDED"}}
    print(f"{args.minutes:g} min, {args.clients} clients, {args.redis} Redis; faults: "
          + ", ".join(f"{n} {name}" for name, n in faults.items()))
    print(f"sent {sum(tally.sent.values())} ({dict(tally.sent)}), completed {sum(tally.done.values())}, "
          f"failed {dict(tally.failed) or 0}, undocumented errors {undocumented or 0}, lost {lost}, "
          f"wrong or contradicting {len(tally.wrong)}, watched solves submitted again {tally.resubmitted}")
    for wrong in tally.wrong[:10]:
        print(f"  wrong: {wrong}")
    for kind, latency in sorted(tally.latency.items()):
        print(f"{kind}: {len(latency)} answered, p50 {percentile(latency, .5) * 1000:.1f} ms, "
              f"p99 {percentile(latency, .99) * 1000:.1f} ms")
    for name, outcomes in attacks.items():
        print(f"attack {name}: {dict(outcomes)}")


if __name__ == "__main__":
    main()
