"""RequestBuffer: where a request ends, found from its bytes as they arrive (app/worker/)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.worker.buffer import Readiness, RequestBuffer
from tests.work import cpu_seconds_under

WAITING, WHOLE, PARTIAL = Readiness.WAITING, Readiness.WHOLE, Readiness.PARTIAL
LIMIT, MAX_LINE, MAX_BODY = 4096, 100, 10_000


def _buffer() -> RequestBuffer:
    return RequestBuffer(LIMIT, MAX_LINE, MAX_BODY)


def _readiness_byte_by_byte(data: bytes) -> list[Readiness]:
    buffer = _buffer()
    return [buffer.feed(data[n : n + 1]) for n in range(len(data))]


def _whole_exactly_at_the_end(data: bytes) -> bool:
    seen = _readiness_byte_by_byte(data)
    return seen[-1] is WHOLE and set(seen[:-1]) <= {WAITING}


HEAD = b"POST /v1/rank HTTP/1.1\r\nHost: x\r\n"

COMPLETE = {
    "no body": b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    "empty line first": b"\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    "content-length": HEAD + b"Content-Length: 5\r\n\r\nhello",
    "any case": HEAD + b"content-LENGTH:   5  \r\n\r\nhello",
    "chunked": HEAD
    + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\n\r\n",
    "chunked with trailers": HEAD
    + b"Transfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\nX-Sum: 1\r\nX-B: 2\r\n\r\n",
    "chunk containing CRLFs": HEAD
    + b"Transfer-Encoding: chunked\r\n\r\n6\r\n\r\n\r\n\r\n\r\n0\r\n\r\n",
}


@pytest.mark.parametrize("data", COMPLETE.values(), ids=COMPLETE)
def test_a_request_is_whole_at_its_last_byte_and_not_before(data):
    assert _whole_exactly_at_the_end(data)
    assert _buffer().feed(data) is WHOLE


def test_bytes_after_the_request_stay_in_the_buffer():
    buffer = _buffer()
    two = COMPLETE["content-length"] + COMPLETE["no body"]
    assert buffer.feed(two) is WHOLE
    assert buffer.take() == two


REFUSED_AT_ONCE = {
    "duplicate length": HEAD + b"Content-Length: 5\r\nContent-Length: 5\r\n\r\n",
    "signed length": HEAD + b"Content-Length: +5\r\n\r\n",
    "length and chunked": HEAD + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
    "not chunked last": HEAD + b"Transfer-Encoding: chunked, gzip\r\n\r\n",
    "bad chunk size": HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n",
    "chunk size over 16 digits": HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + b"1" * 17 + b"\r\n",
    "bad chunk terminator": HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\nhiXX",
    "bare LF request line": b"GET / HTTP/1.1\nHost: x\n\n",
    "bare LF header": b"GET / HTTP/1.1\r\nHost: x\nY: z\r\n\r\n",
    "request line too long": b"GET /" + b"a" * MAX_LINE + b" HTTP/1.1",
    "length over the body limit": HEAD + b"Content-Length: %d\r\n\r\n" % (MAX_BODY + 1),
    "chunk-size line too long": HEAD + b"Transfer-Encoding: chunked\r\n\r\n5;" + b"x" * 9000,
}


@pytest.mark.parametrize("data", REFUSED_AT_ONCE.values(), ids=REFUSED_AT_ONCE)
def test_what_the_parser_refuses_is_handed_over_without_waiting(data):
    """gunicorn's parser answers these from the bytes there: no thread waits on the client."""
    assert _buffer().feed(data) is WHOLE


@pytest.mark.parametrize(
    "data",
    [
        HEAD + b"Content-Length: 5000\r\n\r\n" + b"x" * (LIMIT + 1),
        HEAD + b"Transfer-Encoding: chunked\r\n\r\nffff\r\n" + b"x" * LIMIT,
        HEAD + b"Expect: 100-continue\r\nContent-Length: 5\r\n\r\n",
        HEAD + b"X-Fill: " + b"v" * LIMIT,
    ],
    ids=["long body", "long chunk", "100-continue", "long head"],
)
def test_a_thread_reads_what_does_not_fit_or_waits_for_100_continue(data):
    assert _buffer().feed(data) is PARTIAL


def test_the_end_of_input_makes_it_whole():
    buffer = _buffer()
    assert buffer.feed(HEAD + b"Content-Length: 5\r\n\r\nhe") is WAITING
    assert buffer.end_of_input() is WHOLE


@pytest.mark.scale
def test_a_slow_client_costs_linear_time():
    """One byte per feed over a 4 KiB head and a 200 KiB chunked body."""
    head = b"PUT / HTTP/1.1\r\nX-Pad: " + b"p" * 4000 + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunks = b"".join(b"%x\r\n%s\r\n" % (1000, b"c" * 1000) for _ in range(200)) + b"0\r\n\r\n"
    data = head + chunks
    buffer = RequestBuffer(len(data) + 1, 8190, len(data))
    with cpu_seconds_under(15):  # far over a linear scan's; quadratic rescanning took minutes
        readiness = [buffer.feed(data[n : n + 1]) for n in range(len(data))]
    assert readiness[-1] is WHOLE and readiness[-2] is WAITING


@given(st.binary(max_size=300), st.integers(min_value=1, max_value=50))
def test_feeding_in_pieces_decides_as_feeding_at_once(data, step):
    at_once = _buffer().feed(data)
    buffer = _buffer()
    for n in range(0, len(data), step):
        buffer.feed(data[n : n + step])
    if at_once is not WAITING:
        # In pieces it may decide earlier (at a prefix), never later nor differently in kind.
        assert buffer.readiness is not WAITING
    else:
        assert buffer.readiness is WAITING


def test_the_request_line_for_logs():
    buffer = _buffer()
    buffer.feed(b"\r\nPOST /v1/rank?x=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert buffer.request_line() == "POST /v1/rank?x=1 HTTP/1.1"
