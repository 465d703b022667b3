"""The API for browsers (service/http/web.py), called through connectrpc's own
client over real HTTP: every RPC, each protocol a browser or a tool may
speak (Connect, gRPC-Web, gRPC) over HTTP/1.1 and HTTP/2, errors with their
messages, the token, the limits, metrics, CORS and the page's files."""

from __future__ import annotations

import http.client
import socket
import ssl
import time

import pytest
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from prometheus_client import REGISTRY

from client.frames import draw
from service.http import web
from service.rpc import security
from service.rpc.decoding import SMALL_REQUEST_BYTES
from sudoku.config import Settings
from sudoku.v1 import sudoku_pb2 as pb
from tests.puzzles import is_completion, puzzles
from tests.stack import METHODS, Api, base_url, post, until

WIKIPEDIA = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
EMPTY = "." * 81
HARD = puzzles("norvig_hardest")[0]


@pytest.fixture
def api(service):
    client = Api(base_url(service))
    yield client
    client.close()


def unpaced(board: str = WIKIPEDIA, **fields) -> pb.SolveRequest:
    return pb.SolveRequest(board=board, view=pb.VIEW_SEARCH, pacing=pb.Pacing(unpaced=True), **fields)


# Every RPC


def test_a_watched_solve_is_drawn_by_the_protos_recipe(api):
    frames = list(api.stream("Solve", unpaced(EMPTY, strategy=pb.STRATEGY_NAIVE)))
    boards = draw(frames)  # raises on a gap, a repeat or a keyframe that disagrees
    assert frames[-1].outcome == pb.SOLVED
    assert boards[-1] == frames[-1].solution and is_completion(EMPTY, boards[-1])
    assert frames[-1].counters.steps == 701  # the step table: naive on the empty board
    assert len(frames) > 2, "the search itself, frame by frame"


def test_watch_continues_after_the_last_frame_seen_and_cancel_stops_a_solve(api):
    # One step a frame of a 671,215-step search: the worker is still writing
    # its 20,000 frames when the Cancel comes.
    paced = pb.SolveRequest(board=HARD, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                            pacing=pb.Pacing(steps_per_frame=1, fps=20))
    stream = api.stream("Solve", paced)
    first = next(stream)
    second = next(stream)
    stream.close()  # the browser went away; the job goes on
    assert api.call("Cancel", pb.CancelRequest(job_id=first.job_id)).cancelled
    rest = list(api.stream("Watch", pb.WatchRequest(job_id=first.job_id, after_seq=second.seq, unpaced=True)))
    assert rest[0].seq == second.seq + 1
    assert rest[-1].outcome == pb.CANCELLED
    assert not api.call("Cancel", pb.CancelRequest(job_id=first.job_id)).cancelled  # already over


def test_hint_and_count_answer_as_on_the_grpc_port(api, stub):
    request = pb.HintRequest(givens=WIKIPEDIA, include_candidates=True)
    assert api.call("Hint", request) == stub.Hint(request, timeout=30)
    count = api.call("CountSolutions", pb.CountRequest(board=WIKIPEDIA, include_solution=True))
    assert (count.verdict, count.count, count.solution) == (pb.CountReply.UNIQUE, 1, SOLVED)


def test_the_logic_rpcs_answer_as_on_the_grpc_port(api, stub):
    # The page's Grade, Generate and pencil-mark hints, and the rest a web game may call.
    assert api.call("GetLimits", pb.GetLimitsRequest()) == stub.GetLimits(pb.GetLimitsRequest(), timeout=30)
    explain = pb.ExplainRequest(board=WIKIPEDIA)
    assert api.call("Explain", explain) == stub.Explain(explain, timeout=30)
    assert api.call("Explain", explain).solved
    grade = api.call("Grade", pb.GradeRequest(board=WIKIPEDIA))
    assert grade == stub.Grade(pb.GradeRequest(board=WIKIPEDIA), timeout=30)
    assert (grade.verdict, grade.level) == (pb.CountReply.UNIQUE, pb.EASY)
    medium = pb.GradeRequest(board=puzzles("magictour_top1465")[0])  # HoDoKu's score rule makes it hard
    assert api.call("Grade", medium).hodoku_level == stub.Grade(medium, timeout=30).hodoku_level == pb.LEVEL_HARD
    generate = pb.GenerateRequest(level=pb.MEDIUM, count=2, seed=17)
    made = list(api.stream("Generate", generate))
    assert made == list(stub.Generate(generate, timeout=60))
    assert [p.index for p in made] == [0, 1] and {p.grade.level for p in made} == {pb.MEDIUM}
    assert all(is_completion(p.puzzle, p.solution) for p in made)


def test_grade_many_answers_every_board_in_order(api):
    [reply] = list(api.bidi("GradeMany", [pb.GradeManyRequest(boards=[WIKIPEDIA, "x" * 81, EMPTY])]))
    assert [g.verdict for g in reply.grades] == [pb.CountReply.UNIQUE, pb.CountReply.VERDICT_UNSPECIFIED,
                                                 pb.CountReply.MULTIPLE]
    assert reply.grades[0].level == pb.EASY and reply.grades[2].level == pb.LEVEL_UNSPECIFIED
    assert "boards[1]: cell r1c1: 'x' is not 1-9" in reply.grades[1].error.message


def test_count_batch_and_count_many_answer_every_board_in_order(api):
    boards = [WIKIPEDIA, "x" * 81, EMPTY]
    replies = list(api.bidi("CountBatch", [pb.CountRequest(board=b) for b in boards]))
    assert [r.index for r in replies] == [0, 1, 2]
    assert [r.verdict for r in replies] == [pb.CountReply.UNIQUE, pb.CountReply.VERDICT_UNSPECIFIED, pb.CountReply.MULTIPLE]
    assert "board: cell r1c1: 'x' is not 1-9" in replies[1].error.message
    [many] = list(api.bidi("CountMany", [pb.CountManyRequest(boards=boards)]))
    assert list(many.verdicts) == [pb.CountReply.UNIQUE, pb.CountReply.VERDICT_UNSPECIFIED, pb.CountReply.MULTIPLE]
    assert [e.index for e in many.errors] == [1]


def test_every_rpc_of_the_proto_is_served():
    # One implementation of each RPC: the HTTP port serves whatever the servicer has.
    assert sorted(info.name for info in METHODS.values()) == sorted(pb.DESCRIPTOR.services_by_name["Sudoku"].methods_by_name)


# Each protocol and HTTP version


@pytest.mark.parametrize(
    "protocol, http2",
    [
        (ProtocolType.CONNECT, False),
        (ProtocolType.CONNECT, True),
        (ProtocolType.GRPC_WEB, False),
        (ProtocolType.GRPC_WEB, True),
        (ProtocolType.GRPC, True),  # gRPC needs HTTP/2's trailers
    ],
    ids=["connect-h1", "connect-h2", "grpc-web-h1", "grpc-web-h2", "grpc-h2"],
)
def test_each_protocol_streams_a_solve_and_reports_an_error(service, protocol, http2):
    api = Api(base_url(service), protocol=protocol, http2=http2)
    try:
        boards = draw(api.stream("Solve", unpaced()))
        assert boards[-1] == SOLVED
        with pytest.raises(ConnectError) as caught:
            api.call("CountSolutions", pb.CountRequest(board="x" * 81))
        assert caught.value.code is Code.INVALID_ARGUMENT
        assert caught.value.message == "board: cell r1c1: 'x' is not 1-9, '.' or '0'"
    finally:
        api.close()


def test_json_is_understood_too(service):
    api = Api(base_url(service), codec=google_protobuf_json_codec())
    try:
        assert api.call("CountSolutions", pb.CountRequest(board=WIKIPEDIA)).verdict == pb.CountReply.UNIQUE
        medium = api.call("Grade", pb.GradeRequest(board=puzzles("magictour_top1465")[0]))
        assert (medium.level, medium.hodoku_level) == (pb.LEVEL_MEDIUM, pb.LEVEL_HARD)
    finally:
        api.close()


# Errors


def test_errors_carry_the_same_codes_and_messages_as_on_the_grpc_port(api):
    with pytest.raises(ConnectError) as caught:
        list(api.stream("Watch", pb.WatchRequest(job_id="0" * 32)))
    assert caught.value.code is Code.NOT_FOUND
    assert "job_id" in caught.value.message
    with pytest.raises(ConnectError) as caught:
        list(api.stream("Solve", pb.SolveRequest(board=WIKIPEDIA, max_steps=-1)))
    assert caught.value.code is Code.INVALID_ARGUMENT and "max_steps" in caught.value.message


def test_bytes_that_are_not_a_message_name_the_field(service):
    # A CountRequest whose board (field 1) is not UTF-8, as a broken client might send.
    status, _, body = post(service, "/sudoku.v1.Sudoku/CountSolutions", b"\x0a\x02\xff\xfe",
                           {"content-type": "application/proto"})
    assert status == 400
    assert b"board: not valid UTF-8" in body


def test_an_unknown_path_is_404(service):
    status, _, _ = post(service, "/sudoku.v1.Sudoku/Nope", b"", {"content-type": "application/proto"})
    assert status == 404


# The token, the limits, the metrics


TOKEN = "s3cret-token"


def test_the_token_is_enforced_before_the_request_is_read(custom_service):
    running = custom_service(auth_token=TOKEN)
    without, wrong, right = (Api(base_url(running), token=t) for t in ("", "wrong", TOKEN))
    try:
        with pytest.raises(ConnectError) as caught:
            without.call("CountSolutions", pb.CountRequest(board=WIKIPEDIA))
        assert caught.value.code is Code.UNAUTHENTICATED
        assert caught.value.message == "missing metadata 'authorization: Bearer <token>'; this server requires a token"
        with pytest.raises(ConnectError) as caught:
            list(wrong.stream("Solve", unpaced()))
        assert caught.value.code is Code.UNAUTHENTICATED and "not valid" in caught.value.message
        assert TOKEN not in caught.value.message
        assert draw(right.stream("Solve", unpaced()))[-1] == SOLVED
    finally:
        for api in (without, wrong, right):
            api.close()
    # Unparsable bytes without a token: refused for the token, never parsed.
    status, _, body = post(running, "/sudoku.v1.Sudoku/CountSolutions", b"\x0a\x02\xff\xfe",
                           {"content-type": "application/proto"})
    assert status == 401 and b"UTF-8" not in body


def test_calls_beyond_the_concurrency_bound_are_refused_at_once(custom_service):
    running = custom_service(max_concurrent_rpcs=1)
    api = Api(base_url(running))
    try:
        stream = api.stream("Solve", pb.SolveRequest(board=EMPTY, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                                                    pacing=pb.Pacing(duration_ms=20_000, fps=10)))
        first = next(stream)
        started = time.monotonic()
        with pytest.raises(ConnectError) as caught:
            api.call("CountSolutions", pb.CountRequest(board=WIKIPEDIA))
        assert caught.value.code is Code.RESOURCE_EXHAUSTED
        assert time.monotonic() - started < 5
        stream.close()

        def cancelled() -> bool:
            try:
                api.call("Cancel", pb.CancelRequest(job_id=first.job_id))
                return True
            except ConnectError as exc:
                assert exc.code is Code.RESOURCE_EXHAUSTED
                return False

        until(cancelled, "the slot was free again, once the server had seen the close", timeout=5, every=0.05)
    finally:
        api.close()


def test_a_request_over_the_size_limit_is_resource_exhausted(service):
    api = Api(base_url(service))
    try:
        with pytest.raises(ConnectError) as caught:
            api.call("CountSolutions", pb.CountRequest(board="1" * (SMALL_REQUEST_BYTES + 1)))
        assert caught.value.code is Code.RESOURCE_EXHAUSTED
    finally:
        api.close()


def requests_counted(method: str, code: str) -> float:
    value = REGISTRY.get_sample_value(
        "sudoku_requests_total", {"service": "sudoku.v1.Sudoku", "method": method, "code": code})
    return value or 0.0


def open_solves(wait_s: float = 10) -> float:
    """The service's open Solve streams (a gauge of this process, shared by
    every service the tests run here), once none is closing: a stream whose
    client left, here or in an earlier test, closes on the server a moment
    later."""
    gauge = lambda: REGISTRY.get_sample_value("sudoku_active_streams", {"method": "Solve"}) or 0.0  # noqa: E731
    until(lambda: not gauge(), lambda: f"no Solve stream was open, not {gauge()}", timeout=wait_s, every=0.05)
    return gauge()


def test_calls_are_counted_in_the_services_metrics(api):
    assert open_solves() == 0
    ok, bad = requests_counted("CountSolutions", "OK"), requests_counted("CountSolutions", "INVALID_ARGUMENT")
    solves = requests_counted("Solve", "OK")
    api.call("CountSolutions", pb.CountRequest(board=WIKIPEDIA))
    with pytest.raises(ConnectError):
        api.call("CountSolutions", pb.CountRequest(board="x"))
    list(api.stream("Solve", unpaced()))
    assert requests_counted("CountSolutions", "OK") == ok + 1
    assert requests_counted("CountSolutions", "INVALID_ARGUMENT") == bad + 1
    assert requests_counted("Solve", "OK") == solves + 1
    assert REGISTRY.get_sample_value("sudoku_active_streams", {"method": "Solve"}) == 0


def test_a_stream_the_browser_leaves_is_closed_on_the_server(api):
    assert open_solves() == 0
    stream = api.stream("Solve", pb.SolveRequest(board=HARD, strategy=pb.STRATEGY_NAIVE, view=pb.VIEW_SEARCH,
                                                 pacing=pb.Pacing(steps_per_frame=1, fps=10),
                                                 cancel_on_disconnect=True))
    first = next(stream)
    assert REGISTRY.get_sample_value("sudoku_active_streams", {"method": "Solve"}) == 1
    stream.close()
    assert open_solves() == 0
    # cancel_on_disconnect ran: the servicer's own generator was closed.
    rest = list(api.stream("Watch", pb.WatchRequest(job_id=first.job_id, unpaced=True)))
    assert rest[-1].outcome == pb.CANCELLED


# The page and CORS


def get(port: int, path: str, headers=None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_the_page_and_its_scripts_are_served(service):
    port = service.app.http.port
    status, headers, body = get(port, "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in headers["content-security-policy"]
    for script in ("/static/app.js", "/static/api.js"):
        status, headers, body = get(port, script)
        assert status == 200 and headers["content-type"].startswith("text/javascript"), script
        assert body
    assert get(port, "/static/nope.js")[0] == 404


def preflight(port: int, origin: str) -> tuple[int, dict[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("OPTIONS", "/sudoku.v1.Sudoku/Solve", headers={
            "origin": origin, "access-control-request-method": "POST",
            "access-control-request-headers": "content-type, connect-protocol-version, authorization"})
        response = connection.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


def test_no_other_origin_may_call_by_default(service):
    status, headers = preflight(service.app.http.port, "https://game.example")
    assert status == 403 and "access-control-allow-origin" not in headers
    _, headers, _ = post(service, "/sudoku.v1.Sudoku/CountSolutions", pb.CountRequest(board=WIKIPEDIA).SerializeToString(),
                         {"content-type": "application/proto", "origin": "https://game.example"})
    assert "access-control-allow-origin" not in headers


def test_an_allowed_origin_may_call_with_a_token(custom_service):
    running = custom_service(http_origins="https://game.example, http://localhost:3000")
    port = running.app.http.port
    status, headers = preflight(port, "https://game.example")
    assert status == 204
    assert headers["access-control-allow-origin"] == "https://game.example"
    assert "authorization" in headers["access-control-allow-headers"]
    assert "connect-protocol-version" in headers["access-control-allow-headers"]
    status, headers, _ = post(running, "/sudoku.v1.Sudoku/CountSolutions",
                              pb.CountRequest(board=WIKIPEDIA).SerializeToString(),
                              {"content-type": "application/proto", "origin": "http://localhost:3000"})
    assert status == 200 and headers["access-control-allow-origin"] == "http://localhost:3000"
    assert "grpc-status" in headers["access-control-expose-headers"]
    assert preflight(port, "https://elsewhere.example")[0] == 403


# Settings


def test_an_empty_listen_setting_turns_the_port_off():
    assert Settings.from_env({"SUDOKU_HTTP_LISTEN": ""}).http_listen == ""
    assert Settings.from_env({}).http_listen == "127.0.0.1:8080"


@pytest.mark.parametrize("origins", ["game.example", "https://game.example/path", "ftp://x"])
def test_an_origin_that_is_not_one_is_refused_at_startup(origins):
    with pytest.raises(security.ConfigError, match="SUDOKU_HTTP_ORIGINS: .* is not an origin"):
        web.check(Settings.from_env({}, http_origins=origins))


def test_a_port_in_use_is_named(custom_service):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port} for HTTP"):
            custom_service(http_listen=f"127.0.0.1:{port}")


def test_with_the_services_certificate_it_is_https_and_offers_http2(custom_service, certificate):
    running = custom_service(tls_cert=certificate[0], tls_key=certificate[1])
    assert running.app.http.url.startswith("https://")
    context = ssl.create_default_context(cafile=certificate[0])
    context.set_alpn_protocols(["h2", "http/1.1"])
    with socket.create_connection(("127.0.0.1", running.app.http.port), timeout=30) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            assert tls.selected_alpn_protocol() == "h2"
    connection = http.client.HTTPSConnection("localhost", running.app.http.port, timeout=30,
                                             context=ssl.create_default_context(cafile=certificate[0]))
    try:
        connection.request("POST", "/sudoku.v1.Sudoku/CountSolutions", body=f'{{"board": "{WIKIPEDIA}"}}',
                           headers={"content-type": "application/json"})
        response = connection.getresponse()
        assert response.status == 200 and b'"UNIQUE"' in response.read()
    finally:
        connection.close()


def test_the_http_port_can_be_off(custom_service):
    running = custom_service(http_listen="")
    assert running.app.http is None
