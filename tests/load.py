"""Calls under load, for the tests that take Redis away beneath the
service (tests/test_external_redis.py, tests/test_sentinel.py): what each
attempt ended with and when, and every answer checked against the engine."""

from __future__ import annotations

import collections
import dataclasses
import random
import threading
import time

import grpc

from sudoku import engine
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.puzzles import puzzles, relabelled

# A refused caller backs off a little before its next call, as the client library does.
BACK_OFF_S = 0.05
RETRY_S = 0.1


@dataclasses.dataclass(frozen=True)
class Attempt:
    kind: str  # "hint", "count" or "solve"
    code: str  # "OK" or the status code's name
    ended: float  # time.monotonic()
    took: float


class CallLoad:
    """`threads` threads, each on its own connection, sending calls on fresh
    17-clue boards (relabelled, so the cache never answers) until finish().
    `mix` weights the kinds of call: Hint, CountSolutions and an unwatched
    Solve. A failed call is sent again until it succeeds (`retry`, what the
    client library does with UNAVAILABLE), or left for the next board."""

    def __init__(self, address: str, threads: int = 4, mix: dict[str, int] | None = None, retry: bool = False,
                 timeout: float = 15):
        self.address, self.retry, self.timeout = address, retry, timeout
        self.mix = mix or {"count": 1}
        self.attempts: list[Attempt] = []
        self.wrong: list[str] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(threads)]
        for thread in self.threads:
            thread.start()

    def _run(self, seed: int) -> None:
        rng = random.Random(seed)
        boards = puzzles("17_clue")
        kinds, weights = zip(*self.mix.items())
        with grpc.insecure_channel(self.address, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            stub = pb_grpc.SudokuStub(channel)
            while not self.stop.is_set():
                board, kind = relabelled(rng.choice(boards), rng), rng.choices(kinds, weights)[0]
                code = self._attempt(stub, kind, board)
                # Once stopping, only UNAVAILABLE is retried: the promise is that a retry of it succeeds.
                while self.retry and code != "OK" and not (self.stop.is_set() and code != "UNAVAILABLE"):
                    time.sleep(RETRY_S)
                    code = self._attempt(stub, kind, board)
                if code != "OK" and not self.retry:
                    time.sleep(BACK_OFF_S)

    def _attempt(self, stub, kind: str, board: str) -> str:
        started = time.monotonic()
        try:
            self._call(stub, kind, board)
            code = "OK"
        except grpc.RpcError as exc:
            code = exc.code().name
        ended = time.monotonic()
        self.attempts.append(Attempt(kind, code, ended, ended - started))
        return code

    def _call(self, stub, kind: str, board: str) -> None:
        if kind == "count":
            reply = stub.CountSolutions(pb.CountRequest(board=board, include_solution=True), timeout=self.timeout)
            right = reply.count == 1 and reply.solution == engine.solve(board)
        elif kind == "hint":
            right = stub.Hint(pb.HintRequest(givens=board), timeout=self.timeout).kind == pb.HintReply.KIND_NEXT_MOVE
        else:
            last = list(stub.Solve(pb.SolveRequest(board=board, view=pb.VIEW_FINAL), timeout=self.timeout))[-1]
            right = last.outcome == pb.SOLVED and last.solution == engine.solve(board)
        if not right:
            self.wrong.append(f"{kind} {board}")

    @property
    def answered(self) -> int:
        return sum(a.code == "OK" for a in self.attempts)

    def ok_at(self, kind: str | None = None) -> list[float]:
        """When each call of `kind` (any, if None) that succeeded ended."""
        return [a.ended for a in self.attempts if a.code == "OK" and kind in (None, a.kind)]

    def failures(self) -> list[str]:
        return [a.code for a in self.attempts if a.code != "OK"]

    def finish(self) -> dict[str, int]:
        """Stops the threads (a call none ends within a minute fails the
        test) and counts the attempts by how they ended."""
        self.stop.set()
        for thread in self.threads:
            thread.join(60)
        assert not any(thread.is_alive() for thread in self.threads), "a call hung"
        return dict(collections.Counter(a.code for a in self.attempts))

    def slowest(self) -> float:
        return max(a.took for a in self.attempts)
