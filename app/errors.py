"""One error format for every failure (SPEC §15): ``{"error": {"code", "message", ...}}``."""

from __future__ import annotations

import json
import logging
from typing import Any

from flask import Flask, Response, g, has_request_context
from werkzeug.exceptions import HTTPException

from .selection.budget import DeadlinePassed

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error the API answers with; ``details`` become extra keys of ``error``."""

    status = 500
    code = "InternalError"
    headers: dict[str, str] = {}

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


class DeadlineExceeded(ApiError):
    """The request ran past ``OME_RANKER_REQUEST_DEADLINE`` (app/deadline.py)."""

    status, code = 503, "DeadlineExceeded"


class RequestTimeout(ApiError):
    """The client did not send its whole request within ``OME_RANKER_CLIENT_TIMEOUT``."""

    status, code = 408, "RequestTimeout"


# Answered by the worker (app/worker/) for requests gunicorn's parser refuses.
class RequestLineTooLong(ApiError):
    status, code = 414, "RequestLineTooLong"


class HeadersTooLarge(ApiError):
    status, code = 431, "HeadersTooLarge"


class ExpectationFailed(ApiError):
    status, code = 417, "ExpectationFailed"


class UnsupportedTransferCoding(ApiError):
    status, code = 501, "UnsupportedTransferCoding"


class RuntimeInheritanceError(ApiError):
    status, code = 422, "RuntimeInheritanceError"


class RuntimeIncompatible(ApiError):
    status, code = 422, "RuntimeIncompatible"


class ModelNotReady(ApiError):
    status, code = 422, "ModelNotReady"


# SPEC §15: what the user can do about a model that is not Ready.
MODEL_NOT_READY_HINT = (
    "OME's model agent fills modelFormat (and modelFramework, modelArchitecture, "
    "modelParameterSize) from the model's files when the model becomes Ready; retry with "
    "those fields set, as `kubectl get` shows them once the model is Ready"
)


class ModelNotFound(ApiError):
    status, code = 404, "ModelNotFound"


# Stored catalogs (SPEC §17).
class Unauthorized(ApiError):
    status, code = 401, "Unauthorized"
    headers = {"WWW-Authenticate": 'Bearer realm="ome-ranker"'}


class Forbidden(ApiError):
    status, code = 403, "Forbidden"


class ClusterNotFound(ApiError):
    status, code = 404, "ClusterNotFound"


class InferenceServiceNotFound(ApiError):
    status, code = 404, "InferenceServiceNotFound"


class ObjectNotFound(ApiError):
    status, code = 404, "ObjectNotFound"


class PreconditionFailed(ApiError):
    status, code = 412, "PreconditionFailed"


class LimitExceeded(ApiError):
    status, code = 422, "LimitExceeded"


class StoreUnavailable(ApiError):
    status, code = 503, "StoreUnavailable"
    headers = {"Retry-After": "5"}


# SPEC §7, §15: the errors OME answers, by the code selection reports them with.
SELECTION_ERRORS: dict[str, type[ApiError]] = {
    error.code: error
    for error in (
        RuntimeNotFound,
        RuntimeDisabled,
        RuntimeInheritanceError,
        RuntimeIncompatible,
        ModelNotReady,
    )
}


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
        response = error_response(error.status, error.code, error.message, **error.details)
        response.headers.update(error.headers)
        return response

    @app.errorhandler(DeadlinePassed)
    def handle_deadline(error: DeadlinePassed):
        # Raised inside the rules' own loops (app/selection/budget.py): the thread stops there.
        return handle_api_error(DeadlineExceeded(str(error)))

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
