"""What the API server answers to ``kubectl apply`` of an OME object before any webhook sees
it (rules §18 "Parity"): strict decoding against the CRD's structural schema (every field the
schema does not know is an unknown field), then the schema's validation (required fields,
types, enums, minimums, patterns), in the API server's words.

The schemas are OME's own (``schemas.py``), checked by ``jsonschema`` (draft 4, the dialect of
OpenAPI v3 schemas), whose errors are the answer; ``jsonschema-rs`` first says whether there are
any, much faster (bench/README.md § "Figures behind the code"), so a valid document never
reaches it. This module only walks
the structure for unknown fields, drops the nulls the API server drops, and writes the library's
findings as the API server writes them.
Linear in the size of the object; the recursion is bounded by the decoders' depth limit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from app.schemas.names import subdomain_problem
from app.selection.values import checkpoint, go_quote

from .schemas import PLURALS, FastCheck, KindSchema, kind_schema

if TYPE_CHECKING:  # jsonschema is imported when a document has errors to describe
    from jsonschema import ValidationError

KINDS = frozenset(PLURALS)
UNKNOWN_FIELD, REQUIRED, UNSUPPORTED, INVALID = "UnknownField", "Required", "Unsupported", "Invalid"
CODES = (UNKNOWN_FIELD, REQUIRED, UNSUPPORTED, INVALID)


@dataclass(frozen=True, slots=True)
class Refusal:
    """One answer of the API server: ``code`` and ``field`` are those of its first error."""

    code: str
    field: str
    message: str


def refusals(manifest: dict[str, Any]) -> tuple[Refusal, ...]:
    """The API server's refusals of a create of ``manifest`` (one of ``KINDS``), in the order
    fixing them reveals them: its unknown fields, then its validation's errors, the object's
    name first (the API server validates the metadata before the schema). Empty: accepted."""
    return refusals_of([manifest])[0]


def refusals_of(manifests: list[dict[str, Any]]) -> list[tuple[Refusal, ...]]:
    """``refusals`` of each manifest, judged together: one fast check of every document (its
    schemas cut down to the fields the manifests hold) before jsonschema describes the errors
    of those it refuses."""
    schemas = [kind_schema(str(manifest["kind"])) for manifest in manifests]
    check = FastCheck(list(zip(schemas, manifests, strict=True)))
    found = []
    for schema, manifest in zip(schemas, manifests, strict=True):
        checkpoint()
        found.append(_refusals(schema, manifest, check))
    return found


def _refusals(
    schema: KindSchema, manifest: dict[str, Any], check: FastCheck
) -> tuple[Refusal, ...]:
    kind = schema.kind
    found: list[Refusal] = []
    unknown: list[str] = []
    _unknown_fields(schema.schema, manifest, "", unknown)
    if unknown:
        listed = ", ".join(f"unknown field {go_quote(path)}" for path in unknown)
        found.append(
            Refusal(
                UNKNOWN_FIELD,
                unknown[0],
                f'{kind} in version "v1beta1" cannot be handled as a {kind}: '
                f"strict decoding error: {listed}",
            )
        )
    decoded = _without_nulls(schema.schema, manifest)
    if schema.status_subresource:
        decoded.pop("status", None)  # a create resets it
    errors = [
        *_name_errors(manifest),
        *(
            []
            if check.surely_valid(schema, decoded)
            else _field_errors(schema.validator.iter_errors(decoded), decoded)
        ),
    ]
    if errors:
        name = _name(manifest)
        texts = [text for _, _, text in errors]
        detail = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
        code, path, _ = errors[0]
        found.append(Refusal(code, path, f'The {kind} "{name}" is invalid: {detail}'))
    return tuple(found)


def _name(manifest: dict[str, Any]) -> str:
    metadata = manifest.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else ""


def _name_errors(manifest: dict[str, Any]) -> list[tuple[str, str, str]]:
    """A name that is set but not an RFC 1123 subdomain (one that is not a string is the
    schema's type error)."""
    name = _name(manifest)
    problem = subdomain_problem(name) if name else None
    return [] if problem is None else [(INVALID, "metadata.name", f"metadata.name: {problem}")]


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _unknown_fields(schema: dict[str, Any], value: Any, path: str, out: list[str]) -> None:
    """The paths strict decoding refuses, in document order: a field the schema does not
    declare where it neither keeps unknown fields nor allows additional properties (an object
    schema that declares nothing keeps nothing, as the API server's pruning reads it)."""
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        keeps = schema.get("x-kubernetes-preserve-unknown-fields") is True or additional is True
        if schema.get("type") != "object" and not properties and additional is None:
            return  # int-or-string, or a type error the validation reports
        for key, item in value.items():
            if key in properties:
                if isinstance(item, _CONTAINERS):  # a scalar holds no field
                    _unknown_fields(properties[key], item, _child(path, key), out)
            elif isinstance(additional, dict):
                if isinstance(item, _CONTAINERS):
                    _unknown_fields(additional, item, f"{path}[{key}]", out)
            elif not keeps:
                out.append(_child(path, key))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            if isinstance(item, _CONTAINERS):
                _unknown_fields(schema["items"], item, f"{path}[{index}]", out)


_CONTAINERS = (dict, list)


def _without_nulls(schema: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
    """``value`` as the API server validates it: a field whose value is null is dropped (no
    schema here is nullable), at any depth the schema describes."""
    properties = schema.get("properties") or {}
    additional = schema.get("additionalProperties")
    kept: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue
        if not isinstance(item, _CONTAINERS):
            kept[key] = item
            continue
        inner = properties.get(key, additional if isinstance(additional, dict) else None)
        kept[key] = _decoded(inner, item) if inner is not None else item
    return kept


def _decoded(schema: dict[str, Any], value: Any) -> Any:
    if isinstance(value, dict):
        return _without_nulls(schema, value)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_decoded(schema["items"], item) for item in value]
    return value


# --- the validation's errors, as the API server writes them -----------------------------------

_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    for python, name in _JSON_TYPES:
        if isinstance(value, python):
            return name
    return type(value).__name__


def _go_value(value: Any) -> str:
    """A value as ``field.Invalid`` prints it."""
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def _path(steps: Iterable[str | int]) -> str:
    path = ""
    for step in steps:
        path = f"{path}[{step}]" if isinstance(step, int) else _child(path, step)
    return path


def _field_errors(
    errors: Iterable[ValidationError], document: dict[str, Any]
) -> list[tuple[str, str, str]]:
    """(code, path, text) of each error, in document order, each text once."""
    keyed: list[tuple[tuple[int, ...], str, str, str]] = []
    positions: dict[int, dict[str, int]] = {}  # id(mapping) -> its keys' positions, once each
    for error in errors:
        checkpoint()
        steps = list(error.absolute_path)
        for code, at, text in _texts(error, steps):
            keyed.append((_document_order(document, at, positions), code, _path(at), text))
    keyed.sort(key=lambda item: item[0])
    seen: set[str] = set()
    found = []
    for _, code, path, text in keyed:
        if text not in seen:
            seen.add(text)
            found.append((code, path, text))
    return found


def _texts(error: ValidationError, steps: list[str | int]) -> list[tuple[str, list, str]]:
    path = _path(steps)
    # Any: what the keyword holds (jsonschema types it as possibly unset; it is set on an error)
    keyword, bound = error.validator, cast(Any, error.validator_value)
    instance = cast(Any, error.instance)
    if keyword == "required":
        missing = [name for name in bound if name not in instance]
        return [
            (REQUIRED, [*steps, name], f"{_path([*steps, name])}: Required value")
            for name in missing
        ]
    if keyword in ("type", "anyOf"):
        wanted = bound
        if keyword == "anyOf":
            wanted = ",".join(str(option.get("type")) for option in bound)
        actual = _json_type(instance)
        text = (
            f'{path}: Invalid value: "{actual}": {path} in body must be of type {wanted}: '
            f'"{actual}"'
        )
        return [(INVALID, steps, text)]
    if keyword == "enum":
        allowed = ", ".join(_go_value(value) for value in bound)
        text = f"{path}: Unsupported value: {_go_value(instance)}: supported values: {allowed}"
        return [(UNSUPPORTED, steps, text)]
    detail = _DETAILS.get(str(keyword), "is invalid")
    text = f"{path}: Invalid value: {_go_value(instance)}: {path} in body {detail.format(bound)}"
    return [(INVALID, steps, text)]


_DETAILS = {
    "minimum": "should be greater than or equal to {}",
    "maximum": "should be less than or equal to {}",
    "pattern": "should match '{}'",
    "minLength": "should be at least {} chars long",
    "maxLength": "should be at most {} chars long",
    "minItems": "should have at least {} items",
    "maxItems": "should have at most {} items",
}


def _document_order(
    document: Any, steps: Sequence[str | int], positions: dict[int, dict[str, int]]
) -> tuple[int, ...]:
    """Where a path comes in the document: each step's position among its siblings (a field
    that is absent, such as a missing required one, after those present). ``positions``
    keeps each mapping's key positions, so that many errors cost one pass over each."""
    order = []
    node = document
    for step in steps:
        if isinstance(node, dict):
            keys = positions.get(id(node))
            if keys is None:
                keys = positions[id(node)] = {key: index for index, key in enumerate(node)}
            order.append(keys.get(step, len(keys)) if isinstance(step, str) else len(keys))
            node = node.get(step) if isinstance(step, str) else None
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            order.append(step)
            node = node[step]
        else:
            order.append(0)
            node = None
    return tuple(order)


__all__ = ["CODES", "KINDS", "Refusal", "refusals", "refusals_of"]
