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

    def surely_valid(self, document: dict[str, Any]) -> bool:
        """True when jsonschema-rs finds no error in ``document``; False when it finds one, or
        cannot read it (a key that is not a string), and jsonschema must say which. It is never
        more lenient here than jsonschema with kube-openapi's ``integer``: it reads ``1.0`` as
        no integer, ``$`` as the end of the text alone, and checks no ``format``, as jsonschema
        does not (tests/schemas/test_crd_fast_path.py holds the two to each other)."""
        try:
            return bool(_fast_validator(self.kind).is_valid(document))
        except (ValueError, TypeError, OverflowError):
            return False


# Each validator is built once per schema: kinds that share one (the two runtimes, whose files
# and additions are the same) share its validators. Keyed by the id of a schema kept for good.
_VALIDATORS: dict[int, Any] = {}
_FAST_VALIDATORS: dict[int, Any] = {}


def _validator(kind: str) -> Any:
    schema = kind_schema(kind).schema
    if id(schema) not in _VALIDATORS:
        _VALIDATORS[id(schema)] = validator_class()(schema)
    return _VALIDATORS[id(schema)]


def _fast_validator(kind: str) -> Any:
    schema = kind_schema(kind).schema
    if id(schema) not in _FAST_VALIDATORS:
        _FAST_VALIDATORS[id(schema)] = jsonschema_rs.Draft4Validator(schema, validate_formats=False)
    return _FAST_VALIDATORS[id(schema)]


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
