"""The worker's own answers: the service's JSON error for every exception gunicorn's parser
raises, and a 500 for the server's own failures."""

from __future__ import annotations

import json

import pytest
from gunicorn.http import errors as http_errors

from app.schemas.rank_answers import ERROR_CODES
from app.worker.refusals import MESSAGE_MAX_CHARS, error_response, parser_error


def _parse(response: bytes) -> tuple[str, dict[str, str], dict]:
    head, _, body = response.partition(b"\r\n\r\n")
    status, *lines = head.decode("ascii").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    assert int(headers["Content-Length"]) == len(body)
    return status, headers, json.loads(body)


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (http_errors.InvalidRequestLine("GET"), "400 Bad Request", "MalformedRequest"),
        (http_errors.InvalidHeader("CONTENT-LENGTH"), "400 Bad Request", "MalformedRequest"),
        (http_errors.InvalidChunkSize(b"zz"), "400 Bad Request", "MalformedRequest"),
        (http_errors.InvalidH2CPreface(b"PRI"), "400 Bad Request", "MalformedRequest"),
        (
            http_errors.LimitRequestLine(5000, 4094),
            "414 Request-URI Too Long",
            "RequestLineTooLong",
        ),
        (
            http_errors.LimitRequestHeaders("x"),
            "431 Request Header Fields Too Large",
            "HeadersTooLarge",
        ),
        (http_errors.ExpectationFailed("x"), "417 Expectation Failed", "ExpectationFailed"),
        (
            http_errors.UnsupportedTransferCoding("x"),
            "501 Not Implemented",
            "UnsupportedTransferCoding",
        ),
        (http_errors.ConfigurationProblem("x"), "500 Internal Server Error", "InternalError"),
        (http_errors.InvalidResponseHeader("x"), "500 Internal Server Error", "InternalError"),
        (RuntimeError("boom"), "500 Internal Server Error", "InternalError"),
    ],
)
def test_each_error_is_the_documented_json(exc, status, code):
    line, headers, body = _parse(error_response(parser_error(exc)))
    assert line.startswith(f"HTTP/1.1 {status.split()[0]} ")
    assert headers["Content-Type"] == "application/json"
    assert headers["Connection"] == "close"
    assert body["error"]["code"] == code
    assert code in ERROR_CODES
    if code == "InternalError":
        assert body["error"]["message"] == "internal error"  # nothing of ours leaks


def test_messages_quote_the_request_briefly_and_safely():
    exc = http_errors.InvalidRequestLine("\x00<script>" + "a" * 10_000)
    _, _, body = _parse(error_response(parser_error(exc)))
    message = body["error"]["message"]
    assert len(message) <= MESSAGE_MAX_CHARS + 60
    assert message.endswith("…")
