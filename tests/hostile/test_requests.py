"""Hostile requests against a real gunicorn: each gets the documented JSON error (well under a
second on an idle machine; the bound, HANG_SECONDS, catches a worker stuck on it), no worker is
killed for its timeout, and a good request is answered right after."""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.request

import pytest

from tests.hostile.service import Reply, exchange, read_reply
from tests.servers import HANG_SECONDS, SEED_YAML

MAX_BODY = 1024 * 1024  # the shared server's OME_RANKER_MAX_BODY_BYTES


def _post(body: bytes, *headers: bytes, content_type: bytes = b"application/json") -> bytes:
    head = b"POST /v1/rank HTTP/1.1\r\nHost: hostile\r\nContent-Type: " + content_type + b"\r\n"
    return head + b"".join(header + b"\r\n" for header in headers) + b"\r\n" + body


def _chunked(body: bytes) -> bytes:
    return _post(body, b"Transfer-Encoding: chunked")


def _assert_error(reply: Reply, status: int, code: str) -> dict:
    assert reply.raw, "no answer"
    assert reply.status == status, reply.raw[:300]
    error = reply.error()
    assert error["code"] == code, error
    assert reply.seconds < HANG_SECONDS
    assert b"Traceback" not in reply.raw
    return error


def _model_with_size(size: str) -> bytes:
    model = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "BaseModel",
        "metadata": {"name": "bomb"},
        "spec": {"modelFormat": {"name": "safetensors"}, "modelParameterSize": size},
    }
    return json.dumps({"model": model, "runtimes": []}).encode()


@pytest.mark.parametrize(
    "size",
    ["1" * 255 + "x", "1" * 255 + "B", "1." + "1" * 253 + "x", "." + "9" * 255],
    ids=["digits then x", "digits then B", "a fraction then x", "a dot then digits"],
)
def test_long_digit_sizes_are_read_in_linear_time(service, size):
    """`modelParameterSize: "111…1x"` once backtracked quadratically: 30 000 digits reached the
    worker timeout. Now at most 256 characters reach the parser (docs/api.md, "Strings the rules
    read"); a longer one is refused at its field, unread."""
    body = _model_with_size(size)
    reply = exchange(service.port, _post(body, b"Content-Length: %d" % len(body)))
    assert reply.status == 200, reply.raw[:300]
    assert reply.seconds < HANG_SECONDS  # 30 000 digits once reached the worker timeout
    assert json.loads(reply.body)["model"]["name"] == "bomb"
    longer = _model_with_size("1" * 30_000 + size)
    error = _assert_error(
        exchange(service.port, _post(longer, b"Content-Length: %d" % len(longer))),
        422,
        "InvalidDocument",
    )
    assert list(error["fields"]) == ["model.spec.modelParameterSize"]
    service.assert_still_serving()


CHUNKED_VIOLATIONS = {
    "bad chunk size": (b"zz\r\nhello\r\n0\r\n\r\n", "chunk size"),
    "size over 16 hex digits": (b"1" + b"0" * 20 + b"\r\nhello", "ended before"),
    "oversized size, cut short": (b"ffffffffffff\r\nhello", "ended before"),
    "bad terminator": (b"5\r\nhelloXX0\r\n\r\n", "terminator"),
    "cut short": (b"10\r\nhello", "ended before"),
    "no final chunk": (b"5\r\nhello\r\n", "ended before"),
    "bad extension": (b"5;=x\r\nhello\r\n0\r\n\r\n", "malformed"),
    "bare CR in extension": (b"5;a\rb\r\nhello\r\n0\r\n\r\n", "malformed"),
}


@pytest.mark.parametrize(
    ("chunks", "fragment"), CHUNKED_VIOLATIONS.values(), ids=CHUNKED_VIOLATIONS.keys()
)
def test_malformed_chunked_bodies_are_400(service, chunks, fragment):
    reply = exchange(service.port, _chunked(chunks))
    error = _assert_error(reply, 400, "MalformedRequest")
    assert fragment in error["message"]
    assert reply.header("Connection") == "close"
    service.assert_still_serving()
    assert "Error handling request" not in service.log()  # no traceback in the log either


def test_a_chunked_body_over_the_limit_is_413(service):
    connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=5)
    try:
        pieces = (b"y" * 65536 for _ in range(2 * MAX_BODY // 65536))
        connection.request("POST", "/v1/rank", body=pieces, encode_chunked=True)
        response = connection.getresponse()
        error = json.loads(response.read())["error"]
    finally:
        connection.close()
    assert (response.status, error["code"]) == (413, "PayloadTooLarge")
    service.assert_still_serving()


@pytest.mark.parametrize("size", [MAX_BODY + 1, 3 * MAX_BODY, 4 * MAX_BODY])
def test_a_client_that_sends_its_whole_body_first_reads_the_413(service, size):
    """urllib sends the whole body before it reads: it must read the 413, not a broken pipe.
    The worker reads and drops up to four body limits after the answer."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{service.port}/v1/rank",
        data=b"x" * size,
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 413
    assert refused.value.headers["Content-Type"] == "application/json"
    assert json.loads(refused.value.read())["error"]["code"] == "PayloadTooLarge"
    service.assert_still_serving()


def test_what_is_dropped_after_a_413_is_bounded(service):
    """A client sending an endless body is cut off after about four body limits."""
    sent = 0
    with socket.create_connection(("127.0.0.1", service.port), timeout=5) as sock:
        sock.sendall(_post(b"", b"Content-Length: %d" % (1000 * MAX_BODY)))
        started = time.monotonic()
        with pytest.raises(OSError):  # reset, or a send that cannot go on
            while time.monotonic() - started < HANG_SECONDS:
                sock.sendall(b"x" * 65536)
                sent += 65536
    assert 4 * MAX_BODY <= sent < 4 * MAX_BODY + 32 * 1024 * 1024  # + the sockets' buffers
    service.assert_still_serving()


def test_a_huge_content_length_is_refused_unread(service):
    reply = exchange(service.port, _post(b"{}", b"Content-Length: 99999999999999"))
    _assert_error(reply, 413, "PayloadTooLarge")
    service.assert_still_serving()


@pytest.mark.parametrize(
    "digits", [b"9" * 5000, b"0" * 5000 + b"2"], ids=["5000 nines", "5000 zeros and a 2"]
)
def test_a_content_length_of_thousands_of_digits_never_stops_the_worker(service, digits):
    """Python's int() refuses more than 4 300 digits: read in the worker's loop, it made the
    worker exit with every request it held."""
    workers = service.worker_pids()
    reply = exchange(service.port, _post(b"{}", b"Content-Length: " + digits))
    assert reply.status in (400, 413), reply.raw[:300]
    reply.error()
    assert service.worker_pids() == workers
    service.assert_still_serving()


def test_a_body_shorter_than_its_length_is_400(service):
    reply = exchange(service.port, _post(b"{}", b"Content-Length: 100"))
    error = _assert_error(reply, 400, "MalformedRequest")
    assert "2 of the 100 bytes" in error["message"]
    service.assert_still_serving()


HEADER_ABUSE = {
    "duplicate Content-Length": (_post(b"{}", b"Content-Length: 2", b"Content-Length: 2"), 400),
    "conflicting Content-Length": (
        _post(b"{}", b"Content-Length: 2", b"Content-Length: 3"),
        400,
    ),
    "Content-Length and chunked": (
        _post(b"0\r\n\r\n", b"Content-Length: 5", b"Transfer-Encoding: chunked"),
        400,
    ),
    "signed Content-Length": (_post(b"{}", b"Content-Length: +2"), 400),
    "bare CR": (b"GET /healthz HTTP/1.1\r\nHost: x\rX-Y: z\r\n\r\n", 400),
    "bare LF": (b"GET /healthz HTTP/1.1\nHost: x\n\n", 400),
    "HTTP/2 preface": (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400),
    "bad method": (b"G(T /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    "bad version": (b"GET /healthz HTTP/7.1\r\nHost: x\r\n\r\n", 400),
    "obsolete line folding": (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\n\r\n", 400),
    "space before colon": (b"GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n", 400),
    "unknown transfer coding": (_post(b"", b"Transfer-Encoding: rot13"), 501),
    "unknown expectation": (_post(b"{}", b"Content-Length: 2", b"Expect: 200-ok"), 417),
    "5 000-byte request line": (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    "request line without end": (b"GET /" + b"a" * 10_000, 414),
    "200 headers": (
        b"GET /healthz HTTP/1.1\r\n" + b"".join(b"X-%d: v\r\n" % n for n in range(200)) + b"\r\n",
        431,
    ),
    "one 9 000-byte header": (b"GET /healthz HTTP/1.1\r\nX-Big: " + b"v" * 9000 + b"\r\n\r\n", 431),
}
CODES = {
    400: "MalformedRequest",
    414: "RequestLineTooLong",
    417: "ExpectationFailed",
    431: "HeadersTooLarge",
    501: "UnsupportedTransferCoding",
}


@pytest.mark.parametrize(("request_bytes", "status"), HEADER_ABUSE.values(), ids=HEADER_ABUSE)
def test_requests_gunicorn_refuses_get_json_errors(service, request_bytes, status):
    reply = exchange(service.port, request_bytes)
    _assert_error(reply, status, CODES[status])
    assert reply.header("Connection") == "close"
    service.assert_still_serving()


def test_a_megabyte_of_headers_is_431(service):
    head = b"GET /healthz HTTP/1.1\r\n" + b"".join(
        b"X-Fill-%d: %s\r\n" % (n, b"v" * 8000) for n in range(128)
    )
    reply = exchange(service.port, head + b"\r\n")
    _assert_error(reply, 431, "HeadersTooLarge")
    service.assert_still_serving()


def test_100_continue_is_answered_before_the_body(service):
    head = _post(b"", b"Content-Length: %d" % len(SEED_YAML), b"Expect: 100-continue")
    head = head.replace(b"application/json", b"application/yaml")
    with socket.create_connection(("127.0.0.1", service.port), timeout=5) as sock:
        sock.sendall(head)
        assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(SEED_YAML)
        sock.shutdown(socket.SHUT_WR)
        reply = read_reply(sock)
    assert reply.status == 200
    assert json.loads(reply.body)["selected"]["name"] == "team-llama"
