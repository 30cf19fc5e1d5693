"""The OpenAPI paths of stored catalogs (SPEC §17): every route, its parameters, answers and
errors. Bodies of the five OME kinds are the manifests the other operations document."""

from __future__ import annotations

from typing import Any

from .openapi_paths import JSON, REQUEST_ID_HEADER, YAML_REQUEST_TYPES

SECURITY = [{"bearer": []}]
TEXT = "text/plain"
YAML = "application/yaml"
AUTH_ERRORS = {"401": "Unauthorized", "403": "Forbidden", "503": "StoreUnavailable"}
ANY_OBJECT = {"type": "object"}
MANIFESTS = {
    "description": (
        "Manifests as `kubectl apply -f` takes them: a YAML stream, a JSON object (one object "
        "or a `kind: List`) or a JSON array. Other kinds are skipped and reported."
    ),
    "required": True,
    "content": {
        JSON: {"schema": {"anyOf": [ANY_OBJECT, {"type": "array", "items": ANY_OBJECT}]}},
        **{media: {"schema": {"type": "string"}} for media in YAML_REQUEST_TYPES},
    },
}


def _parameter(name: str, where: str, description: str, required: bool = False) -> dict:
    return {
        "name": name,
        "in": where,
        "required": required,
        "description": description,
        "schema": {"type": "string"},
    }


CLUSTER = _parameter("cluster", "path", "A DNS-1123 label.", True)
IF_MATCH = _parameter(
    "If-Match", "header", 'A write happens only while the ETag is still this (`"<generation>"`).'
)
IF_NONE_MATCH = _parameter(
    "If-None-Match", "header", "304 when the catalog's ETag is still this: poll for free."
)
BY_NAME = [
    _parameter("model", "query", "The model's name (or use `inferenceService`)."),
    _parameter("namespace", "query", "Where a BaseModel is looked for; the target namespace."),
    _parameter("modelKind", "query", "`BaseModel` or `ClusterBaseModel`: look only there."),
    _parameter("inferenceService", "query", "`<namespace>/<name>` of a stored InferenceService."),
]
ETAG = {
    "description": 'The catalog\'s generation, `"<generation>"`.',
    "schema": {"type": "string"},
}


def _answer(description: str, content: dict, *, etag: bool = True) -> dict:
    headers: dict[str, Any] = {REQUEST_ID_HEADER: REQUEST_ID_HEADER}
    if etag:
        headers["ETag"] = ETAG
    return {"description": description, "headers": headers, "content": content}


def _operation(
    operation_id: str,
    summary: str,
    responses: dict,
    *,
    parameters: list | None = None,
    body: dict | None = None,
    errors: dict | None = None,
) -> dict:
    operation: dict[str, Any] = {
        "operationId": operation_id,
        "tags": ["clusters"],
        "summary": summary,
        "security": SECURITY,
        "parameters": [
            "RequestId",
            *([] if operation_id == "listClusters" else [CLUSTER]),
            *(parameters or []),
        ],
        "responses": {**responses, **AUTH_ERRORS, **(errors or {})},
    }
    if body is not None:
        operation["requestBody"] = body
    return operation


def _json(description: str, **extra: Any) -> dict:
    return _answer(
        description, {JSON: {"schema": ANY_OBJECT}, YAML: {"schema": ANY_OBJECT}}, **extra
    )


WRITE_ERRORS = {
    "400": "MalformedRequest",
    "404": "CatalogNotFound",
    "412": "PreconditionFailed",
    "413": "PayloadTooLarge",
    "415": "UnsupportedMediaType",
    "422": "CatalogUnprocessable",
}
NOT_MODIFIED = {
    "description": "Not modified: the ETag is still the one sent.",
    "headers": {REQUEST_ID_HEADER: REQUEST_ID_HEADER, "ETag": ETAG},
}


def catalog_operations() -> dict[str, dict]:
    by_name_errors = {
        "400": "MalformedRequest",
        "404": "CatalogNotFound",
        "422": "ByNameUnprocessable",
    }
    ranking = {
        JSON: {"schema": ANY_OBJECT},
        TEXT: {"schema": {"type": "string"}},
        YAML: {"schema": ANY_OBJECT},
    }
    return {
        "/v1/clusters": {
            "get": _operation(
                "listClusters",
                "The clusters the token may read",
                {
                    "200": _json(
                        "Name, settings, generation, updatedAt, counts per kind.", etag=False
                    )
                },
            )
        },
        "/v1/clusters/{cluster}": {
            "put": _operation(
                "putCluster",
                "Create (201) or update (200) a cluster's settings",
                {"200": _json("Updated."), "201": _json("Created.")},
                parameters=[IF_MATCH],
                body={
                    "required": False,
                    "content": {
                        JSON: {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "omeVersion": {"type": ["string", "null"]},
                                    "modelCacheProvider": {"type": ["string", "null"]},
                                    "description": {"type": ["string", "null"]},
                                },
                                "additionalProperties": False,
                            }
                        }
                    },
                },
                errors={
                    "400": "MalformedRequest",
                    "412": "PreconditionFailed",
                    "422": "CatalogUnprocessable",
                },
            ),
            "get": _operation(
                "getCluster",
                "One cluster",
                {"200": _json("The cluster."), "304": NOT_MODIFIED},
                parameters=[IF_NONE_MATCH],
                errors={"400": "MalformedRequest", "404": "CatalogNotFound"},
            ),
            "delete": _operation(
                "deleteCluster",
                "Delete a cluster, its settings and objects",
                {
                    "204": {
                        "description": "Deleted.",
                        "headers": {REQUEST_ID_HEADER: REQUEST_ID_HEADER},
                    }
                },
                parameters=[IF_MATCH],
                errors={
                    "400": "MalformedRequest",
                    "404": "CatalogNotFound",
                    "412": "PreconditionFailed",
                    "422": "InvalidNamespace",
                },
            ),
        },
        "/v1/clusters/{cluster}/objects": {
            "put": _operation(
                "replaceObjects",
                "Replace every stored object with the body's",
                {"200": _json("What was stored: generation, counts, ignored, warnings.")},
                parameters=[IF_MATCH],
                body=MANIFESTS,
                errors=WRITE_ERRORS,
            ),
            "post": _operation(
                "applyObjects",
                "Add or replace the body's objects, leave the rest",
                {"200": _json("What was stored: generation, counts, ignored, warnings.")},
                parameters=[IF_MATCH],
                body=MANIFESTS,
                errors=WRITE_ERRORS,
            ),
            "get": _operation(
                "listObjects",
                "The stored objects as a `kind: List`, in their stored form",
                {
                    "200": _json(
                        "The objects as stored: of each, only what selection, lint and placement "
                        "read, with `metadata` name, namespace, labels and annotations (not "
                        "`last-applied-configuration`). Containers, their `env`, `args` and "
                        "`command`, volumes, `status` and every other field are not stored."
                    ),
                    "304": NOT_MODIFIED,
                },
                parameters=[
                    IF_NONE_MATCH,
                    _parameter("kind", "query", "Only objects of this kind."),
                    _parameter("namespace", "query", "Only objects of this namespace."),
                ],
                errors={
                    "400": "MalformedRequest",
                    "404": "CatalogNotFound",
                    "422": "InvalidNamespace",
                },
            ),
        },
        "/v1/clusters/{cluster}/objects/{kind}/{name}": {
            "delete": _operation(
                "deleteObject",
                "Remove one object",
                {"200": _json("The new generation and counts.")},
                parameters=[
                    _parameter("kind", "path", "One of the five OME kinds.", True),
                    _parameter("name", "path", "The object's name.", True),
                    IF_MATCH,
                    _parameter("namespace", "query", "For namespaced kinds (default `default`)."),
                ],
                errors={
                    "400": "MalformedRequest",
                    "404": "CatalogNotFound",
                    "412": "PreconditionFailed",
                    "422": "InvalidNamespace",
                },
            ),
        },
        "/v1/clusters/{cluster}/rank": {
            "get": _operation(
                "rankByName",
                "`/v1/rank`'s answer from the stored objects",
                {"200": _answer("The ranking.", ranking), "304": NOT_MODIFIED},
                parameters=[IF_NONE_MATCH, "CacheControl", *BY_NAME],
                errors=by_name_errors,
            ),
            "post": _operation(
                "rankOverlaid",
                "The body's manifests over the stored runtimes; nothing stored",
                {"200": _answer("The ranking.", ranking)},
                parameters=BY_NAME[:3],
                body=MANIFESTS,
                errors={**by_name_errors, "413": "PayloadTooLarge", "415": "UnsupportedMediaType"},
            ),
        },
        "/v1/clusters/{cluster}/select": {
            "get": _operation(
                "selectByName",
                "`/v1/select`'s answer from the stored objects",
                {"200": _json("The selected runtime."), "304": NOT_MODIFIED},
                parameters=[IF_NONE_MATCH, "CacheControl", *BY_NAME],
                errors=by_name_errors,
            ),
            "post": _operation(
                "selectOverlaid",
                "The body's manifests over the stored runtimes; nothing stored",
                {"200": _json("The selected runtime.")},
                parameters=BY_NAME[:3],
                body=MANIFESTS,
                errors={**by_name_errors, "413": "PayloadTooLarge", "415": "UnsupportedMediaType"},
            ),
        },
        "/v1/clusters/{cluster}/selections": {
            "get": _operation(
                "clusterSelections",
                "Every stored InferenceService with its outcome",
                {"200": _answer("The selections.", ranking), "304": NOT_MODIFIED},
                parameters=[
                    IF_NONE_MATCH,
                    "CacheControl",
                    _parameter("namespace", "query", "Only this namespace."),
                ],
                errors={
                    "400": "MalformedRequest",
                    "404": "CatalogNotFound",
                    "422": "SelectionsUnprocessable",
                },
            ),
        },
    }
