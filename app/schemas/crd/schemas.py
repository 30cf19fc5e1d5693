"""The CRD schemas the API server validates OME's objects with (``openapi/``, vendored from
OME's repository at the commit in ``openapi/COMMIT``, with ``additions``), and the Kubernetes
``ObjectMeta`` every object's ``metadata`` is decoded as."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from .additions import additions_of, lay_over

OPENAPI = Path(__file__).parent / "openapi"
PLURALS = {
    "ServingRuntime": "servingruntimes",
    "ClusterServingRuntime": "clusterservingruntimes",
    "InferenceService": "inferenceservices",
    "BaseModel": "basemodels",
    "ClusterBaseModel": "clusterbasemodels",
    "AcceleratorClass": "acceleratorclasses",
}
_STRING_MAP = {"additionalProperties": {"type": "string"}, "type": "object"}
_OBJECTS = {"items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
# metav1.ObjectMeta's fields (k8s.io/apimachinery): the API server decodes `metadata` as it, so
# any other field there is unknown.
OBJECT_META: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "generateName": {"type": "string"},
        "namespace": {"type": "string"},
        "selfLink": {"type": "string"},
        "uid": {"type": "string"},
        "resourceVersion": {"type": "string"},
        "generation": {"type": "integer"},
        "creationTimestamp": {"type": "string"},
        "deletionTimestamp": {"type": "string"},
        "deletionGracePeriodSeconds": {"type": "integer"},
        "labels": _STRING_MAP,
        "annotations": _STRING_MAP,
        "ownerReferences": {"type": "array", **_OBJECTS},
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "managedFields": {"type": "array", **_OBJECTS},
    },
}


def _integer(checker: Any, value: Any) -> bool:
    """kube-openapi's ``integer``: an int, or a float with an integral value (``1.0``), which
    draft 4's checker refuses."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


@cache
def validator_class() -> Any:
    """Draft 4 with kube-openapi's ``integer`` (jsonschema, imported on first use)."""
    from jsonschema import Draft4Validator, validators

    checker = Draft4Validator.TYPE_CHECKER.redefine("integer", _integer)
    return validators.extend(Draft4Validator, type_checker=checker)


@dataclass(frozen=True)
class KindSchema:
    kind: str
    schema: dict[str, Any]
    status_subresource: bool  # a create then ignores `status` (it is still decoded strictly)

    @property
    def validator(self) -> Any:
        """jsonschema's validator of the schema, whose errors are the API server's answer."""
        return _validator(self.kind)


# jsonschema's validator, built once per schema: kinds that share one (the two runtimes, whose
# files and additions are the same) share it. Keyed by the id of a schema kept for good.
_VALIDATORS: dict[int, Any] = {}


def _validator(kind: str) -> Any:
    schema = kind_schema(kind).schema
    if id(schema) not in _VALIDATORS:
        _VALIDATORS[id(schema)] = validator_class()(schema)
    return _VALIDATORS[id(schema)]


class FastCheck:
    """Whether documents have any error at all, by jsonschema-rs, much faster than jsonschema;
    only a document it refuses, or cannot read (a key that is not a string), goes to
    jsonschema, whose errors are the answer.

    Each schema is cut down to the fields the given documents hold before jsonschema-rs builds
    its validator: building one for the whole of a runtime's schema (~560 KB, mostly the
    containers' fields nobody sets) took longer than checking thousands of documents. A
    ``properties`` keyword only ever checks the fields present, so one without the others
    admits and refuses what the whole one does (draft 4; OME's schemas use no ``$ref``,
    ``patternProperties`` or ``dependencies``).

    It is never more lenient than jsonschema with kube-openapi's ``integer``: it reads ``1.0``
    as no integer, ``$`` as the end of the text alone, and checks no ``format``, as jsonschema
    does not here (tests/schemas/crd/test_schemas.py holds the two to each other)."""

    def __init__(self, documents: list[tuple[KindSchema, dict[str, Any]]]) -> None:
        held: dict[int, set[Any]] = {}  # id of a schema node: the keys found at it
        for schema, document in documents:
            held_fields(schema.schema, document, held)
        self._validators: dict[int, Any] = {}
        for schema, _ in documents:
            if id(schema.schema) not in self._validators:
                self._validators[id(schema.schema)] = jsonschema_rs.Draft4Validator(
                    cut_to_held(schema.schema, held), validate_formats=False
                )

    def surely_valid(self, schema: KindSchema, document: dict[str, Any]) -> bool:
        """True when ``document`` (one of those given, as validated) has no error."""
        try:
            return bool(self._validators[id(schema.schema)].is_valid(document))
        except (ValueError, TypeError, OverflowError):
            return False


def held_fields(schema: dict[str, Any], value: Any, held: dict[int, set[Any]]) -> None:
    """Adds the keys ``value`` holds at each node of ``schema`` it reaches to ``held``. A
    scalar holds none, so only mappings and sequences are walked into."""
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        keys = held.setdefault(id(schema), set())
        keys.update(value)
        for key, item in value.items():
            if not isinstance(item, _CONTAINERS):
                continue
            if key in properties:
                held_fields(properties[key], item, held)
            elif isinstance(additional, dict):
                held_fields(additional, item, held)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            if isinstance(item, _CONTAINERS):
                held_fields(schema["items"], item, held)
    for option in schema.get("anyOf") or ():
        held_fields(option, value, held)


_CONTAINERS = (dict, list)


def cut_to_held(schema: dict[str, Any], held: dict[int, set[Any]]) -> dict[str, Any]:
    """``schema`` with only the ``properties`` some document holds, at every depth."""
    cut: dict[str, Any] = {}
    for keyword, value in schema.items():
        if keyword == "properties":
            keys = held.get(id(schema), set())
            cut[keyword] = {
                name: cut_to_held(sub, held) for name, sub in value.items() if name in keys
            }
        elif keyword in ("items", "additionalProperties") and isinstance(value, dict):
            cut[keyword] = cut_to_held(value, held)
        elif keyword == "anyOf":
            cut[keyword] = [cut_to_held(option, held) for option in value]
        else:
            cut[keyword] = value
    return cut


@cache
def kind_schema(kind: str) -> KindSchema:
    """The schema of ``kind``, read once per process."""
    raw = (OPENAPI / f"ome.io_{PLURALS[kind]}.json").read_bytes()
    schema, status_subresource = _laid_over(raw, additions_of(kind))
    return KindSchema(kind, schema, status_subresource)


@cache
def _laid_over(raw: bytes, additions: tuple[int, ...]) -> tuple[dict[str, Any], bool]:
    """The schema a served CRD file holds, with ``ObjectMeta`` and ``additions``; one for every
    kind of the same file contents and additions."""
    served = json.loads(raw)
    schema = served["schema"]  # read for these alone: changed in place
    schema["properties"]["metadata"] = OBJECT_META
    lay_over(additions, schema)
    return schema, "status" in served["subresources"]
