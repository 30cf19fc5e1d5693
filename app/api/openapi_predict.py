"""The OpenAPI paths of the answers before ``kubectl apply`` (SPEC §18, §19): lint, impact and
many selections at once, stateless and against a stored catalog."""

from __future__ import annotations

from typing import Any

from .openapi_catalog import (
    ANY_OBJECT,
    AUTH_ERRORS,
    CLUSTER,
    ETAG,
    MANIFESTS,
    SECURITY,
    TEXT,
    YAML,
    _parameter,
)
from .openapi_paths import JSON, REQUEST_ID_HEADER

ANSWER = {
    JSON: {"schema": ANY_OBJECT},
    TEXT: {"schema": {"type": "string"}},
    YAML: {"schema": ANY_OBJECT},
}
STREAM_ERRORS = {
    "400": "MalformedRequest",
    "413": "PayloadTooLarge",
    "415": "UnsupportedMediaType",
    "422": "CatalogUnprocessable",
}
OME_VERSION = _parameter("omeVersion", "query", "The OME version to emulate (default `1.3`).")
PROVIDER = _parameter("modelCacheProvider", "query", "The cluster's model cache provider.")
DELETE = {
    **_parameter(
        "delete",
        "query",
        "`<kind>/<namespace>/<name>` (`<kind>/<name>` for cluster-scoped kinds) the change "
        "deletes; repeatable.",
    ),
    "schema": {"type": "array", "items": {"type": "string"}},
    "explode": True,
}


def _operation(
    operation_id: str,
    summary: str,
    description: str,
    *,
    cluster: bool,
    body: dict,
    parameters: list | None = None,
) -> dict[str, Any]:
    headers: dict[str, Any] = {REQUEST_ID_HEADER: REQUEST_ID_HEADER}
    if cluster:
        headers["ETag"] = ETAG
    errors = dict(STREAM_ERRORS)
    if cluster:
        errors.update(AUTH_ERRORS)
        errors["404"] = "CatalogNotFound"
    operation: dict[str, Any] = {
        "operationId": operation_id,
        "tags": ["predict"],
        "summary": summary,
        "description": description,
        "parameters": ["RequestId", *([CLUSTER] if cluster else []), *(parameters or [])],
        "requestBody": body,
        "responses": {
            "200": {"description": "The answer.", "headers": headers, "content": ANSWER},
            **errors,
        },
    }
    if cluster:
        operation["security"] = SECURITY
    return operation


LINT = (
    "`admitted`, `counts` per severity and `findings` `{severity, kind, namespace, name, field, "
    "code, message}` in canonical order (errors, warnings, infos); `text/plain` prints them as "
    "kubectl does (`error: … denied the request: …`, `Warning: …`, `info: …`)."
)
IMPACT = (
    "`checked` InferenceServices, `count` and `changes` `{namespace, name, model, before, "
    "after}`: every InferenceService whose `/v1/select` answer the change moves; nothing stored."
)
IMPACT_BODY = {
    "required": True,
    "content": {
        JSON: {
            "schema": {
                "type": "object",
                "properties": {
                    "current": {"type": "array", "items": ANY_OBJECT},
                    "proposed": {"type": "array", "items": ANY_OBJECT},
                },
                "additionalProperties": False,
            }
        }
    },
}


def predict_operations() -> dict[str, dict]:
    return {
        "/v1/lint": {
            "post": _operation(
                "lint",
                "What applying the manifests to a cluster holding exactly them would answer",
                LINT,
                cluster=False,
                body=MANIFESTS,
                parameters=[OME_VERSION, PROVIDER],
            )
        },
        "/v1/clusters/{cluster}/lint": {
            "post": _operation(
                "lintCluster",
                "What applying the manifests over the stored catalog would answer",
                LINT + " Findings are for the body's objects.",
                cluster=True,
                body=MANIFESTS,
                parameters=[OME_VERSION, PROVIDER],
            )
        },
        "/v1/impact": {
            "post": _operation(
                "impact",
                "The InferenceServices a change from `current` to `proposed` moves",
                IMPACT,
                cluster=False,
                body=IMPACT_BODY,
                parameters=[OME_VERSION, PROVIDER],
            )
        },
        "/v1/clusters/{cluster}/impact": {
            "post": _operation(
                "impactCluster",
                "The stored InferenceServices that applying the manifests would move",
                IMPACT,
                cluster=True,
                body=MANIFESTS,
                parameters=[DELETE, OME_VERSION, PROVIDER],
            )
        },
        "/v1/selections": {
            "post": _operation(
                "selections",
                "Every InferenceService and model of a stream with its outcome",
                "`count` and `selections` `{namespace, name, model, runtime, message, error}`; a "
                "model that no InferenceService names has a row with `name` null. `text/plain`: "
                "`NAMESPACE INFERENCESERVICE MODEL RUNTIME SCOPE MESSAGE`.",
                cluster=False,
                body=MANIFESTS,
                parameters=[
                    OME_VERSION,
                    PROVIDER,
                    _parameter("namespace", "query", "Only the rows of this namespace."),
                ],
            )
        },
    }
