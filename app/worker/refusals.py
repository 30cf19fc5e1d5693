"""What the worker answers by itself, in the service's one error format (README "Errors").

gunicorn writes an HTML page for the requests its parser refuses; the worker writes
``{"error": {"code", "message"}}`` instead, with the same codes the application uses, and always
closes the connection after it (where the next request would start is unknown).
"""

from __future__ import annotations

import json
from http import HTTPStatus
from ssl import SSLError

from gunicorn.http import errors as http_errors

from app.errors import (
    ApiError,
    ExpectationFailed,
    HeadersTooLarge,
    MalformedRequest,
    RequestLineTooLong,
    UnsupportedTransferCoding,
)

MESSAGE_MAX_CHARS = 200  # gunicorn's messages quote the offending bytes; enough to find them

# The client's mistakes; anything else is ours (500).
_CLIENT_ERRORS = (
    http_errors.ParseException,
    SSLError,
)
_SERVER_ERRORS = (
    http_errors.ConfigurationProblem,
    http_errors.InvalidResponseHeader,
    http_errors.InvalidResponseHeaderName,
)


def error_response(error: ApiError) -> bytes:
    """A whole HTTP/1.1 response for ``error``, closing the connection."""
    body = {"error": {"code": error.code, "message": error.message, **error.details}}
    payload = json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    head = (
        f"HTTP/1.1 {error.status} {HTTPStatus(error.status).phrase}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n"
        "Cache-Control: no-store\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        "\r\n"
    )
    return head.encode("ascii") + payload


def is_client_error(exc: BaseException) -> bool:
    return isinstance(exc, _CLIENT_ERRORS) and not isinstance(exc, _SERVER_ERRORS)


def parser_error(exc: BaseException) -> ApiError:
    """The answer to an exception gunicorn raised while reading a request."""
    if not is_client_error(exc):
        return ApiError("internal error")  # 500 InternalError
    detail = _detail(exc)
    if isinstance(exc, http_errors.LimitRequestLine):
        return RequestLineTooLong(f"the request line is too long: {detail}")
    if isinstance(exc, http_errors.LimitRequestHeaders):
        return HeadersTooLarge(f"the request headers are too large: {detail}")
    if isinstance(exc, http_errors.UnsupportedTransferCoding):
        return UnsupportedTransferCoding(f"unsupported Transfer-Encoding: {detail}")
    if isinstance(exc, http_errors.ExpectationFailed):
        return ExpectationFailed(detail)
    if isinstance(exc, http_errors.InvalidChunkSize | http_errors.ChunkMissingTerminator):
        return MalformedRequest(f"the request body is malformed (chunked encoding): {detail}")
    return MalformedRequest(f"malformed HTTP/1.1 request: {detail}")


def _detail(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if len(text) > MESSAGE_MAX_CHARS:
        text = text[:MESSAGE_MAX_CHARS] + "…"
    return text
