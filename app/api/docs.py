"""``/openapi.json`` and ``/docs``: the OpenAPI description, raw and as a web page.

The page is rendered on the server from the spec itself, in one HTML document with inline CSS
and no script: it works offline and behind any proxy, and its Content-Security-Policy forbids
loading anything from anywhere.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Blueprint, Response, current_app, render_template
from markupsafe import Markup, escape

from app.http.described import JSON, YAML_BODIES, answer, described
from app.rendering.encode import to_yaml

from .openapi import spec_for

bp = Blueprint("documentation", __name__, template_folder="templates")

DOCS_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"  # rules §17: no page of the service can be framed
)
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_CODE = re.compile(r"`([^`]+)`")


def inline(text: str | None) -> Markup:
    """Escaped text, with `backticks` as <code>."""
    return Markup(_CODE.sub(r"<code>\1</code>", str(escape(text or ""))))


def prose(text: str | None) -> Markup:
    """Escaped paragraphs, with `backticks` as <code>."""
    paragraphs = (text or "").split("\n\n")
    return Markup("").join(
        Markup("<p>{}</p>").format(inline(part)) for part in paragraphs if part.strip()
    )


def _resolve(spec: dict, item: dict) -> dict:
    """Follow a local ``$ref`` (``#/components/...``) once."""
    ref = item.get("$ref")
    if ref is None:
        return item
    node: Any = spec
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def type_label(schema: dict | None) -> Markup:
    """A short type: ``string``, ``integer | null``, ``array of <a>RuntimeRow</a>`` …"""
    if not schema:
        return Markup("any")
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return Markup('<a href="#schema-{0}">{0}</a>').format(name)
    if "anyOf" in schema:
        return Markup(" | ").join(type_label(option) for option in schema["anyOf"])
    kinds = schema.get("type", "any")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    labels = []
    for kind in kinds:
        if kind == "array":
            labels.append(Markup("array of ") + type_label(schema.get("items")))
        elif kind == "object" and isinstance(schema.get("additionalProperties"), dict):
            labels.append(Markup("map of ") + type_label(schema["additionalProperties"]))
        else:
            labels.append(escape(kind))
    return Markup(" | ").join(labels)


def constraints(schema: dict) -> str:
    parts = []
    if "enum" in schema:
        parts.append("one of " + ", ".join(json.dumps(value) for value in schema["enum"]))
    for key in ("minimum", "maxItems", "minLength", "maxLength", "pattern"):
        if key in schema:
            parts.append(f"{key} {schema[key]}")
    return "; ".join(parts)


def example_text(value: Any, media_type: str = JSON) -> str:
    """An example as its media type writes it: text as it is, YAML as YAML, else JSON."""
    if isinstance(value, str):
        return value
    if media_type in YAML_BODIES:
        return to_yaml(value).decode("utf-8")
    return json.dumps(value, indent=2, ensure_ascii=False)


def _operations(spec: dict) -> list[dict]:
    operations = []
    for path, item in spec["paths"].items():
        for method in HTTP_METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            responses = []
            for status, response in operation["responses"].items():
                resolved = _resolve(spec, response)
                headers = {
                    name: _resolve(spec, header)
                    for name, header in resolved.get("headers", {}).items()
                }
                responses.append({"status": status, "headers": headers, **resolved})
            operations.append(
                {
                    **operation,
                    "anchor": f"{method}-{path.strip('/').replace('/', '-').replace('.', '-')}",
                    "method": method.upper(),
                    "path": path,
                    "parameters": [_resolve(spec, p) for p in operation.get("parameters", [])],
                    "responses": responses,
                }
            )
    return operations


@bp.get("/openapi.json")
@described(
    "openapiSpec",
    "documentation",
    "This OpenAPI description",
    description="OpenAPI 3.1, built from the service's views and marshmallow schemas.",
    answers={200: answer("The description.")},
)
def openapi_json() -> Response:
    payload = json.dumps(spec_for(current_app), ensure_ascii=True, separators=(",", ":"))
    return Response(payload, status=200, content_type="application/json")


@bp.get("/docs")
@described(
    "apiDocs",
    "documentation",
    "This description as a web page",
    description="A self-contained HTML page (no external assets), rendered from `/openapi.json`.",
    answers={200: answer("The page.", media=("text/html",))},
)
def docs() -> Response:
    spec = spec_for(current_app)
    page = render_template(
        "documentation/docs.html",
        spec=spec,
        operations=_operations(spec),
        prose=prose,
        inline=inline,
        type_label=type_label,
        constraints=constraints,
        example_text=example_text,
    )
    response = Response(page, status=200, content_type="text/html; charset=utf-8")
    response.headers["Content-Security-Policy"] = DOCS_CSP
    response.headers["X-Frame-Options"] = "DENY"  # browsers that predate frame-ancestors
    return response
