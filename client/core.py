"""What `Client` and `AsyncClient` share: the channel, and the calls that
return the same thing in both.

The two clients are thin drivers over this core and over the modules it
uses: client/requests.py builds every request, client/resume.py resumes a
frame stream, client/batches.py a batch call. A driver supplies how a frame
stream is read (FrameStream, AsyncFrameStream) and how a solve is run to
its end (blocking, or awaited). Calls whose results differ in kind between
the two (a reply, or an awaitable of it; an iterator, or an async one) are
declared in each driver with the same parameters, so that each is typed for
what it returns; their bodies are a line that builds the request here or in
client/requests.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from client.connection import UNARY_TIMEOUT, Retry, call_metadata, credentials, open_channel, resolve_address
from client.connection import channel_options as make_channel_options
from client.requests import pacing, solve_request
from client.resume import ResumePoint
from sudoku.v1 import sudoku_pb2_grpc

Frames = TypeVar("Frames")  # the driver's frame stream
Solved = TypeVar("Solved")  # what its solve() returns: a SolveResult, or an awaitable of one

DEFAULT: Any = object()  # "the client's default timeout"


class ClientCore(Generic[Frames, Solved]):
    """A connection to the Sudoku service; see Client and AsyncClient.

    `timeout` is the default deadline in seconds of unary calls and of
    solve() (by default the service config's, 60 s); streams (watch,
    count_batch, ...) have none unless given.
    """

    _grpc: Any  # the driver's gRPC module: grpc, or grpc.aio

    def __init__(
        self,
        address: str | None = None,
        *,
        ca_file: str | None = None,
        token: str | None = None,
        timeout: float | None = UNARY_TIMEOUT,
        retry: Retry = Retry(),
        load_balancing: str | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
    ):
        self.address = resolve_address(address)
        self.timeout = timeout
        self.retry = retry
        self.metadata = call_metadata(token)
        options = make_channel_options(load_balancing, channel_options)
        self._channel = open_channel(self._grpc, self.address, credentials(ca_file), options)
        self._stub = sudoku_pb2_grpc.SudokuStub(self._channel)

    def _timeout(self, timeout: float | None) -> float | None:
        return self.timeout if timeout is DEFAULT else timeout

    def solve(
        self,
        board: str,
        *,
        entries: str = "",
        strategy: str | None = None,
        tie_break: str | None = None,
        seed: int = 0,
        max_steps: int = 0,
        time_limit_ms: int = 0,
        request_id: str | None = None,
        timeout: float | None = DEFAULT,
    ) -> Solved:
        """Solves `board` (81 cells, '.' or '0' blank) and returns the outcome
        (a SolveResult; AsyncClient's is awaited)."""
        request = solve_request(
            board, entries=entries, strategy_name=strategy, tie_break_name=tie_break, seed=seed,
            max_steps=max_steps, time_limit_ms=time_limit_ms, request_id=request_id,
        )
        return self._to_end(self._frames(ResumePoint(request), self._timeout(timeout)))

    def watch(
        self,
        board: str,
        *,
        duration: float | None = None,
        fps: int = 0,
        steps_per_frame: int = 0,
        unpaced: bool = False,
        entries: str = "",
        strategy: str | None = None,
        tie_break: str | None = None,
        seed: int = 0,
        max_steps: int = 0,
        time_limit_ms: int = 0,
        cancel_on_disconnect: bool = False,
        request_id: str | None = None,
        runs: bool = False,
        timeout: float | None = None,
    ) -> Frames:
        """Solves `board` showing the search: an iterator of pb.Frame (an
        async one for AsyncClient).

        Paced by `duration` seconds (default: the server's) at `fps`, or
        `steps_per_frame`; see pb.Pacing. With `runs` the service sends
        the frames a run at a time and the stream hands them out at `fps`
        itself (far fewer messages). The stream resumes by itself after a
        dropped connection.
        """
        request = solve_request(
            board, entries=entries, strategy_name=strategy, tie_break_name=tie_break, seed=seed,
            max_steps=max_steps, time_limit_ms=time_limit_ms, request_id=request_id,
            pacing=pacing(duration, fps, steps_per_frame, unpaced, runs), cancel_on_disconnect=cancel_on_disconnect,
        )
        return self._frames(ResumePoint(request), timeout)

    def attach(self, job_id: str, after_seq: int = 0, *, unpaced: bool = False, runs: bool = False,
               timeout: float | None = None) -> Frames:
        """The frames of an existing job after `after_seq` (the Watch RPC);
        the first carries the job's info and a board, to draw from."""
        point = ResumePoint(job_id=job_id, after_seq=after_seq, unpaced=unpaced, runs=runs)
        return self._frames(point, timeout)

    def _frames(self, point: ResumePoint, timeout: float | None) -> Frames:
        """The driver's frame stream from `point`."""
        raise NotImplementedError

    def _to_end(self, stream: Frames) -> Solved:
        """Reads `stream` to its last frame and returns its SolveResult (the driver's way)."""
        raise NotImplementedError
