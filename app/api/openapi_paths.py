"""The paths of the OpenAPI description (SPEC §15): the ranking endpoints, the probes, the
metrics and the documentation, with their examples. ``app.api.openapi`` assembles the spec."""

from __future__ import annotations

from app.http.observability import REQUEST_ID_HEADER
from app.schemas import api as schemas

from .examples import seed_examples

JSON = "application/json"
YAML_REQUEST_TYPES = ("application/yaml", "application/x-yaml", "text/yaml")

RANK_DESCRIPTION = """\
Every candidate runtime in OME's order, with priority, weight, score, size distance and the \
reason for each incompatible one, plus the selected runtime and OME's message.

The answer follows `Accept`: `application/json` (the default, also for an `Accept` naming no \
supported type), `text/plain` (the explain table, byte for byte as `kubectl ome runtime explain` \
writes it to a file) or `application/yaml` (the JSON answer as YAML)."""

SELECT_DESCRIPTION = """\
Only the runtime OME would use, or the error OME would report: 422 `NoRuntimeFound` when \
nothing qualifies; 404 `RuntimeNotFound`, 422 `RuntimeDisabled`, `RuntimeInheritanceError` or \
`RuntimeIncompatible` for an explicit `spec.runtime.name` that cannot be used; 422 \
`ModelNotReady` for a model without a format."""

JSON_BODY_DESCRIPTION = """\
The request object below; or, as `kubectl apply -f` takes JSON, a manifest (an object with a \
top-level `kind`: one object, or a `kind: List` as `kubectl get -o json` prints it) or an array \
of manifests, read exactly like the same YAML stream."""

YAML_BODY_DESCRIPTION = """\
A `---`-separated stream of manifests and/or `kind: List` objects, as `kubectl apply -f` takes \
it: exactly one BaseModel or ClusterBaseModel, any number of ServingRuntimes and \
ClusterServingRuntimes, at most one InferenceService; objects of other kinds (Namespace, \
Kustomization …) are skipped and listed under `ignored`; an object repeated with the same kind, \
namespace and name counts once (the last), with a warning. `namespace`, `omeVersion` and \
`modelCacheProvider` come as query parameters. Loaded safely: no object-building tags, at \
most 1 000 aliases, at most 1 000 000 nodes per document with aliases expanded, at most 200 \
levels of nesting."""


def ranking_operations() -> dict[str, dict]:
    seed = seed_examples()
    request_body = {
        "required": True,
        "description": "The model, the candidate runtimes and optionally the InferenceService.",
        "content": {
            JSON: {
                "schema": {
                    "description": JSON_BODY_DESCRIPTION,
                    "anyOf": [
                        schemas.RankRequestSchema,
                        {
                            "type": "object",
                            "required": ["kind"],
                            "properties": {"kind": {"type": "string"}},
                        },
                        {"type": "array", "items": {"type": "object"}},
                    ],
                },
                "examples": {
                    "seed": {"summary": "The seed page's example", "value": seed["json_request"]}
                },
            },
            **{
                media_type: {
                    "schema": {"type": "string", "description": YAML_BODY_DESCRIPTION},
                    "examples": {
                        "seed": {
                            "summary": "The seed page's example",
                            "value": seed["yaml_request"],
                        }
                    },
                }
                for media_type in YAML_REQUEST_TYPES
            },
        },
    }
    parameters = ["Namespace", "OmeVersion", "ModelCacheProvider", "RequestId", "CacheControl"]
    answer_headers = {REQUEST_ID_HEADER: REQUEST_ID_HEADER, "X-Cache": "X-Cache"}
    rank_example = {"seed": {"value": seed["rank_response"]}}
    return {
        "/v1/rank": {
            "post": {
                "operationId": "rankRuntimes",
                "tags": ["ranking"],
                "summary": "Rank every candidate runtime as OME would",
                "description": RANK_DESCRIPTION,
                "parameters": parameters,
                "requestBody": request_body,
                "responses": {
                    "200": {
                        "description": "The ranking.",
                        "headers": {**answer_headers, "Vary": "Vary"},
                        "content": {
                            JSON: {"schema": schemas.RankResponseSchema, "examples": rank_example},
                            "text/plain": {
                                "schema": {"type": "string"},
                                "examples": {"seed": {"value": seed["explain_table"]}},
                            },
                            "application/yaml": {
                                "schema": schemas.RankResponseSchema,
                                "examples": rank_example,
                            },
                        },
                    },
                    "400": "MalformedRequest",
                    "404": "ModelNotFound",
                    "413": "PayloadTooLarge",
                    "415": "UnsupportedMediaType",
                    "422": "RankUnprocessable",
                },
            }
        },
        "/v1/select": {
            "post": {
                "operationId": "selectRuntime",
                "tags": ["ranking"],
                "summary": "The runtime OME would use",
                "description": SELECT_DESCRIPTION,
                "parameters": parameters,
                "requestBody": request_body,
                "responses": {
                    "200": {
                        "description": "The selected runtime.",
                        "headers": answer_headers,
                        "content": {
                            JSON: {
                                "schema": schemas.SelectResponseSchema,
                                "examples": {"seed": {"value": seed["select_response"]}},
                            }
                        },
                    },
                    "400": "MalformedRequest",
                    "404": "SelectNotFound",
                    "413": "PayloadTooLarge",
                    "415": "UnsupportedMediaType",
                    "422": "SelectUnprocessable",
                },
            }
        },
    }


def _get(operation_id: str, tag: str, summary: str, description: str, content: dict) -> dict:
    return {
        "get": {
            "operationId": operation_id,
            "tags": [tag],
            "summary": summary,
            "description": description,
            "parameters": ["RequestId"],
            "responses": {
                "200": {
                    "description": summary,
                    "headers": {REQUEST_ID_HEADER: REQUEST_ID_HEADER},
                    "content": content,
                }
            },
        }
    }


def service_operations() -> dict[str, dict]:
    text = {"schema": {"type": "string"}}
    operations = _service_operations(text)
    # From SIGTERM until it exits a worker reports draining, so load balancers stop sending.
    operations["/readyz"]["get"]["responses"]["503"] = {
        "description": "Draining: the worker got SIGTERM and answers only what it still gets.",
        "headers": {REQUEST_ID_HEADER: REQUEST_ID_HEADER},
        "content": {
            JSON: {
                "schema": schemas.ReadinessSchema,
                "example": {"status": "draining", "cache": {"backend": "redis", "state": "up"}},
            }
        },
    }
    return operations


def _service_operations(text: dict) -> dict[str, dict]:
    return {
        "/healthz": _get(
            "liveness",
            "operations",
            "Liveness: the process answers",
            "Checks nothing else, so a Redis outage never gets the process restarted.",
            {
                JSON: {
                    "schema": schemas.HealthSchema,
                    "example": {"status": "ok", "version": "0.2.0"},
                }
            },
        ),
        "/readyz": _get(
            "readiness",
            "operations",
            "Readiness: the service can answer rankings",
            "Reports the ranking cache's backend and state. Stays 200 with the cache `down`: "
            "the cache is an accelerator, never a dependency (SPEC §16).",
            {
                JSON: {
                    "schema": schemas.ReadinessSchema,
                    "example": {"status": "ready", "cache": {"backend": "redis", "state": "up"}},
                }
            },
        ),
        "/metrics": _get(
            "metrics",
            "operations",
            "Prometheus metrics",
            "Prometheus text exposition format 0.0.4, summed over every gunicorn worker.",
            {"text/plain": text},
        ),
        "/openapi.json": _get(
            "openapiSpec",
            "documentation",
            "This OpenAPI description",
            "OpenAPI 3.1, generated from the service's marshmallow schemas.",
            {JSON: {"schema": {"type": "object"}}},
        ),
        "/docs": _get(
            "apiDocs",
            "documentation",
            "This description as a web page",
            "A self-contained HTML page (no external assets), rendered from `/openapi.json`.",
            {"text/html": text},
        ),
        **_web_page_operations(text),
    }


def _web_page_operations(text: dict) -> dict[str, dict]:
    """``/`` and its files (``app/web``): the page for people, which asks the endpoints above."""
    page = _get(
        "webPage",
        "documentation",
        "The web page for people",
        'Clusters, their selections, one ranking and "try it" on pasted manifests, shown as '
        "the API answers them. Its script and styles are the files below; its "
        "Content-Security-Policy allows nothing but this origin.",
        {"text/html": text},
    )
    media = ("text/javascript", "text/css", "image/svg+xml", "text/plain", "text/markdown")
    static = _get(
        "webPageFile",
        "documentation",
        "A file of the web page",
        "The page's ES modules and style sheet, the vendored libraries and their licences. "
        "Any other name is a 404.",
        {media_type: text for media_type in media},
    )
    static["get"]["parameters"].append(
        {
            "name": "filename",
            "in": "path",
            "required": True,
            "description": "A file under `app/web/static`, such as `app.js`.",
            "schema": {"type": "string"},
        }
    )
    static["get"]["responses"]["404"] = "NotFound"
    example = _get(
        "webPageExample",
        "documentation",
        "An example the web page offers",
        'The manifests the page\'s "Load the seed example" fills in: `seed_example.yaml`. Any '
        "other name is a 404.",
        {"application/yaml": text},
    )
    example["get"]["parameters"].append(
        {
            "name": "name",
            "in": "path",
            "required": True,
            "description": "The example's file name, such as `seed_example.yaml`.",
            "schema": {"type": "string"},
        }
    )
    example["get"]["responses"]["404"] = "NotFound"
    return {"/": page, "/ui/static/{filename}": static, "/ui/examples/{name}": example}
