"""The OpenAPI 3.1 description of the service (SPEC §15), generated from the marshmallow schemas:
the document and its components (headers, parameters, error responses); the paths are in
``openapi_paths``. Built per application, because the request limits it states are the
deployment's own settings; ``spec_for(app)`` builds it once and keeps it in ``app.extensions``.
"""

from __future__ import annotations

from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask
from marshmallow import fields

from app.http.observability import REQUEST_ID_MAX_LENGTH
from app.schemas import api as schemas
from app.schemas.fields import AnnotationValue, StrictBoolean, StrictInteger
from app.version import __version__

from .examples import error_examples
from .openapi_catalog import catalog_operations
from .openapi_paths import (
    JSON,
    REQUEST_ID_HEADER,
    ranking_operations,
    service_operations,
)
from .openapi_predict import predict_operations

SERVICE_TITLE = "ome-ranker"
# The codes of select's 422: the document's, then OME's refusals (SPEC §7, §15).
SELECT_UNPROCESSABLE = (
    "InvalidDocument",
    "ModelNotReady",
    "NoRuntimeFound",
    "RuntimeDisabled",
    "RuntimeInheritanceError",
    "RuntimeIncompatible",
)
SERVICE_VERSION = __version__
OPENAPI_VERSION = "3.1.0"

DESCRIPTION = """\
Which serving runtime will the OME operator pick for this model, and why? Post the model, the \
candidate runtimes and optionally the InferenceService, as JSON or as the YAML manifests you \
already have, and get back the ranking `kubectl ome runtime explain` prints, the selected \
runtime, and OME's reason for every runtime it passes over.

Limits of this deployment: request bodies up to {max_body_bytes} bytes ({max_body_human}) \
(`OME_RANKER_MAX_BODY_BYTES`) and at most {max_runtimes} runtimes per request \
(`OME_RANKER_MAX_RUNTIMES`); over either the answer is 413 `PayloadTooLarge`. Work is bounded \
before it starts too: runtime checks (distinct questions × runtimes, \
`OME_RANKER_MAX_RUNTIME_CHECKS`), the size of an answer of many rows \
(`OME_RANKER_MAX_ANSWER_BYTES`), a catalog's objects, stored bytes and runtimes; over one the \
answer is 422 `LimitExceeded` naming it (`variable`, `limit`, `requested`). Work that outlasts \
the request deadline stops there: 503 `DeadlineExceeded`.

Every error is `{{"error": {{"code": "...", "message": "...", ...}}}}` with a stable `code` \
(schema `Error`). Besides the responses listed per operation, an unknown path answers 404 \
`NotFound` and a method the path does not serve answers 405 `MethodNotAllowed` with an `Allow` \
header (see `components.responses`). Every response carries `X-Request-ID` and \
`X-Content-Type-Options: nosniff`; catalog answers also `Cache-Control: no-store`."""


def _annotation_map(self, field: fields.Field, **kwargs: Any) -> dict:
    """``AnnotationValue``: an annotation map of which only one key is read (SPEC §1)."""
    if not isinstance(field, AnnotationValue):
        return {}
    return {
        "description": f"Annotations; only `{field.key}` is read, and it must be a string.",
        "properties": {field.key: {"type": ["string", "null"]}},
    }


def _binary_size(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:g} {unit}"
    return f"{count} B"


def _new_spec(max_body_bytes: int, max_runtimes: int) -> APISpec:
    marshmallow_plugin = MarshmallowPlugin()
    spec = APISpec(
        title=SERVICE_TITLE,
        version=SERVICE_VERSION,
        openapi_version=OPENAPI_VERSION,
        plugins=[marshmallow_plugin],
        info={
            "description": DESCRIPTION.format(
                max_body_bytes=max_body_bytes,
                max_body_human=_binary_size(max_body_bytes),
                max_runtimes=max_runtimes,
            ),
        },
        tags=[
            {"name": "ranking", "description": "What OME would select, and why."},
            {"name": "clusters", "description": "Stored catalogs of clusters, asked by name."},
            {"name": "operations", "description": "Probes and metrics for operators."},
            {"name": "documentation", "description": "This description, raw and rendered."},
        ],
    )
    marshmallow_plugin.map_to_openapi_type(StrictInteger, fields.Integer)
    marshmallow_plugin.map_to_openapi_type(StrictBoolean, fields.Boolean)
    marshmallow_plugin.map_to_openapi_type(AnnotationValue, "object", None)
    marshmallow_plugin.converter.add_attribute_function(_annotation_map)
    return spec


def _add_components(spec: APISpec, max_runtimes: int) -> None:
    components = spec.components
    components.header(
        REQUEST_ID_HEADER,
        {
            "description": "The request's `X-Request-ID`, or the one generated for it.",
            "required": True,
            "schema": {"type": "string", "maxLength": REQUEST_ID_MAX_LENGTH},
        },
    )
    components.header(
        "Vary",
        {
            "description": (
                "`Accept` on a `/v1/rank` answer: the same request answers JSON, text or YAML "
                "by its `Accept` header, so a shared HTTP cache must key on it."
            ),
            "schema": {"type": "string", "enum": ["Accept"]},
        },
    )
    components.header(
        "X-Cache",
        {
            "description": (
                "`/v1/rank` and `/v1/select`: whether the answer came from the ranking cache "
                "(SPEC §16); `bypass` when the request sent `Cache-Control: no-cache`. Errors "
                "these endpoints answer carry it too."
            ),
            "schema": {"type": "string", "enum": ["hit", "miss", "bypass"]},
        },
    )
    components.header(
        "WWW-Authenticate",
        {
            "description": "`Bearer`: send `Authorization: Bearer <token>`.",
            "schema": {"type": "string"},
        },
    )
    components.header(
        "Retry-After",
        {"description": "Seconds to wait before trying again.", "schema": {"type": "string"}},
    )
    components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    components.header(
        "Allow",
        {"description": "The methods the path serves.", "schema": {"type": "string"}},
    )
    components.parameter(
        "RequestId",
        "header",
        {
            "name": REQUEST_ID_HEADER,
            "description": (
                "Correlates the request's log lines; echoed back. One of 1 to "
                f"{REQUEST_ID_MAX_LENGTH} visible ASCII characters; any other value is "
                "replaced by a generated id (never rejected)."
            ),
            # Any value is accepted (an unusable one is replaced), so the schema does not
            # restrict it: a pattern here would promise a rejection that never comes.
            "schema": {"type": "string"},
        },
    )
    components.parameter(
        "CacheControl",
        "header",
        {
            "name": "Cache-Control",
            "description": (
                "`no-cache` answers without reading the ranking cache (the answer is still "
                "stored); anything else is ignored."
            ),
            "schema": {"type": "string"},
            "example": "no-cache",
        },
    )
    components.parameter(
        "Namespace",
        "query",
        {
            "name": "namespace",
            "description": "Target namespace, when the body names none.",
            "schema": {"type": "string"},
        },
    )
    components.parameter(
        "ModelCacheProvider",
        "query",
        {
            "name": "modelCacheProvider",
            "description": (
                "The model cache provider the cluster's OME is configured with, when the body "
                "names none (absent: none is configured). Only sharded models read it."
            ),
            "schema": {"type": "string"},
        },
    )
    components.parameter(
        "OmeVersion",
        "query",
        {
            "name": "omeVersion",
            "description": (
                "OME version whose rules apply (default 1.3), when the body names none; "
                "anything that is not a version is a 422 `InvalidDocument`."
            ),
            "schema": {"type": "string"},
        },
    )
    examples = error_examples(max_runtimes)

    def error_response(description: str, *codes: str, headers: dict | None = None) -> dict:
        return {
            "description": description,
            "headers": {
                REQUEST_ID_HEADER: REQUEST_ID_HEADER,
                "X-Cache": "X-Cache",
                **(headers or {}),
            },
            "content": {
                JSON: {
                    "schema": schemas.ErrorSchema,
                    "examples": {code: {"value": examples[code]} for code in codes},
                }
            },
        }

    for name, response in {
        "MalformedRequest": error_response(
            "`MalformedRequest`: the body is not valid JSON/YAML or not the expected top-level "
            "shape (see the README's error table).",
            "MalformedRequest",
        ),
        "NotFound": error_response("`NotFound`: no such route.", "NotFound"),
        "MethodNotAllowed": error_response(
            "`MethodNotAllowed`: the path does not serve this method.",
            "MethodNotAllowed",
            headers={"Allow": "Allow"},
        ),
        "PayloadTooLarge": error_response(
            "`PayloadTooLarge`: the body is over `OME_RANKER_MAX_BODY_BYTES`, or it holds more "
            "runtimes than `OME_RANKER_MAX_RUNTIMES` (this deployment's values are in the "
            "description above).",
            "PayloadTooLarge",
            "BodyTooLarge",
        ),
        "UnsupportedMediaType": error_response(
            "`UnsupportedMediaType`: a `Content-Type` other than JSON or YAML (no "
            "`Content-Type` reads as JSON).",
            "UnsupportedMediaType",
        ),
        "RankUnprocessable": error_response(
            "`InvalidDocument`: a document breaks the schema; `fields` maps each full path to "
            "its messages. Also an InferenceService naming another model, an `omeVersion` that "
            "is not a version. `ModelNotReady`: the model has no `modelFormat.name` yet; "
            "`message` is OME's refusal and `hint` says what fills it.",
            "InvalidDocument",
            "ModelNotReady",
        ),
        "ModelNotFound": error_response(
            "`ModelNotFound`: a manifest stream's InferenceService names a model the stream does "
            "not hold (OME's model lookup fails).",
            "ModelNotFound",
        ),
        "SelectNotFound": error_response(
            "`RuntimeNotFound`: the InferenceService's `spec.runtime.name` names no runtime "
            "where its `spec.runtime.kind` looks; `ModelNotFound` as for `/v1/rank`.",
            "RuntimeNotFound",
            "ModelNotFound",
        ),
        "SelectUnprocessable": error_response(
            "`InvalidDocument` and `ModelNotReady` as for `/v1/rank`; `NoRuntimeFound` when "
            "nothing qualifies (`message` is OME's no-runtime text, `excluded` maps each "
            "excluded runtime to its reason); `RuntimeDisabled`, `RuntimeInheritanceError` and "
            "`RuntimeIncompatible` when the explicitly named runtime cannot be used.",
            *SELECT_UNPROCESSABLE,
        ),
        **{code: error_response(description, code) for code, description in SERVER_ERRORS.items()},
        "Unauthorized": error_response(
            "`Unauthorized`: no token, an unknown one, or no token file configured.",
            "Unauthorized",
            headers={"WWW-Authenticate": "WWW-Authenticate"},
        ),
        "Forbidden": error_response(
            "`Forbidden`: the token may not read (or write, create, delete) this cluster.",
            "Forbidden",
        ),
        "PreconditionFailed": error_response(
            "`PreconditionFailed`: `If-Match` is not the cluster's current ETag.",
            "PreconditionFailed",
        ),
        "StoreUnavailable": error_response(
            "`StoreUnavailable`: the catalog store cannot be reached; retry after `Retry-After`.",
            "StoreUnavailable",
            headers={"Retry-After": "Retry-After"},
        ),
        "CatalogNotFound": error_response(
            "`ClusterNotFound`, `ObjectNotFound`, `ModelNotFound` (OME's model lookup), "
            "`InferenceServiceNotFound`; `RuntimeNotFound` from `select`.",
            "ClusterNotFound",
            "ObjectNotFound",
            "ModelNotFound",
            "InferenceServiceNotFound",
            "RuntimeNotFound",
        ),
        "CatalogUnprocessable": error_response(
            "`InvalidDocument` (the object's place in the body, then its field) or "
            "`LimitExceeded`, refused before any work: objects, stored bytes or runtimes per "
            "cluster, clusters per service, runtime checks (questions × runtimes) per request, "
            "answer size; `variable` names the setting, `limit` its value, `requested` what "
            "the request needed.",
            "InvalidDocument",
            "LimitExceeded",
        ),
        "InvalidNamespace": error_response(
            "`InvalidDocument`: the `namespace` query parameter is not a DNS-1123 label.",
            "InvalidDocument",
        ),
        "SelectionsUnprocessable": error_response(
            "`InvalidDocument` for a `namespace` that is not a DNS-1123 label; `LimitExceeded` "
            "when the selections would take more runtime checks, or the answer more bytes, "
            "than a request may (`OME_RANKER_MAX_RUNTIME_CHECKS`, `OME_RANKER_MAX_ANSWER_BYTES`).",
            "InvalidDocument",
            "LimitExceeded",
        ),
        "ByNameUnprocessable": error_response(
            "As `select`'s 422 (OME's refusals, `InvalidDocument` for a bad `namespace`), and "
            "`LimitExceeded` when the catalog holds more runtimes than one ranking may read "
            "(`OME_RANKER_MAX_RUNTIMES`) or the answer would take more runtime checks or bytes "
            "than a request may (`OME_RANKER_MAX_RUNTIME_CHECKS`, "
            "`OME_RANKER_MAX_ANSWER_BYTES`).",
            *SELECT_UNPROCESSABLE,
            "LimitExceeded",
        ),
    }.items():
        components.response(name, response)


# Errors the server itself answers for any request (app/worker, app/http/deadline.py), before or
# around the view: every operation lists them.
SERVER_ERRORS = {
    "RequestTimeout": "`RequestTimeout` (408): the request did not arrive in full in time.",
    "RequestLineTooLong": "`RequestLineTooLong` (414): the request line is over 4 094 bytes.",
    "ExpectationFailed": "`ExpectationFailed` (417): an `Expect` other than `100-continue`.",
    "HeadersTooLarge": "`HeadersTooLarge` (431): too many or too large headers.",
    "UnsupportedTransferCoding": (
        "`UnsupportedTransferCoding` (501): a `Transfer-Encoding` other than `chunked`."
    ),
    "DeadlineExceeded": (
        "`DeadlineExceeded` (503): the request ran past `OME_RANKER_REQUEST_DEADLINE`."
    ),
}
SERVER_ERROR_STATUSES = {
    "RequestTimeout": "408",
    "RequestLineTooLong": "414",
    "ExpectationFailed": "417",
    "HeadersTooLarge": "431",
    "UnsupportedTransferCoding": "501",
    "DeadlineExceeded": "503",
}


def _with_server_errors(operations: dict[str, dict]) -> dict[str, dict]:
    for operation in operations.values():
        if not isinstance(operation, dict) or "responses" not in operation:
            continue
        responses = operation["responses"]
        for name, status in SERVER_ERROR_STATUSES.items():
            responses.setdefault(status, name)
    return operations


def build_spec(max_body_bytes: int, max_runtimes: int) -> dict[str, Any]:
    """The OpenAPI document for a deployment with these request limits."""
    spec = _new_spec(max_body_bytes, max_runtimes)
    _add_components(spec, max_runtimes)
    paths = {
        **ranking_operations(),
        **catalog_operations(),
        **predict_operations(),
        **service_operations(),
    }
    for path, operations in paths.items():
        parameters = operations.pop("parameters", None)
        spec.path(path=path, operations=_with_server_errors(operations), parameters=parameters)
    document = spec.to_dict()
    runtimes = document["components"]["schemas"]["RankRequest"]["properties"]["runtimes"]
    runtimes["maxItems"] = max_runtimes  # more is a 413 PayloadTooLarge
    return document


def spec_for(app: Flask) -> dict[str, Any]:
    """The application's spec, built on first use."""
    document = app.extensions.get("openapi_spec")
    if document is None:
        document = build_spec(app.config["MAX_CONTENT_LENGTH"], app.config["MAX_RUNTIMES"])
        app.extensions["openapi_spec"] = document
    return document
