"""The CRD schemas the API server validates OME's objects with (``openapi/``, vendored from
OME's repository at the commit in ``openapi/COMMIT``, with ``additions``), and the Kubernetes
``ObjectMeta`` every object's ``metadata`` is decoded as."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator, validators

from .additions import lay_over

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


Validator = validators.extend(
    Draft4Validator, type_checker=Draft4Validator.TYPE_CHECKER.redefine("integer", _integer)
)


@dataclass(frozen=True)
class KindSchema:
    kind: str
    schema: dict[str, Any]
    validator: Any  # a Validator
    status_subresource: bool  # a create then ignores `status` (it is still decoded strictly)


@cache
def kind_schema(kind: str) -> KindSchema:
    """The schema of ``kind``, read once per process."""
    served = json.loads((OPENAPI / f"ome.io_{PLURALS[kind]}.json").read_bytes())
    schema = served["schema"]  # read for this kind alone: changed in place
    schema["properties"]["metadata"] = OBJECT_META
    lay_over(kind, schema)
    return KindSchema(
        kind,
        schema,
        Validator(schema),
        "status" in served["subresources"],
    )
