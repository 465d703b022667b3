"""TLS with a certificate made here and now, the shared token, and secrets
kept out of logs: against the real service on loopback."""

from __future__ import annotations

import logging
import subprocess

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.rpc import security
from sudoku.config import Settings
from sudoku.v1 import sudoku_pb2 as pb
from sudoku.v1 import sudoku_pb2_grpc as pb_grpc
from tests.stack import installed_script

BOARD = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
TOKEN = "s3cret-Token-4f9a0c"
WRONG = "guess-Token-77e1b2"
TIMEOUT = 30


@pytest.fixture
def tls_service(certificate, custom_service):
    cert, key = certificate
    return custom_service(tls_cert=cert, tls_key=key)


@pytest.fixture
def token_service(custom_service):
    return custom_service(auth_token=TOKEN)


def health_status(channel: grpc.Channel, metadata=None, timeout: float = TIMEOUT):
    reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=timeout, metadata=metadata)
    return reply.status


# TLS


def test_the_tls_server_answers_a_tls_client(tls_service, certificate):
    with open(certificate[0], "rb") as f:
        credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
    with grpc.secure_channel(tls_service.address, credentials) as channel:
        assert health_status(channel) == health_pb2.HealthCheckResponse.SERVING
        reply = pb_grpc.SudokuStub(channel).CountSolutions(pb.CountRequest(board=BOARD), timeout=TIMEOUT)
        assert reply.verdict == pb.CountReply.UNIQUE


def test_the_tls_server_refuses_plaintext(tls_service):
    with grpc.insecure_channel(tls_service.address) as channel:
        with pytest.raises(grpc.RpcError) as caught:
            health_status(channel, timeout=3)
    assert caught.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def test_a_client_that_does_not_trust_the_certificate_is_refused(tls_service):
    with grpc.secure_channel(tls_service.address, grpc.ssl_channel_credentials()) as channel:
        with pytest.raises(grpc.RpcError) as caught:
            health_status(channel, timeout=3)
    assert caught.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


@pytest.mark.parametrize(
    "given, expected",
    [
        ({"tls_cert": "cert.pem"}, "SUDOKU_TLS_CERT and SUDOKU_TLS_KEY go together"),
        ({"tls_key": "key.pem"}, "only SUDOKU_TLS_KEY is set"),
        ({"tls_cert": "/nonexistent/cert.pem", "tls_key": "/nonexistent/key.pem"}, "SUDOKU_TLS_CERT: cannot read"),
    ],
)
def test_unusable_tls_settings_are_a_clear_startup_error(given, expected):
    with pytest.raises(security.ConfigError, match=expected):
        security.check(Settings.from_env({}, **given))


def test_a_key_that_is_not_pem_is_named(certificate, tmp_path):
    garbage = tmp_path / "key.der"
    garbage.write_bytes(b"\x30\x82 not a pem file")
    with pytest.raises(security.ConfigError, match=r"SUDOKU_TLS_KEY: .* is not a PEM file"):
        security.check(Settings.from_env({}, tls_cert=certificate[0], tls_key=str(garbage)))


def test_sudoku_server_stops_at_once_on_half_a_tls_setting(certificate):
    exe = installed_script("sudoku-server")
    done = subprocess.run(
        [exe, "--tls-cert", certificate[0], "--listen", "127.0.0.1:0"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "SUDOKU_TLS_CERT and SUDOKU_TLS_KEY go together" in done.stderr
    assert "Traceback" not in done.stderr


# The shared token


def call_count(channel: grpc.Channel, metadata=None) -> pb.CountReply:
    return pb_grpc.SudokuStub(channel).CountSolutions(pb.CountRequest(board=BOARD), timeout=TIMEOUT, metadata=metadata)


@pytest.mark.parametrize(
    "metadata, expected",
    [
        (None, "missing metadata 'authorization: Bearer <token>'"),
        ((("authorization", f"Bearer {WRONG}"),), "the bearer token in metadata 'authorization' is not valid"),
        ((("authorization", TOKEN),), "must be 'Bearer <token>'"),
        ((("authorization", f"Basic {TOKEN}"),), "must be 'Bearer <token>'"),
    ],
    ids=["missing", "wrong", "no-scheme", "other-scheme"],
)
def test_calls_without_the_right_token_are_unauthenticated(token_service, metadata, expected):
    with grpc.insecure_channel(token_service.address) as channel:
        with pytest.raises(grpc.RpcError) as caught:
            call_count(channel, metadata)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert expected in caught.value.details()
    assert WRONG not in caught.value.details() and TOKEN not in caught.value.details()


def test_the_right_token_is_let_through(token_service):
    with grpc.insecure_channel(token_service.address) as channel:
        reply = call_count(channel, (("authorization", f"Bearer {TOKEN}"),))
        assert reply.verdict == pb.CountReply.UNIQUE
        frames = list(
            pb_grpc.SudokuStub(channel).Solve(
                pb.SolveRequest(board=BOARD), timeout=TIMEOUT, metadata=(("authorization", f"bearer {TOKEN}"),)
            )
        )
        assert frames[-1].outcome == pb.SOLVED


def test_a_stream_without_the_token_is_refused_before_its_request_is_looked_at(token_service):
    with grpc.insecure_channel(token_service.address) as channel:
        with pytest.raises(grpc.RpcError) as caught:
            list(pb_grpc.SudokuStub(channel).Solve(pb.SolveRequest(board="not a board"), timeout=TIMEOUT))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_request_streams_and_bad_bytes_are_parsed_only_with_the_token(token_service):
    good = (("authorization", f"Bearer {TOKEN}"),)
    with grpc.insecure_channel(token_service.address) as channel:
        stub = pb_grpc.SudokuStub(channel)
        replies = list(stub.CountBatch(iter([pb.CountRequest(board=BOARD)] * 3), timeout=TIMEOUT, metadata=good))
        assert [r.verdict for r in replies] == [pb.CountReply.UNIQUE] * 3
        with pytest.raises(grpc.RpcError) as caught:
            list(stub.CountBatch(iter([pb.CountRequest(board=BOARD)]), timeout=TIMEOUT))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        raw = channel.unary_unary("/sudoku.v1.Sudoku/CountSolutions")  # bytes in, bytes out
        for metadata, code in ((good, grpc.StatusCode.INVALID_ARGUMENT), ((), grpc.StatusCode.UNAUTHENTICATED)):
            with pytest.raises(grpc.RpcError) as caught:
                raw(b"\x0a\x02\xff\xfe", timeout=TIMEOUT, metadata=metadata)  # board: not UTF-8
            assert caught.value.code() == code


def test_health_needs_no_token(token_service):
    with grpc.insecure_channel(token_service.address) as channel:
        assert health_status(channel) == health_pb2.HealthCheckResponse.SERVING


def test_unauthenticated_health_streams_cannot_take_the_calls_places(custom_service):
    """With a token, health's Watch (a stream that stays open) needs it too:
    a crowd of unauthenticated Watch streams is refused at once instead of
    filling SUDOKU_MAX_CONCURRENT_RPCS, and authenticated calls go on."""
    service = custom_service(auth_token=TOKEN, max_concurrent_rpcs=20)
    good = (("authorization", f"Bearer {TOKEN}"),)
    with grpc.insecure_channel(service.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        watches = [health.Watch(health_pb2.HealthCheckRequest(), timeout=TIMEOUT) for _ in range(40)]
        for watch in watches:
            with pytest.raises(grpc.RpcError) as caught:
                next(watch)
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert call_count(channel, metadata=good).verdict == pb.CountReply.UNIQUE
        authorized = health.Watch(health_pb2.HealthCheckRequest(), timeout=TIMEOUT, metadata=good)
        assert next(authorized).status == health_pb2.HealthCheckResponse.SERVING
        authorized.cancel()


def test_a_token_that_cannot_travel_as_metadata_is_a_startup_error():
    with pytest.raises(security.ConfigError) as caught:
        security.check(Settings.from_env({}, auth_token="two words"))
    assert "two words" not in str(caught.value)


def test_the_token_never_appears_in_logs_or_repr(token_service, caplog):
    caplog.set_level(logging.DEBUG)
    settings = Settings.from_env({"SUDOKU_AUTH_TOKEN": TOKEN})
    assert settings.auth_token == TOKEN
    assert TOKEN not in repr(settings) and TOKEN not in str(settings)
    logging.getLogger("sudoku.test").info("settings: %r", settings)
    with grpc.insecure_channel(token_service.address) as channel:
        call_count(channel, (("authorization", f"Bearer {TOKEN}"),))
        for metadata in (None, (("authorization", f"Bearer {WRONG}"),)):
            with pytest.raises(grpc.RpcError):
                call_count(channel, metadata)
        with pytest.raises(grpc.RpcError):  # an invalid request, which the service does log about
            pb_grpc.SudokuStub(channel).CountSolutions(
                pb.CountRequest(board="x"), timeout=TIMEOUT, metadata=(("authorization", f"Bearer {TOKEN}"),)
            )
    assert TOKEN not in caplog.text
    assert WRONG not in caplog.text
