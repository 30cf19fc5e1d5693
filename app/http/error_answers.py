"""Every failure as the service's one error answer (rules §15), registered once per app.

The errors themselves are plain exceptions (app/errors.py); here each kind becomes its JSON
answer, with the code left in the request's record for its log line.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from app.errors import HTTP_CODES, ApiError, DeadlineExceeded, error_body
from app.selection.values import DeadlinePassed

from . import record

log = logging.getLogger("app.errors")


def error_response(status: int, code: str, message: str, **details: Any) -> Response:
    current = record.current()
    if current is not None:
        current.error_code = code  # for the request's log line
    return Response(
        error_body(code, message, **details), status=status, content_type="application/json"
    )


def api_error_response(error: ApiError) -> Response:
    response = error_response(error.status, error.code, error.message, **error.details)
    response.headers.update(error.headers)
    return response


def init_app(app: Flask) -> None:
    app.register_error_handler(ApiError, api_error_response)

    @app.errorhandler(DeadlinePassed)
    def handle_deadline(error: DeadlinePassed) -> Response:
        # Raised inside the rules' own loops (app/selection/values/budget.py): the thread stops
        # there.
        return api_error_response(DeadlineExceeded(str(error)))

    @app.errorhandler(HTTPException)
    def handle_http_exception(error: HTTPException) -> Response:
        status = error.code or 500
        code = HTTP_CODES.get(status, "HttpError")
        response = error_response(status, code, error.description or error.name)
        if isinstance(error, MethodNotAllowed) and error.valid_methods:
            response.headers["Allow"] = ", ".join(error.valid_methods)
        return response

    @app.errorhandler(Exception)
    def handle_unexpected(error: Exception) -> Response:
        # Never a traceback in a body (rules §15); the log keeps it for operators.
        log.exception("unhandled error")
        return error_response(500, "InternalError", "internal error")
