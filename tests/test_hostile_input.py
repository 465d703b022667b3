"""Hostile input through the real gRPC channel: every bad request gets the
right status code and a message naming the field (and the cell), nothing is
queued for it, and the service keeps answering correct requests (checked
after every test by `still_answering`).

Bytes as cells: a proto string is UTF-8, so a conforming client sends a
byte 0x80-0xFF only as the code point U+0080-U+00FF (two bytes on the wire);
`test_every_byte_value_as_a_cell` sends all 256 that way. Bytes that are not
UTF-8 at all cannot go through a string field with a conforming client, so
`test_invalid_utf8_on_the_wire` writes the messages by hand and sends them
through a channel with no serializer.
"""

from __future__ import annotations

import math
import string
import sys
import unicodedata
import uuid
from dataclasses import dataclass
from typing import Any, Callable

import grpc
import pytest

from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.stack import make_settings

GOOD = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
BLANK = "." * 81
FIRST_BLANK = GOOD.index(".")  # r1c3: a cell where an entry or a new given is legal
BIG = 16_000  # a board this long still fits in a small request (service.rpc.decoding.SMALL_REQUEST_BYTES)
INT64_MAX, INT64_MIN, INT32_MAX, UINT64_MAX = 2**63 - 1, -(2**63), 2**31 - 1, 2**64 - 1
CELL_RULE = "is not 1-9, '.' or '0'"
SETTINGS = make_settings("")  # the session's service's
MAX_COUNT_LIMIT = SETTINGS.max_count_limit
TIMEOUT = 30
OK = grpc.StatusCode.OK
INVALID = grpc.StatusCode.INVALID_ARGUMENT


def cell_name(cell: int) -> str:
    return f"r{cell // 9 + 1}c{cell % 9 + 1}"


def with_char(base: str, cell: int, char: str) -> str:
    return base[:cell] + char + base[cell + 1 :]


# ---- Calling any RPC and getting (code, message) back ----


def outcome(stub, rpc: str, request) -> tuple[grpc.StatusCode, str]:
    """The call's status and message; for a CountBatch of one request, that
    item's own error (a bad item does not end the batch)."""
    try:
        if rpc == "CountBatch":
            (reply,) = stub.CountBatch(iter([request]), timeout=TIMEOUT)
            if reply.HasField("error"):
                return _code(reply.error.code), reply.error.message
            return OK, ""
        if rpc == "Solve":
            call = stub.Solve(request, timeout=TIMEOUT)
            next(call)  # the first frame means the job was queued: enough
            call.cancel()
            return OK, ""
        if rpc == "Watch":
            list(stub.Watch(request, timeout=TIMEOUT))
            return OK, ""
        getattr(stub, rpc)(request, timeout=TIMEOUT)
        return OK, ""
    except grpc.RpcError as err:
        return err.code(), err.details()


def _code(number: int) -> grpc.StatusCode:
    return next(code for code in grpc.StatusCode if code.value[0] == number)


@dataclass(frozen=True)
class BoardField:
    """One of the six places a board goes: an RPC, its field, and the other fields."""

    rpc: str
    field: str
    base: str  # a legal value of this field, into which bad cells are put

    def request(self, text: str):
        if self.rpc == "Solve":
            return pb.SolveRequest(**{"board": GOOD, self.field: text})
        if self.rpc == "Hint":
            return pb.HintRequest(**{"givens": GOOD, self.field: text})
        return pb.CountRequest(board=text)

    def __str__(self) -> str:
        return f"{self.rpc}.{self.field}" if self.rpc != "CountBatch" else "CountBatch.item"


BOARD_FIELDS = [
    BoardField("Solve", "board", GOOD),
    BoardField("Solve", "entries", BLANK),
    BoardField("Hint", "givens", GOOD),
    BoardField("Hint", "entries", BLANK),
    BoardField("CountSolutions", "board", GOOD),
    BoardField("CountBatch", "board", GOOD),
]


@pytest.fixture(scope="module")
def stub(service):
    """One channel for the module's few hundred calls (the shared fixture opens one per test)."""
    channel, stub = service.stub()
    yield stub
    channel.close()


@pytest.fixture(autouse=True)
def still_answering(stub):
    """After every case, a correct request still gets its answer."""
    yield
    reply = stub.CountSolutions(pb.CountRequest(board=GOOD), timeout=TIMEOUT)
    assert reply.verdict == pb.CountReply.UNIQUE


def assert_names(code, details, want_code, field, *words):
    assert code == want_code, (code, details)
    assert details.startswith(f"{field}:"), details
    for word in words:
        assert word in details, details


# ---- Every wrong length of every board field ----


@pytest.mark.parametrize("length", [0, 80, 82, BIG], ids=["0", "80", "82", "16000"])
@pytest.mark.parametrize("where", BOARD_FIELDS, ids=str)
def test_wrong_lengths(stub, where, length):
    text = (where.base * math.ceil(length / 81))[:length]
    code, details = outcome(stub, where.rpc, where.request(text))
    if length == 0 and where.field == "entries":  # empty entries mean "none"
        assert code == OK, details
        return
    assert_names(code, details, INVALID, where.field, f"expected 81 cells, got {length}")
    assert len(details) < 200  # a long board is not echoed back


# ---- Every byte value as a cell ----

CELL_CHARS = set("123456789.0")


@pytest.mark.parametrize("byte", range(256), ids=lambda b: f"{b:#04x}")
def test_every_byte_value_as_a_cell(stub, byte):
    """Everything but 1-9, '.', '0' and ASCII whitespace is INVALID_ARGUMENT
    naming the cell, in each of the six board fields."""
    char = chr(byte)
    for where in BOARD_FIELDS:
        if char in string.whitespace:  # ignored anywhere: inserted, the board stays whole
            text, want = where.base[:40] + char + where.base[40:], None
        elif char in CELL_CHARS:
            text, want = with_char(where.base, FIRST_BLANK, char), None
        else:
            cell = byte % 81
            text, want = with_char(where.base, cell, char), f"{where.field}: cell {cell_name(cell)}: {char!r} {CELL_RULE}"
        code, details = outcome(stub, where.rpc, where.request(text))
        if want is None:
            assert code == OK, (where, details)
        else:
            assert (code, details) == (INVALID, want), where


# ---- Unicode that looks like a digit, a blank or a space ----

LOOKALIKES = {
    "arabic-indic 3": "\u0663",
    "extended arabic-indic 3": "\u06f3",
    "devanagari 3": "\u0969",
    "bengali 3": "\u09e9",
    "thai 3": "\u0e53",
    "fullwidth 3": "\uff13",
    "fullwidth 0": "\uff10",
    "fullwidth full stop": "\uff0e",
    "mathematical bold 3 (astral)": "\U0001d7d1",
    "superscript 3": "\u00b3",
    "superscript 4": "\u2074",
    "subscript 3": "\u2083",
    "circled 3": "\u2462",
    "roman numeral 3": "\u2162",
    "cjk 3": "\u4e09",
    "vulgar fraction 1/2": "\u00bd",
    "one dot leader": "\u2024",
    "no-break space": "\u00a0",
    "next line": "\u0085",
    "ideographic space": "\u3000",
    "zero width space": "\u200b",
    "byte order mark": "\ufeff",
    "line separator": "\u2028",
    "information separator (str.isspace)": "\x1f",
    "emoji": "\U0001f600",
}


@pytest.mark.parametrize("char", LOOKALIKES.values(), ids=LOOKALIKES.keys())
def test_unicode_lookalikes_name_the_cell(stub, char):
    cell = 40 + len(char.encode()) % 9  # a few different cells
    for where in BOARD_FIELDS:
        code, details = outcome(stub, where.rpc, where.request(with_char(where.base, cell, char)))
        assert (code, details) == (INVALID, f"{where.field}: cell {cell_name(cell)}: {char!r} {CELL_RULE}"), where


def test_a_combining_mark_after_a_digit_is_a_cell_of_its_own(stub):
    text = GOOD[:9] + "\u0301" + GOOD[9:]  # "6" then COMBINING ACUTE: one glyph, two code points
    code, details = outcome(stub, "CountSolutions", pb.CountRequest(board=text))
    assert (code, details) == (INVALID, f"board: cell r2c1: '\u0301' {CELL_RULE}")


def test_every_unicode_decimal_digit_but_ascii_is_refused(stub):
    """All of Unicode's Nd digits (about 700), one CountBatch item each."""
    digits = [chr(c) for c in range(0x80, sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Nd"]
    assert len(digits) > 600
    requests = [pb.CountRequest(board=with_char(GOOD, i % 81, d)) for i, d in enumerate(digits)]
    replies = list(stub.CountBatch(iter(requests), timeout=TIMEOUT))
    assert [r.index for r in replies] == list(range(len(digits)))
    for i, (digit, reply) in enumerate(zip(digits, replies)):
        assert reply.error.code == INVALID.value[0]
        assert reply.error.message == f"board: cell {cell_name(i % 81)}: {digit!r} {CELL_RULE}"


# ---- Invalid UTF-8, written by hand ----


def raw_call(channel: grpc.Channel, rpc: str, streaming_reply: bool):
    path = f"/sudoku.v1.Sudoku/{rpc}"
    if rpc == "CountBatch":
        return channel.stream_stream(path, request_serializer=None, response_deserializer=pb.CountReply.FromString)
    if streaming_reply:
        return channel.unary_stream(path, request_serializer=None, response_deserializer=None)
    return channel.unary_unary(path, request_serializer=None, response_deserializer=None)


def length_delimited(field_number: int, payload: bytes) -> bytes:
    assert len(payload) < 128
    return bytes([field_number << 3 | 2, len(payload)]) + payload


NOT_UTF8 = {
    "0xff": b"\xff" * 81,
    "lone continuation": b"\x80" + b"." * 80,
    "overlong '.'": b"\xc0\xae" + b"." * 80,
    "encoded surrogate": b"\xed\xa0\x80" + b"." * 80,
    "truncated sequence": b"." * 80 + b"\xe2\x82",
}


@pytest.mark.parametrize("payload", NOT_UTF8.values(), ids=NOT_UTF8.keys())
@pytest.mark.parametrize(
    ("rpc", "number", "field", "streaming"),
    [
        ("Solve", 1, "board", True),
        ("Solve", 2, "entries", True),
        ("Solve", 8, "request_id", True),
        ("Hint", 1, "givens", False),
        ("Hint", 2, "entries", False),
        ("CountSolutions", 1, "board", False),
        ("Watch", 1, "job_id", True),
        ("Cancel", 1, "job_id", False),
    ],
)
def test_invalid_utf8_on_the_wire(service, rpc, number, field, streaming, payload):
    """The parse fails before our code runs; still INVALID_ARGUMENT naming the field."""
    message = length_delimited(1, GOOD.encode()) + length_delimited(number, payload)
    channel = grpc.insecure_channel(service.address)
    with pytest.raises(grpc.RpcError) as err:
        reply = raw_call(channel, rpc, streaming)(message, timeout=TIMEOUT)
        if streaming:
            list(reply)
    channel.close()
    assert_names(err.value.code(), err.value.details(), INVALID, field, "not valid UTF-8")


def test_a_batch_item_that_does_not_parse_gets_its_own_error(service):
    items = [
        length_delimited(1, GOOD.encode()),
        length_delimited(1, b"\xff" * 81),
        b"\x0a\xff\xff",  # a length running past the end of the message
        length_delimited(1, GOOD.encode()),
    ]
    channel = grpc.insecure_channel(service.address)
    replies = list(raw_call(channel, "CountBatch", True)(iter(items), timeout=TIMEOUT))
    channel.close()
    assert [r.index for r in replies] == [0, 1, 2, 3]
    assert replies[0].verdict == replies[3].verdict == pb.CountReply.UNIQUE
    assert replies[1].error.code == replies[2].error.code == INVALID.value[0]
    assert replies[1].error.message.startswith("board: not valid UTF-8")
    assert replies[2].error.message.startswith("request: not a valid sudoku.v1.CountRequest")


def test_a_conforming_client_cannot_send_a_surrogate():
    with pytest.raises(UnicodeEncodeError):
        pb.CountRequest(board="\ud800" * 81).SerializeToString()


# ---- The table: every other field ----


@dataclass(frozen=True)
class Case:
    id: str
    rpc: str
    request: Callable[[], Any]  # built when the test runs: some are large
    field: str
    words: tuple[str, ...] = ()
    code: grpc.StatusCode = INVALID


def solve(**fields) -> Callable[[], pb.SolveRequest]:
    return lambda: pb.SolveRequest(board=GOOD, **fields)


def search(**pacing) -> Callable[[], pb.SolveRequest]:
    return lambda: pb.SolveRequest(board=GOOD, view=pb.VIEW_SEARCH, pacing=pb.Pacing(**pacing))


def count(**fields) -> Callable[[], pb.CountRequest]:
    return lambda: pb.CountRequest(board=GOOD, **fields)


MALFORMED_JOB_IDS = {
    "empty": "",
    "31 hex": "0" * 31,
    "33 hex": "0" * 33,
    "10k long": "0" * 10_000,
    "path": "../../../etc/passwd",
    "path of hex": "0" * 16 + "/" + "0" * 15,
    "upper case": "A" * 32,
    "redis glob": "*",
    "redis key": "sudoku:frames:" + "0" * 32,
    "trailing newline": "0" * 32 + "\n",
    "nul": "0" * 31 + "\x00",
    "arabic-indic zeros": "\u0660" * 32,
    "fullwidth zeros": "\uff10" * 32,
}

MALFORMED_REQUEST_IDS = {
    "129 chars": "a" * 129,
    "space": "retry 1",
    "slash": "a/b",
    "nul": "a\x00",
    "cyrillic": "\u0437\u0430\u043f\u0440\u043e\u0441",
    "fullwidth digits": "\uff11\uff12",
    "emoji": "\U0001f600",
}

CASES = [
    # A given on an entry cell.
    Case("Solve entry on a given r1c1", "Solve", solve(entries="4" + "." * 80), "entries", ("cell r1c1", "given 5, not 4")),
    Case("Solve entry on a given r9c9", "Solve", solve(entries="." * 80 + "8"), "entries", ("cell r9c9", "given 9, not 8")),
    Case("Hint entry on a given r1c1", "Hint", lambda: pb.HintRequest(givens=GOOD, entries="1" + "." * 80),
         "entries", ("cell r1c1", "given")),
    Case("Hint entry on a given r5c6", "Hint", lambda: pb.HintRequest(givens=GOOD, entries=with_char(BLANK, 41, "4")),
         "entries", ("cell r5c6", "given")),
    # NUL bytes.
    Case("NUL board", "Solve", lambda: pb.SolveRequest(board="\x00" * 81), "board", ("cell r1c1", "'\\x00'")),
    Case("NUL after 81 cells", "CountSolutions", lambda: pb.CountRequest(board=GOOD + "\x00"), "board",
         ("cell 82", "'\\x00'")),
    Case("NUL in entries", "Hint", lambda: pb.HintRequest(givens=GOOD, entries=with_char(BLANK, 80, "\x00")),
         "entries", ("cell r9c9",)),
    # Unknown enum values (proto3 enums are open: any int32 arrives).
    *(Case(f"strategy {v}", "Solve", solve(strategy=v), "strategy", (f"unknown value {v}", "STRATEGY_MRV"))
      for v in (3, -1, INT32_MAX)),
    *(Case(f"tie_break {v}", "Solve", solve(tie_break=v), "tie_break", (f"unknown value {v}", "TIE_BREAK_RANDOM"))
      for v in (4, -7, INT32_MAX)),
    *(Case(f"view {v}", "Solve", solve(view=v), "view", (f"unknown value {v}", "VIEW_SEARCH"))
      for v in (3, -1, INT32_MAX)),
    # Negative and huge caps.
    *(Case(f"Solve max_steps {v}", "Solve", solve(max_steps=v), "max_steps", ("negative", str(v)))
      for v in (-1, INT64_MIN)),
    *(Case(f"Solve time_limit_ms {v}", "Solve", solve(time_limit_ms=v), "time_limit_ms", ("negative", str(v)))
      for v in (-1, INT64_MIN)),
    *(Case(f"Count max_steps {v}", "CountSolutions", count(max_steps=v), "max_steps", ("negative",))
      for v in (-1, INT64_MIN)),
    *(Case(f"Count time_limit_ms {v}", "CountSolutions", count(time_limit_ms=v), "time_limit_ms", ("negative",))
      for v in (-1, INT64_MIN)),
    *(Case(f"Count limit {v}", "CountSolutions", count(limit=v), "limit", ("negative",)) for v in (-1, INT64_MIN)),
    *(Case(f"Count limit {v}", "CountSolutions", count(limit=v), "limit", (f"at most {MAX_COUNT_LIMIT}", str(v)))
      for v in (MAX_COUNT_LIMIT + 1, INT64_MAX)),
    Case("CountBatch item limit -1", "CountBatch", count(limit=-1), "limit", ("negative",)),
    Case("CountBatch item max_steps -1", "CountBatch", count(max_steps=-1), "max_steps", ("negative",)),
    Case("CountBatch item limit huge", "CountBatch", count(limit=INT64_MAX), "limit", ("at most",)),
    # Pacing out of range (negative; too big is clamped: see test_too_big_is_clamped_and_reported).
    *(Case(f"fps {v}", "Solve", search(fps=v), "pacing.fps", ("negative",)) for v in (-1, -(2**31))),
    *(Case(f"duration_ms {v}", "Solve", search(duration_ms=v), "pacing.duration_ms", ("negative",))
      for v in (-1, INT64_MIN)),
    *(Case(f"steps_per_frame {v}", "Solve", search(steps_per_frame=v), "pacing.steps_per_frame", ("negative",))
      for v in (-1, INT64_MIN)),
    # Malformed and unknown job ids.
    *(Case(f"{rpc} job_id {name}", rpc, (lambda r=request, j=job_id: r(job_id=j)), "job_id", ("not a job id",))
      for name, job_id in MALFORMED_JOB_IDS.items()
      for rpc, request in (("Watch", pb.WatchRequest), ("Cancel", pb.CancelRequest))),
    *(Case(f"{rpc} job_id unknown", rpc, (lambda r=request: r(job_id="0" * 32)), "job_id", ("no job",),
           grpc.StatusCode.NOT_FOUND)
      for rpc, request in (("Watch", pb.WatchRequest), ("Cancel", pb.CancelRequest))),
    # Malformed request ids.
    *(Case(f"request_id {name}", "Solve", solve(request_id=rid), "request_id", ("1-128 characters",))
      for name, rid in MALFORMED_REQUEST_IDS.items()),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_bad_request(stub, case):
    code, details = outcome(stub, case.rpc, case.request())
    assert_names(code, details, case.code, case.field, *case.words)
    assert len(details) < 300


# ---- Cases that need a job, a second call or another service ----


def first_frame(stub, request: pb.SolveRequest) -> pb.Frame:
    call = stub.Solve(request, timeout=TIMEOUT)
    frame = next(call)
    call.cancel()
    return frame


@pytest.mark.parametrize(
    ("request_", "adjustment"),
    [
        (solve(max_steps=INT64_MAX), f"max_steps clamped from {INT64_MAX} to {SETTINGS.max_steps}"),
        (solve(time_limit_ms=INT64_MAX), f"time_limit_ms clamped from {INT64_MAX} to 10000"),
        (search(fps=INT32_MAX), f"pacing.fps clamped from {INT32_MAX} to 60"),
        (search(duration_ms=INT64_MAX), f"pacing.duration_ms clamped from {INT64_MAX} to 600000"),
        (search(duration_ms=600_000, fps=60), "pacing.duration_ms clamped from 600000 to 333333"),
    ],
    ids=["max_steps", "time_limit_ms", "fps", "duration_ms", "duration_ms x fps over max_frames"],
)
def test_too_big_is_clamped_and_reported(stub, request_, adjustment):
    job = first_frame(stub, request_()).job
    assert any(line.startswith(adjustment) for line in job.adjustments), job.adjustments


def test_huge_steps_per_frame_is_one_frame_of_the_whole_search(stub):
    request = search(steps_per_frame=INT64_MAX, unpaced=True)()
    frames = list(stub.Solve(request, timeout=TIMEOUT))
    assert frames[0].job.pacing.steps_per_frame == INT64_MAX
    assert frames[-1].outcome == pb.SOLVED
    assert len(frames) <= 3


def test_a_huge_count_cap_is_clamped_silently(stub):
    reply = stub.CountSolutions(pb.CountRequest(board=GOOD, max_steps=INT64_MAX, time_limit_ms=INT64_MAX),
                                timeout=TIMEOUT)
    assert reply.verdict == pb.CountReply.UNIQUE


@pytest.mark.parametrize("past", [1, 1000, "max"])
def test_watch_after_the_last_frame(stub, finished_job, past):
    job_id, last = finished_job[0].job_id, finished_job[-1].seq
    after = UINT64_MAX if past == "max" else last + past
    code, details = outcome(stub, "Watch", pb.WatchRequest(job_id=job_id, after_seq=after))
    assert_names(code, details, INVALID, "after_seq", str(after), f"({last})")
    assert list(stub.Watch(pb.WatchRequest(job_id=job_id, after_seq=last), timeout=TIMEOUT)) == []


def test_a_request_id_reused_with_another_board(stub):
    request_id = f"hostile-{uuid.uuid4().hex}"
    first = list(stub.Solve(pb.SolveRequest(board=GOOD, request_id=request_id), timeout=TIMEOUT))
    other = with_char(GOOD, FIRST_BLANK, "1")
    code, details = outcome(stub, "Solve", pb.SolveRequest(board=other, request_id=request_id))
    assert_names(code, details, INVALID, "request_id", "different request")
    again = list(stub.Solve(pb.SolveRequest(board=GOOD, request_id=request_id), timeout=TIMEOUT))
    assert again[0].job_id == first[0].job_id  # the same request still attaches to its job


def test_a_bad_request_does_not_claim_its_request_id(stub):
    request_id = f"hostile-{uuid.uuid4().hex}"
    code, _ = outcome(stub, "Solve", pb.SolveRequest(board="x" * 81, request_id=request_id))
    assert code == INVALID
    frames = list(stub.Solve(pb.SolveRequest(board=GOOD, request_id=request_id), timeout=TIMEOUT))
    assert frames[-1].outcome == pb.SOLVED


def test_a_batch_over_its_limit_is_answered_then_refused(custom_service):
    service = custom_service(max_batch=3)
    channel, stub = service.stub()
    requests = [pb.CountRequest(board=GOOD), pb.CountRequest(board="1"), pb.CountRequest(board=GOOD)] * 3
    replies = []
    with pytest.raises(grpc.RpcError) as err:
        for reply in stub.CountBatch(iter(requests), timeout=10):  # it used to hang until the deadline
            replies.append(reply)
    channel.close()
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "at most 3 requests per CountBatch call" in err.value.details()
    assert [r.index for r in replies] == [0, 1, 2]
    assert replies[1].error.message.startswith("board: expected 81 cells")


@pytest.mark.parametrize(
    ("rpc", "request_"),
    [
        ("Solve", lambda big: pb.SolveRequest(board=big)),
        ("Hint", lambda big: pb.HintRequest(givens=GOOD, entries=big)),
        ("CountSolutions", lambda big: pb.CountRequest(board=big)),
        ("CountBatch", lambda big: pb.CountRequest(board=big)),
        ("Watch", lambda big: pb.WatchRequest(job_id=big)),
    ],
    ids=["Solve", "Hint", "CountSolutions", "CountBatch", "Watch"],
)
def test_a_request_over_its_rpcs_bound_is_refused_unread(stub, rpc, request_):
    """Every RPC but CountMany and GradeMany takes max_request_bytes (a
    CountBatch item: that item's error, the call goes on)."""
    limits = stub.GetLimits(pb.GetLimitsRequest(), timeout=TIMEOUT)
    code, details = outcome(stub, rpc, request_("." * limits.max_request_bytes))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, details
    assert details.startswith("request: ") and f"more than a {rpc} request may hold" in details, details
    assert f"({limits.max_request_bytes} bytes, GetLimits max_request_bytes)" in details


def test_a_batch_message_over_max_message_bytes(custom_service):
    """gRPC itself refuses it, before it is parsed (or inflated further)."""
    service = custom_service(max_message_bytes=64 * 1024)
    channel, stub = service.stub()
    with pytest.raises(grpc.RpcError) as err:
        list(stub.CountMany(iter([pb.CountManyRequest(packed_boards=GOOD.encode() * 1000)]), timeout=TIMEOUT))
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "larger than max" in err.value.details(), err.value.details()
    reply = stub.CountSolutions(pb.CountRequest(board=GOOD), timeout=TIMEOUT)
    assert reply.verdict == pb.CountReply.UNIQUE
    channel.close()


def test_calls_past_max_streams_per_connection_wait_for_a_free_stream(custom_service):
    """HTTP/2 refuses nothing here: the client holds the extra call back
    until a stream ends, within its deadline. Another connection is served."""
    service = custom_service(max_streams_per_connection=2)
    channel, stub = service.stub()
    slow = pb.SolveRequest(board=GOOD, view=pb.VIEW_SEARCH, pacing=pb.Pacing(duration_ms=20_000))
    held = [stub.Solve(slow, timeout=TIMEOUT) for _ in range(2)]
    for call in held:
        next(call)
    with pytest.raises(grpc.RpcError) as err:
        stub.CountSolutions(pb.CountRequest(board=GOOD), timeout=0.5)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    # Channels in one process share connections unless told otherwise.
    other = grpc.insecure_channel(service.address, options=[("grpc.use_local_subchannel_pool", 1)])
    assert pb_grpc.SudokuStub(other).CountSolutions(pb.CountRequest(board=GOOD), timeout=5).verdict == pb.CountReply.UNIQUE
    other.close()
    held[0].cancel()
    assert stub.CountSolutions(pb.CountRequest(board=GOOD), timeout=5).verdict == pb.CountReply.UNIQUE
    held[1].cancel()
    channel.close()


def test_a_full_queue_is_resource_exhausted_at_once(custom_service):
    service = custom_service(queue_bound=0, cache_ttl_s=0)  # no cached answer either
    channel, stub = service.stub()
    for rpc, request in (
        ("Solve", pb.SolveRequest(board=GOOD)),
        ("CountSolutions", pb.CountRequest(board=GOOD)),
        ("Hint", pb.HintRequest(givens=GOOD)),
    ):
        code, details = outcome(stub, rpc, request)
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "queue" in details
    channel.close()


def test_every_rpc_still_answers_correctly(stub):
    frames = list(stub.Solve(pb.SolveRequest(board=GOOD), timeout=TIMEOUT))
    assert frames[-1].outcome == pb.SOLVED
    watched = list(stub.Watch(pb.WatchRequest(job_id=frames[0].job_id), timeout=TIMEOUT))
    assert [f.seq for f in watched] == [f.seq for f in frames]
    assert stub.Cancel(pb.CancelRequest(job_id=frames[0].job_id), timeout=TIMEOUT).cancelled is False
    assert stub.Hint(pb.HintRequest(givens=GOOD), timeout=TIMEOUT).kind == pb.HintReply.NEXT_MOVE
    batch = list(stub.CountBatch(iter([pb.CountRequest(board=GOOD)] * 3), timeout=TIMEOUT))
    assert [r.verdict for r in batch] == [pb.CountReply.UNIQUE] * 3
    assert list(stub.CountBatch(iter([]), timeout=TIMEOUT)) == []
