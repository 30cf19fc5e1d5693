"""The OpenAPI 3.1 description of the service (docs/api.md), built from the code: each view's
operation (``app.http.described``) collected from the URL map, so no route goes undescribed; the
components from the marshmallow schemas; each error from its class in ``app.errors`` (status, code,
headers, docstring) with ``app.api.examples``' example. Here is only what no schema says: the
introduction, the shared headers and parameters. ``spec_for(app)`` builds it once per app (the
limits it states are the deployment's) and keeps it in ``app.extensions``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask
from marshmallow import fields
from werkzeug.routing import Rule

from app import errors
from app.http.access import stateless_access
from app.http.described import JSON, NAMESPACE_SCHEMA, Operation, operation_of, parameter
from app.http.observability import REQUEST_ID_HEADER, REQUEST_ID_MAX_LENGTH
from app.schemas.fields import AnnotationValue, StrictBoolean, StrictInteger
from app.schemas.names import LABEL_MAX, LABEL_PATTERN
from app.schemas.rank_answers import ErrorSchema
from app.selection.values import MAX_VALUE_CHARS
from app.version import __version__

from .examples import error_examples

SERVICE_TITLE = "ome-ranker"
SERVICE_VERSION = __version__
OPENAPI_VERSION = "3.1.0"
AUTOMATIC_METHODS = frozenset({"HEAD", "OPTIONS"})  # Flask adds them to every route

DESCRIPTION = """\
Which serving runtime will the OME operator pick for this model, and why? Post the model, the \
candidate runtimes and optionally the InferenceService, as JSON or as the YAML manifests you \
already have, and get back the ranking `kubectl ome runtime explain` prints, the selected \
runtime, and OME's reason for every runtime it passes over.

Limits of this deployment: request bodies up to {max_body_bytes} bytes ({max_body_human}) \
(`OME_RANKER_MAX_BODY_BYTES`) and at most {max_runtimes} runtimes per request \
(`OME_RANKER_MAX_RUNTIMES`); over either the answer is 413 `PayloadTooLarge`, as it is for a \
body that could take more memory once read than `OME_RANKER_MAX_REQUEST_MEMORY` (measured from \
its bytes, before it is decoded). Work is bounded \
before it starts too: runtime checks (distinct questions × runtimes, \
`OME_RANKER_MAX_RUNTIME_CHECKS`), the size of an answer of many rows \
(`OME_RANKER_MAX_ANSWER_BYTES`), a catalog's objects, stored bytes and runtimes; over one the \
answer is 422 `LimitExceeded` naming it (`variable`, `limit`, `requested`). Work that outlasts \
the request deadline stops there: 503 `DeadlineExceeded`.

Every error is `{{"error": {{"code": "...", "message": "...", ...}}}}` with a stable `code` \
(schema `Error`). Besides the responses listed per operation, an unknown path answers 404 \
`NotFound` and a method the path does not serve answers 405 `MethodNotAllowed` with an `Allow` \
header (see `components.responses`). Every response carries `X-Request-ID` and \
`X-Content-Type-Options: nosniff` and `Vary: Accept-Encoding`; catalog answers also \
`Cache-Control: no-store`. With `Accept-Encoding: gzip`, every answer of 1 KiB or more comes \
gzip-compressed (`Content-Encoding: gzip`)."""

TAGS = {
    "ranking": "What OME would select, and why.",
    "clusters": "Stored catalogs of clusters, asked by name.",
    "predict": "Before `kubectl apply`: lint, impact, many selections at once.",
    "operations": "Probes and metrics for operators.",
    "documentation": "This description, raw and rendered; the web page.",
}
HEADERS = {
    REQUEST_ID_HEADER: ("The request's `X-Request-ID`, or the one generated for it.", None),
    "Vary": (
        "`Accept` (where the answer is negotiated) and `Accept-Encoding`: the answer follows "
        "them, so a shared HTTP cache must key on them.",
        ["Accept, Accept-Encoding", "Accept-Encoding"],
    ),
    "X-Cache": (
        "Whether the answer came from the ranking cache; `bypass` when the request sent "
        "`Cache-Control: no-cache`. Errors these endpoints answer carry it too.",
        ["hit", "miss", "bypass"],
    ),
    "ETag": (
        'The catalog\'s generation, `"<generation>"`; `"<generation>-gzip"` for a gzip answer '
        "(`If-Match` and `If-None-Match` take either).",
        None,
    ),
    "WWW-Authenticate": ("`Bearer`: send `Authorization: Bearer <token>`.", None),
    "Retry-After": ("Seconds to wait before trying again.", None),
    "Allow": ("The methods the path serves.", None),
}


PARAMETERS = {
    "RequestId": parameter(
        REQUEST_ID_HEADER,
        f"Correlates the request's log lines; echoed back. One of 1 to {REQUEST_ID_MAX_LENGTH} "
        "visible ASCII characters; any other value is replaced by a generated id (never "
        "rejected, so the schema does not restrict it).",
        "header",
    ),
    "CacheControl": parameter(
        "Cache-Control",
        "`no-cache` answers without reading the ranking cache (the answer is still stored); "
        "anything else is ignored.",
        "header",
    ),
    "IfMatch": parameter(
        "If-Match",
        'A write happens only while the ETag is still one of these (`"<generation>"`, or a '
        'list `"3", "4"`), compared strongly (a weak `W/"3"` never matches); `*`: while the '
        "cluster exists (never creates it). Anything else is a 400.",
        "header",
    ),
    "IfNoneMatch": parameter(
        "If-None-Match",
        "304 when the catalog's ETag is still one of these (a list, compared weakly, or `*`): "
        "poll for free.",
        "header",
    ),
    "Namespace": parameter(
        "namespace",
        "Target namespace, when the body names none: a DNS-1123 label (empty: absent).",
        **NAMESPACE_SCHEMA,
    ),
    "OmeVersion": parameter(
        "omeVersion",
        "OME version whose rules apply (default 1.3, or the cluster's), when the body names "
        "none; anything that is not a version is a 422 `InvalidDocument`.",
        type="string",
        maxLength=MAX_VALUE_CHARS,
    ),
    "ModelCacheProvider": parameter(
        "modelCacheProvider",
        "The model cache provider the cluster's OME is configured with, when the body (or the "
        "stored cluster) names none (absent: none is configured). Only sharded models read it.",
        type="string",
        maxLength=MAX_VALUE_CHARS,
    ),
    "AcceleratorClassesKnown": parameter(
        "acceleratorClassesKnown",
        "`true` or `false`: whether the request holds every AcceleratorClass of the cluster, "
        "when the body does not say (absent: the cluster's setting `acceleratorClassesKnown` on "
        "a stored catalog, else known when it holds at least one). Unknown classes make a "
        "policy's pick `unknown` in `placement`, never a guess. Anything else is a 422 "
        "`InvalidDocument`.",
        type="string",
        enum=["true", "false"],
    ),
}
# Path parameters no operation declares itself: (description, schema).
PATH_PARAMETERS = {
    "cluster": (
        "The cluster's name, a DNS-1123 label; anything else is a 400 `MalformedRequest`.",
        {"type": "string", "pattern": LABEL_PATTERN, "maxLength": LABEL_MAX},
    )
}
# Werkzeug's errors, for paths and methods no operation lists; and every server error, which any
# request may meet (app/worker answers them before or around the application).
ROUTING_ERRORS = {
    "NotFound": (404, "No such route."),
    "MethodNotAllowed": (405, "The path does not serve this method."),
    "RangeNotSatisfiable": (416, "A file's `Range` that is not within it."),
}
# The statuses the HTTP server answers itself too, before or instead of the application
# (docs/api.md "Errors"): those answers carry no X-Request-ID.
WORKER_STATUSES = frozenset({400, 408, 414, 417, 431, 501, 503})
REQUEST_ID_IF_ANY = "X-Request-ID-If-Any"  # the header's component where it may be missing
SERVER_ERRORS = (
    errors.RequestTimeout,
    errors.RequestLineTooLong,
    errors.ExpectationFailed,
    errors.HeadersTooLarge,
    errors.UnsupportedTransferCoding,
    errors.DeadlineExceeded,
)
# An example beside the code's own: a body over the byte limit (werkzeug's words).
EXTRA_EXAMPLES = {"PayloadTooLarge": ("BodyTooLarge",)}


def _error_classes() -> dict[str, tuple[int, str, tuple[str, ...]]]:
    """Each error code: (status, description, response headers)."""
    found: dict[str, tuple[int, str, tuple[str, ...]]] = {
        code: (status, text, ("Allow",) if code == "MethodNotAllowed" else ())
        for code, (status, text) in ROUTING_ERRORS.items()
    }
    for error in errors.ApiError.__subclasses__():
        text = " ".join((error.__doc__ or "").split())  # its own docstring, on one line
        found[error.code] = (error.status, text, tuple(error.headers))
    return found


class _Builder:
    def __init__(self, max_body_bytes: int, max_runtimes: int) -> None:
        plugin = MarshmallowPlugin()
        self.spec = APISpec(
            title=SERVICE_TITLE,
            version=SERVICE_VERSION,
            openapi_version=OPENAPI_VERSION,
            plugins=[plugin],
            info={
                "description": DESCRIPTION.format(
                    max_body_bytes=max_body_bytes,
                    max_body_human=_binary_size(max_body_bytes),
                    max_runtimes=max_runtimes,
                )
            },
            tags=[{"name": name, "description": text} for name, text in TAGS.items()],
        )
        plugin.map_to_openapi_type(StrictInteger, fields.Integer)
        plugin.map_to_openapi_type(StrictBoolean, fields.Boolean)
        plugin.map_to_openapi_type(AnnotationValue, "object", None)
        assert plugin.converter is not None  # made when the spec takes the plugin
        plugin.converter.add_attribute_function(_annotation_map)
        self.errors = _error_classes()
        self.examples = error_examples(max_runtimes)
        components = self.spec.components
        for name, (text, enum) in HEADERS.items():
            schema: dict[str, Any] = {"type": "string", **({"enum": enum} if enum else {})}
            header: dict[str, Any] = {"description": text, "schema": schema}
            if name == REQUEST_ID_HEADER:
                header.update(required=True, schema={**schema, "maxLength": REQUEST_ID_MAX_LENGTH})
                components.header(
                    REQUEST_ID_IF_ANY,
                    {
                        **header,
                        "required": False,
                        "description": f"{text} Not on what the HTTP server answers itself, "
                        "before or instead of the application: a malformed request's 400, 408, "
                        "414, 417, 431, 501 and the worker's 503.",
                    },
                )
            components.header(name, header)
        for name, shared in PARAMETERS.items():
            components.parameter(name, shared["in"], shared)
        components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
        for code in (*ROUTING_ERRORS, *(error.code for error in SERVER_ERRORS)):
            components.response(code, self.error_response((code,), ()))

    def error_response(self, codes: tuple[str, ...], headers: tuple[str, ...]) -> dict[str, Any]:
        """One status's response: each code's description and example."""
        status = self.errors[codes[0]][0]
        names = list(dict.fromkeys([REQUEST_ID_HEADER, *headers]))
        lines = []
        for code in codes:
            _, text, extra = self.errors[code]
            lines.append(f"`{code}`: {text}")
            names += [name for name in extra if name not in names]
        examples = {
            name: {"value": self.examples[name]}
            for code in codes
            for name in (code, *EXTRA_EXAMPLES.get(code, ()))
        }
        return {
            "description": "\n\n".join(lines),
            "headers": _header_refs(names, status),
            "content": {JSON: {"schema": ErrorSchema, "examples": examples}},
        }

    def add(
        self,
        path: str,
        method: str,
        operation: Operation,
        arguments: list[str],
        secured: bool = False,
    ) -> None:
        """The operation at ``path``; ``secured``: it needs a token (its own ``secured``, or the
        deployment's, ``OME_RANKER_AUTH_STATELESS``), so 401 too."""
        declared = {p["name"] for p in operation.parameters if isinstance(p, dict)}
        parameters: list[Any] = ["RequestId"]
        for name in arguments:
            if name not in declared:
                text, schema = PATH_PARAMETERS[name]
                parameters.append(parameter(name, text, "path", required=True, **schema))
        parameters += operation.parameters
        responses: dict[str, Any] = {}
        for status, answer in operation.answers.items():
            responses[str(status)] = self.answer(answer, operation.headers, status)
        secured = secured or operation.secured
        errors_ = (*operation.errors, *(("Unauthorized",) if secured else ()))
        by_status: dict[int, list[str]] = defaultdict(list)
        for code in dict.fromkeys((*errors_, *(error.code for error in SERVER_ERRORS))):
            by_status[self.errors[code][0]].append(code)
        for status, codes in sorted(by_status.items()):
            if str(status) in responses:
                continue  # an answer of the view's own (readiness's 503)
            if len(codes) == 1 and codes[0] not in errors_:
                responses[str(status)] = codes[0]  # the component
            else:
                responses[str(status)] = self.error_response(tuple(codes), operation.headers)
        item: dict[str, Any] = {
            "operationId": operation.operation_id,
            "tags": [operation.tag],
            "summary": operation.summary,
            "parameters": parameters,
            "responses": responses,
        }
        if operation.description:
            item["description"] = operation.description
        if operation.body is not None:
            item["requestBody"] = self.content_of(operation.body)
        if secured:
            item["security"] = [{"bearer": []}]
        self.spec.path(path=path, operations={method: item})

    def answer(
        self, answer: dict[str, Any], headers: tuple[str, ...], status: int
    ) -> dict[str, Any]:
        names = list(dict.fromkeys([REQUEST_ID_HEADER, *headers, *answer["headers"]]))
        found = {**self.content_of(answer), "headers": _header_refs(names, status)}
        if not found["content"]:
            del found["content"]
        return found

    @staticmethod
    def content_of(declared: dict[str, Any]) -> dict[str, Any]:
        found = {key: value for key, value in declared.items() if key not in ("examples",)}
        found["content"] = {media: dict(item) for media, item in declared["content"].items()}
        examples = declared.get("examples")
        for media, named in (examples() if examples else {}).items():
            found["content"][media]["examples"] = {
                name: {"value": value} for name, value in named.items()
            }
        found.pop("headers", None)
        return found


def _header_refs(names: list[str], status: int) -> dict[str, str]:
    """Each header by its component; an answer of a status the HTTP server also answers itself
    may lack ``X-Request-ID``."""
    refs = {name: name for name in names}
    if status in WORKER_STATUSES:
        refs[REQUEST_ID_HEADER] = REQUEST_ID_IF_ANY
    return refs


def _annotation_map(self: Any, field: fields.Field, **kwargs: Any) -> dict[str, Any]:
    """``AnnotationValue``: an annotation map of which only one key is read."""
    if not isinstance(field, AnnotationValue):
        return {}
    return {
        "description": f"Annotations; only `{field.key}` is read, and it must be a string.",
        "properties": {field.key: {"type": ["string", "null"], "maxLength": MAX_VALUE_CHARS}},
    }


def _binary_size(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:g} {unit}"
    return f"{count} B"


def _stateless(app: Flask, rule: Rule) -> bool:
    """Whether ``rule`` is a stateless endpoint, which ``stateless_access`` guards (its
    blueprint's hook, on a path that is no catalog's)."""
    blueprint = rule.endpoint.rpartition(".")[0]
    guarded = stateless_access in app.before_request_funcs.get(blueprint, ())
    return guarded and not rule.rule.startswith("/v1/clusters/")


def build_spec(app: Flask) -> dict[str, Any]:
    """The OpenAPI document of ``app``'s routes, with its deployment's limits."""
    max_runtimes = app.config["MAX_RUNTIMES"]
    builder = _Builder(app.config["MAX_CONTENT_LENGTH"], max_runtimes)
    for rule in sorted(app.url_map.iter_rules(), key=lambda rule: rule.rule):
        operation = operation_of(app.view_functions[rule.endpoint])
        if operation is None:
            raise LookupError(f"{rule.endpoint} ({rule.rule}) declares no operation")
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        secured = app.config["AUTH_STATELESS"] and _stateless(app, rule)
        for method in sorted((rule.methods or set()) - AUTOMATIC_METHODS):
            arguments = re.findall(r"<(?:[^:>]+:)?([^>]+)>", rule.rule)
            builder.add(path, method.lower(), operation, arguments, secured)
    document = builder.spec.to_dict()
    runtimes = document["components"]["schemas"]["RankRequest"]["properties"]["runtimes"]
    runtimes["maxItems"] = max_runtimes  # more is a 413 PayloadTooLarge
    return document


def spec_for(app: Flask) -> dict[str, Any]:
    """The application's spec, built on first use."""
    document = app.extensions.get("openapi_spec")
    if document is None:
        document = app.extensions["openapi_spec"] = build_spec(app)
    return document
