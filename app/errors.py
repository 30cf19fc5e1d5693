"""One error format for every failure (SPEC §15): ``{"error": {"code", "message", ...}}``.

The errors the service answers with, as plain exceptions with their status and stable code, and
the one encoding of their body. No Flask here: the rules' callers raise them, the HTTP layer
(app/http/errors.py) turns each into its answer, the worker (app/worker/answers.py) writes the
same body for what never reaches the application.
"""

from __future__ import annotations

import json
from typing import Any


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
    """The request ran past ``OME_RANKER_REQUEST_DEADLINE`` (app/http/deadline.py)."""

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


def error_body(code: str, message: str, **details: Any) -> bytes:
    """The JSON body of an error answer."""
    body = {"error": {"code": code, "message": message, **details}}
    return json.dumps(body, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()
