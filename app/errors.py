"""One error format for every failure (SPEC §15): ``{"error": {"code", "message", ...}}``."""

from __future__ import annotations

import json
import logging
from typing import Any

from flask import Flask, Response, g, has_request_context
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error the API answers with; ``details`` become extra keys of ``error``."""

    status = 500
    code = "InternalError"

    def __init__(self, message: str, **details: Any):
        super().__init__(message)
        self.message = message
        self.details = details


class MalformedRequest(ApiError):
    status, code = 400, "MalformedRequest"


class PayloadTooLarge(ApiError):
    status, code = 413, "PayloadTooLarge"


class UnsupportedMediaType(ApiError):
    status, code = 415, "UnsupportedMediaType"


class NotAcceptable(ApiError):
    status, code = 406, "NotAcceptable"


class InvalidDocument(ApiError):
    """A document breaks SPEC §1; ``fields`` maps full paths to messages."""

    status, code = 422, "InvalidDocument"

    def __init__(self, fields: dict[str, list[str]]):
        count = len(fields)
        first = next(iter(fields))
        message = f"invalid document: {first}: {fields[first][0]}"
        if count > 1:
            message += f" (and {count - 1} more)"
        super().__init__(message, fields=fields)


class NoRuntimeFound(ApiError):
    status, code = 422, "NoRuntimeFound"


class RuntimeNotFound(ApiError):
    status, code = 404, "RuntimeNotFound"


class RuntimeDisabled(ApiError):
    status, code = 422, "RuntimeDisabled"


# Werkzeug's own errors (404, 405 …) keep their status under a stable code.
HTTP_CODES = {
    400: "MalformedRequest",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    413: "PayloadTooLarge",
    415: "UnsupportedMediaType",
}


def error_response(status: int, code: str, message: str, **details: Any) -> Response:
    if has_request_context():
        g.error_code = code  # for the request's log line (app/observability.py)
    body = {"error": {"code": code, "message": message, **details}}
    payload = json.dumps(body, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return Response(payload, status=status, content_type="application/json")


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def handle_api_error(error: ApiError):
        return error_response(error.status, error.code, error.message, **error.details)

    @app.errorhandler(HTTPException)
    def handle_http_exception(error: HTTPException):
        status = error.code or 500
        code = HTTP_CODES.get(status, "HttpError")
        response = error_response(status, code, error.description or error.name)
        if status == 405 and error.valid_methods:
            response.headers["Allow"] = ", ".join(error.valid_methods)
        return response

    @app.errorhandler(Exception)
    def handle_unexpected(error: Exception):
        # Never a traceback in a body (SPEC §15); the log keeps it for operators.
        log.exception("unhandled error")
        return error_response(500, "InternalError", "internal error")
