"""What a view takes and answers, said beside its code: ``@described(...)`` keeps the OpenAPI
operation on the view function, for ``app.api.openapi`` to collect. Bodies and answers name
marshmallow schemas; errors are named by their code (``app.errors``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from app.reading.decoding import YAML_TYPES
from app.schemas.catalog_answers import MANIFEST, MANIFEST_ARRAY
from app.schemas.names import LABEL_MAX, NAMESPACE_PATTERN

JSON = "application/json"
YAML = "application/yaml"
TEXT = "text/plain"
# The media types a YAML body may come as.
YAML_BODIES = YAML_TYPES
# What a body that is one document comes as (app/http/body.py ``one_document``).
ONE_DOCUMENT = (JSON, *YAML_BODIES)
# ``Accept`` picks one of these (app/http/respond.py).
NEGOTIATED = (JSON, TEXT, YAML)

View = TypeVar("View", bound=Callable[..., Any])


@dataclass(frozen=True)
class Operation:
    """One operation; ``examples`` are computed when the description is built, not at import."""

    operation_id: str
    tag: str
    summary: str
    description: str | None = None
    parameters: tuple[Any, ...] = ()
    body: dict[str, Any] | None = None
    answers: dict[int, dict[str, Any]] = field(default_factory=dict)
    errors: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()  # response headers on every answer, errors too
    secured: bool = False


def described(operation_id: str, tag: str, summary: str, **details: Any) -> Callable[[View], View]:
    """Record the view's OpenAPI operation (``Operation``'s fields) on it."""
    operation = Operation(operation_id, tag, summary, **details)

    def record(view: View) -> View:
        view.openapi = operation  # type: ignore[attr-defined]
        return view

    return record


def operation_of(view: Callable[..., Any]) -> Operation | None:
    return getattr(view, "openapi", None)


def parameter(
    name: str, description: str, where: str = "query", *, required: bool = False, **schema: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "in": where,
        "required": required,
        "description": description,
        "schema": schema or {"type": "string"},
    }


def answer(
    description: str,
    schema: Any = None,
    media: Iterable[str] = (JSON,),
    *,
    headers: Iterable[str] = (),
    examples: Callable[[], dict[str, dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """A response: ``schema`` (a marshmallow schema, or a JSON schema) in each of ``media`` (text
    is a string), the named ``headers`` besides ``X-Request-ID``; ``examples`` gives
    ``{media type: {name: value}}`` when the description is built."""
    return {
        "description": description,
        "content": {media_type: _schema(media_type, schema) for media_type in media},
        "headers": tuple(headers),
        "examples": examples,
    }


def body(
    description: str,
    schema: Any,
    *,
    media: Iterable[str] = (JSON,),
    yaml: Any = None,
    required: bool = True,
    examples: Callable[[], dict[str, dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """A request body: ``schema`` in each of ``media``; with ``yaml``, also a YAML stream, each
    of its documents a value of that schema (``yaml_stream``)."""
    content = {media_type: {"schema": schema} for media_type in media}
    if yaml is not None:
        content.update({media_type: {"schema": yaml} for media_type in YAML_BODIES})
    return {
        "description": description,
        "required": required,
        "content": content,
        "examples": examples,
    }


def _schema(media_type: str, schema: Any) -> dict[str, Any]:
    if media_type.startswith("text/") or media_type == "image/svg+xml":
        return {"schema": {"type": "string"}}
    return {"schema": {"type": "object"} if schema is None else schema}


def yaml_stream(description: str, document: Any) -> dict[str, Any]:
    """A YAML body's schema: what one document parses to, ``document`` or null (an empty one,
    skipped). A stream of several (``---``) is no one value a schema can describe, so
    ``description`` says how they are read; a client may send one ``kind: List`` instead."""
    return {"description": description, "anyOf": [document, {"type": "null"}]}


# The vocabulary the views share.
ANY_OBJECT = {"type": "object"}
STREAM_TEXT = (
    "YAML: a `---`-separated stream of manifests and/or `kind: List` objects, as `kubectl apply "
    "-f` takes it (an empty document is skipped); the schema describes one of its documents."
)
MANIFESTS = body(
    "Manifests as `kubectl apply -f` takes them: a YAML stream, a JSON object (one object or a "
    "`kind: List`) or a JSON array. Other kinds are skipped and reported.",
    {"anyOf": [MANIFEST, MANIFEST_ARRAY]},
    yaml=yaml_stream(STREAM_TEXT, MANIFEST),
)


def ranking_body(
    description: str,
    request: Any,
    stream: str,
    examples: Callable[[], dict[str, dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """A ranking's body (rules §15): the ``request`` object, or manifests (JSON: one, a
    ``kind: List`` or an array; YAML: a stream of them, as ``stream`` says)."""
    return body(
        description,
        {"anyOf": [request, MANIFEST, MANIFEST_ARRAY]},
        yaml=yaml_stream(stream, MANIFEST),
        examples=examples,
    )


# A namespace (rules §17: a DNS-1123 label; empty counts as absent).
NAMESPACE_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": NAMESPACE_PATTERN,
    "maxLength": LABEL_MAX,
}
# Each catalog route's: a path's cluster name that is no DNS-1123 label, access, the store.
CATALOG_ERRORS = (
    "MalformedRequest",
    "Unauthorized",
    "Forbidden",
    "ClusterNotFound",
    "StoreUnavailable",
)
# Each route's that reads a stream of manifests.
STREAM_ERRORS = (
    "MalformedRequest",
    "PayloadTooLarge",
    "UnsupportedMediaType",
    "InvalidDocument",
    "LimitExceeded",
)
SETTINGS_PARAMETERS = ("OmeVersion", "ModelCacheProvider", "AcceleratorClassesKnown")
NOT_MODIFIED = answer(
    "Not modified: the ETag is still the one sent.", media=(), headers=("ETag", "Vary")
)
