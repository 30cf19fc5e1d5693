"""What a catalog keeps of an object (rules §17 "Stored is what is read").

A catalog keeps, of each object, only the fields that selection, lint and placement read, plus
``metadata`` name, namespace, labels and annotations (``last-applied-configuration`` dropped).
Container ``env``, ``args``, ``command``, volumes and every other field are gone before anything
is stored, so that neither ``GET …/objects``, nor an answer, a log line or a stored byte carries
them: a token that may read a cluster's catalog sees less than Kubernetes RBAC on the objects
would show it.

What is read is what the document schemas (``documents.py``) declare, so the shape kept is
derived from them, not listed again: a nested schema keeps its own fields, a list of nested
schemas keeps them in every item, an annotation field keeps its one annotation, any other field
is kept whole. Fields the schemas do not model but lint reads are added here (``READ_BESIDES``).
The stored form of a valid manifest is valid and loads to the same document
(``tests/schemas/test_stored.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema, fields

from .accelerators import ACCELERATOR_CLASS_KIND, accelerator_class_document_schema
from .document_schemas import (
    ISVC_KIND,
    MODEL_KINDS,
    RUNTIME_KINDS,
    inference_service_document_schema,
    is_pvc_uri,
    model_document_schema,
    runtime_document_schema,
)
from .fields import AnnotationValue

KEEP = True  # the value is kept whole
# rules §17: the metadata a catalog keeps, whatever the schemas read of it.
METADATA = {"name": KEEP, "namespace": KEEP, "labels": KEEP, "annotations": KEEP}
DROPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


class Items:
    """The shape of every item of a list."""

    def __init__(self, shape: dict) -> None:
        self.shape = shape


class Values:
    """The shape of every value of a map (``additionalComponents``)."""

    def __init__(self, shape: dict) -> None:
        self.shape = shape


class KeepIf:
    """A value kept only when ``test`` holds for it (the key is dropped otherwise)."""

    def __init__(self, test: Any) -> None:
        self.test = test


def _shape_of_field(field: fields.Field) -> Any:
    if isinstance(field, fields.Nested):
        return _shape_of_schema(field.schema)
    if isinstance(field, fields.List) and isinstance(field.inner, fields.Nested):
        return Items(_shape_of_schema(field.inner.schema))
    if isinstance(field, fields.Dict) and isinstance(field.value_field, fields.Nested):
        return Values(_shape_of_schema(field.value_field.schema))
    if isinstance(field, AnnotationValue):
        return {field.key: KEEP}
    return KEEP


def _shape_of_schema(schema: Schema) -> dict:
    return {
        field.data_key or name: _shape_of_field(field)
        for name, field in schema.fields.items()
        if not field.dump_only
    }


def _merged(shape: dict, more: Mapping) -> dict:
    merged = dict(shape)
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged


_RUNNER = {"runner": {"image": KEEP}}
# rules §20.4: whether a component's runner sets resources decides whether a class's reach it.
_COMPONENT = {"runner": {"image": KEEP, "resources": KEEP}}
# What lint and the placement read that the document schemas do not model: whether an
# InferenceService's engine has a complete runner of its own (app/reading/object_streams.py
# ``has_full_runner``), and whether its components' runners set resources (rules §20.4).
READ_BESIDES: dict[str, dict] = {
    ISVC_KIND: {
        "spec": {
            "engine": {**_COMPONENT, "leader": _RUNNER, "worker": _RUNNER},
            "decoder": _COMPONENT,
        }
    },
}


def _kind_shape(schema: Schema, kind: str) -> dict:
    shape = _merged(_shape_of_schema(schema), READ_BESIDES.get(kind, {}))
    shape["metadata"] = METADATA
    return shape


def _read_storage_uri(value: Any) -> bool:
    """A PVC URI is read; another string is not. Any other value is kept for the schema to
    refuse, so that the stored form of an invalid manifest is refused as the manifest is."""
    return is_pvc_uri(value) or not isinstance(value, str)


def _model_shape(kind: str) -> dict:
    """A model's storage URI is read only when it names a PVC (the InferenceService webhook's
    namespace rule); any other URI, which may carry a credential, is not kept."""
    shape = _kind_shape(model_document_schema, kind)
    shape["spec"]["storage"]["storageUri"] = KeepIf(_read_storage_uri)
    return shape


SHAPES: dict[str, dict] = {
    **{kind: _model_shape(kind) for kind in MODEL_KINDS},
    **{kind: _kind_shape(runtime_document_schema, kind) for kind in RUNTIME_KINDS},
    ISVC_KIND: _kind_shape(inference_service_document_schema, ISVC_KIND),
    ACCELERATOR_CLASS_KIND: _kind_shape(accelerator_class_document_schema, ACCELERATOR_CLASS_KIND),
}


def _kept(value: Any, shape: Any) -> Any:
    """``value`` cut to ``shape``; a value of another type than the shape expects is kept as
    it is (a null, or what the schema refused: never stored)."""
    if shape is KEEP:
        return value
    if isinstance(shape, Items):
        if not isinstance(value, list):
            return value
        return [_kept(item, shape.shape) for item in value]
    if isinstance(shape, Values):
        if not isinstance(value, dict):
            return value
        return {key: _kept(item, shape.shape) for key, item in value.items()}
    if not isinstance(value, dict):
        return value
    return {
        key: _kept(item, shape[key])
        for key, item in value.items()
        if key in shape and not (isinstance(shape[key], KeepIf) and not shape[key].test(item))
    }


def stored_form(manifest: dict) -> dict:
    """The manifest as a catalog keeps it: what is read, and nothing else. A manifest of a
    kind no catalog holds keeps only ``apiVersion``, ``kind`` and its metadata."""
    kind: Any = manifest.get("kind")  # any JSON value; not a kind here: the default shape
    shape = SHAPES.get(kind) if isinstance(kind, str) else None
    if shape is None:
        shape = {"apiVersion": KEEP, "kind": KEEP, "metadata": METADATA}
    kept = _kept(manifest, shape)
    metadata = kept.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("annotations"), dict):
        annotations = metadata["annotations"]
        if any(key in annotations for key in DROPPED_ANNOTATIONS):
            annotations = {k: v for k, v in annotations.items() if k not in DROPPED_ANNOTATIONS}
            if annotations:
                metadata["annotations"] = annotations
            else:  # only what kubectl wrote there
                del metadata["annotations"]
    return kept
