"""One error format for every failure (rules §15): ``{"error": {"code", "message", ...}}``.

The errors the service answers with, as plain exceptions with their status and stable code, and
the one encoding of their body. No Flask here: the rules' callers raise them, the HTTP layer
(app/http/error_answers.py) turns each into its answer, the worker (app/worker/refusals.py)
writes the same body for what never reaches the application.
"""

from __future__ import annotations

import json
from typing import Any, assert_never

from app.selection.ranking import SelectionErrorCode


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
    """The body is not valid JSON or YAML, or not the expected top-level shape; or a path's cluster
    name is not a DNS-1123 label."""

    status, code = 400, "MalformedRequest"


class PayloadTooLarge(ApiError):
    """The body is over `OME_RANKER_MAX_BODY_BYTES`, holds more runtimes than
    `OME_RANKER_MAX_RUNTIMES` (this deployment's values are in the description's introduction),
    or could take more memory once read than `OME_RANKER_MAX_REQUEST_MEMORY`."""

    status, code = 413, "PayloadTooLarge"


class UnsupportedMediaType(ApiError):
    """A `Content-Type` other than JSON or YAML (no `Content-Type` reads as JSON)."""

    status, code = 415, "UnsupportedMediaType"


class InvalidDocument(ApiError):
    """A document breaks the schema; `fields` maps each full path to its messages. Also a query
    parameter that is not what it must be (a `namespace` that is not a DNS-1123 label, an
    `omeVersion` that is not a version) and an InferenceService naming another model."""

    status, code = 422, "InvalidDocument"

    def __init__(self, fields: dict[str, list[str]]):
        count = len(fields)
        first = next(iter(fields))
        message = f"invalid document: {first}: {fields[first][0]}"
        if count > 1:
            message += f" (and {count - 1} more)"
        super().__init__(message, fields=fields)


class NoRuntimeFound(ApiError):
    """Nothing qualifies: `message` is OME's no-runtime text, `excluded` maps each excluded runtime
    to its reason."""

    status, code = 422, SelectionErrorCode.NO_RUNTIME_FOUND.value


class RuntimeNotFound(ApiError):
    """The InferenceService's `spec.runtime.name` names no runtime where its `spec.runtime.kind`
    looks."""

    status, code = 404, SelectionErrorCode.RUNTIME_NOT_FOUND.value


class RuntimeDisabled(ApiError):
    """The runtime the InferenceService names is disabled."""

    status, code = 422, SelectionErrorCode.RUNTIME_DISABLED.value


class DeadlineExceeded(ApiError):
    """The request ran past `OME_RANKER_REQUEST_DEADLINE`."""

    status, code = 503, "DeadlineExceeded"


class RequestTimeout(ApiError):
    """The request did not arrive in full within `OME_RANKER_CLIENT_TIMEOUT`."""

    status, code = 408, "RequestTimeout"


# Answered by the worker (app/worker/) for requests gunicorn's parser refuses.
class RequestLineTooLong(ApiError):
    """The request line is over 4 094 bytes."""

    status, code = 414, "RequestLineTooLong"


class HeadersTooLarge(ApiError):
    """Too many or too large headers."""

    status, code = 431, "HeadersTooLarge"


class ExpectationFailed(ApiError):
    """An `Expect` other than `100-continue`."""

    status, code = 417, "ExpectationFailed"


class UnsupportedTransferCoding(ApiError):
    """A `Transfer-Encoding` other than `chunked`."""

    status, code = 501, "UnsupportedTransferCoding"


class RuntimeInheritanceError(ApiError):
    """The named runtime's `inherit-from` chain cannot be resolved."""

    status, code = 422, SelectionErrorCode.RUNTIME_INHERITANCE_ERROR.value


class RuntimeIncompatible(ApiError):
    """The named runtime does not support the model; `message` is OME's reason."""

    status, code = 422, SelectionErrorCode.RUNTIME_INCOMPATIBLE.value


class ModelNotReady(ApiError):
    """The model has no `modelFormat.name` yet: `message` is OME's refusal, `hint` says what fills
    it."""

    status, code = 422, SelectionErrorCode.MODEL_NOT_READY.value


# rules §15: what the user can do about a model that is not Ready.
MODEL_NOT_READY_HINT = (
    "OME's model agent fills modelFormat (and modelFramework, modelArchitecture, "
    "modelParameterSize) from the model's files when the model becomes Ready; retry with "
    "those fields set, as `kubectl get` shows them once the model is Ready"
)


class ModelNotFound(ApiError):
    """The InferenceService (or the query) names a model that is not there: OME's model lookup
    fails. A model asked by name of a stored catalog (`?model=`) that BaseModels of other
    namespaces hold carries those `namespaces` and, in words, a `hint`
    (`not in namespace default; found in llama-demo`)."""

    status, code = 404, SelectionErrorCode.MODEL_NOT_FOUND.value


# Stored catalogs (rules §17).
class Unauthorized(ApiError):
    """No token, an unknown one, or no token in force (no token file configured, or one
    emptied or removed); the message says which."""

    status, code = 401, "Unauthorized"
    headers = {"WWW-Authenticate": 'Bearer realm="ome-ranker"'}


class Forbidden(ApiError):
    """The token may not read (or write, create, delete) this cluster."""

    status, code = 403, "Forbidden"


class ClusterNotFound(ApiError):
    """No cluster of that name is stored."""

    status, code = 404, "ClusterNotFound"

    def __init__(self, cluster: str):
        super().__init__(f"cluster {cluster} not found")


class InferenceServiceNotFound(ApiError):
    """No stored InferenceService of that namespace and name."""

    status, code = 404, "InferenceServiceNotFound"


class ObjectNotFound(ApiError):
    """No stored object of that kind, namespace and name."""

    status, code = 404, "ObjectNotFound"


class PreconditionFailed(ApiError):
    """`If-Match` is not the cluster's current ETag, or the `If-None-Match` of a `POST` is;
    `generation` is the current one."""

    status, code = 412, "PreconditionFailed"


class EmptyReplace(ApiError):
    """`PUT …/objects` of no object at all over a catalog that holds some, without
    `?allowEmpty=true`: nothing is written; `stored` is how many objects the catalog holds."""

    status, code = 409, "EmptyReplace"


class LimitExceeded(ApiError):
    """Refused before any work: over a bound of this deployment (objects, stored bytes or runtimes
    per cluster, clusters, runtime checks per request, answer size); `variable` names the
    setting, `limit` its value, `requested` what the request needed."""

    status, code = 422, "LimitExceeded"


class StoreUnavailable(ApiError):
    """The catalog store cannot be reached or used; retry after `Retry-After` (a store that did
    not answer is not asked again before then). `/readyz` says why."""

    status, code = 503, "StoreUnavailable"
    headers = {"Retry-After": "5"}


def selection_error(code: SelectionErrorCode) -> type[ApiError]:
    """rules §7, §15, §17: the error each of OME's refusals answers with, one for each code
    (mypy checks that no code is left without its case)."""
    match code:
        case SelectionErrorCode.MODEL_NOT_READY:
            return ModelNotReady
        case SelectionErrorCode.RUNTIME_NOT_FOUND:
            return RuntimeNotFound
        case SelectionErrorCode.RUNTIME_DISABLED:
            return RuntimeDisabled
        case SelectionErrorCode.RUNTIME_INHERITANCE_ERROR:
            return RuntimeInheritanceError
        case SelectionErrorCode.RUNTIME_INCOMPATIBLE:
            return RuntimeIncompatible
        case SelectionErrorCode.NO_RUNTIME_FOUND:
            return NoRuntimeFound
        case SelectionErrorCode.MODEL_NOT_FOUND:
            return ModelNotFound
        case _:
            assert_never(code)


# rules §7, §15: the codes a ranking answers as its error, which /v1/select reports as errors.
SELECTION_ERRORS = tuple(
    selection_error(code).code
    for code in (
        SelectionErrorCode.RUNTIME_NOT_FOUND,
        SelectionErrorCode.RUNTIME_DISABLED,
        SelectionErrorCode.RUNTIME_INHERITANCE_ERROR,
        SelectionErrorCode.RUNTIME_INCOMPATIBLE,
        SelectionErrorCode.MODEL_NOT_READY,
    )
)


# Werkzeug's own errors (404, 405 …) keep their status under a stable code.
HTTP_CODES = {
    400: "MalformedRequest",
    404: "NotFound",
    405: "MethodNotAllowed",
    413: "PayloadTooLarge",
    415: "UnsupportedMediaType",
    416: "RangeNotSatisfiable",  # a file's Range (the page's files)
}


def error_body(code: str, message: str, **details: Any) -> bytes:
    """The JSON body of an error answer."""
    body = {"error": {"code": code, "message": message, **details}}
    return json.dumps(body, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()
