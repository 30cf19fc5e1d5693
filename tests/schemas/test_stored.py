"""The stored form of an object (SPEC §17 "Stored is what is read"): what the rules read, with
name, namespace, labels and annotations, and nothing else; loading it gives the same document."""

from __future__ import annotations

import pytest
from marshmallow import fields

from app.reading.manifests import collect
from app.schemas.document_schemas import (
    inference_service_document_schema,
    model_document_schema,
    runtime_document_schema,
)
from app.schemas.objects import load_object
from app.schemas.stored import KEEP, SHAPES, Items, stored_form
from bench.manifests import rank_request_body
from tests import yaml_data
from tests.paths import FIXTURES, ROOT

READ_KINDS = ("BaseModel", "ClusterBaseModel", "ServingRuntime", "ClusterServingRuntime")
NOT_READ = ("env", "envFrom", "args", "command", "volumes", "volumeMounts", "containers", "status")


def manifests() -> list[dict]:
    """Every manifest the tests hold: the fixtures, the OME docs cases, realistic runtimes."""
    found = []
    for path in FIXTURES.glob("*.yaml"):
        found += [d for d in yaml_data.load_all(path.read_text()) if d is not None]
    for path in (ROOT / "tests" / "ome_docs" / "cases").glob("*.yaml"):
        for case in yaml_data.load(path.read_text()):
            found += [d for d in yaml_data.load_all(case["manifests"]) if d is not None]
    found += rank_request_body(60)["runtimes"]
    objects = [obj for _label, obj in collect(found)]
    return [obj for obj in objects if obj.get("kind") in (*READ_KINDS, "InferenceService")]


MANIFESTS = manifests()


def document_of(manifest: dict):
    errors: dict = {}
    loaded = load_object(manifest, "document", errors)
    return None if loaded is None else loaded[1]


def keys_in(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in keys_in(item)}
    if isinstance(value, list):
        return {key for item in value for key in keys_in(item)}
    return set()


def test_the_corpus_is_large_and_carries_what_is_not_read():
    assert len(MANIFESTS) > 200
    assert {"env", "args", "command"} <= keys_in(MANIFESTS)


def test_the_stored_form_loads_to_the_same_document():
    checked = 0
    for manifest in MANIFESTS:
        document = document_of(manifest)
        if document is None:
            continue  # an invalid object is never stored
        stored = stored_form(manifest)
        where = (manifest["kind"], manifest["metadata"]["name"])
        assert document_of(stored) == document, where
        assert stored_form(stored) == stored, where  # the stored form of itself: itself
        assert not keys_in(stored) & set(NOT_READ), where
        checked += 1
    assert checked > 200


def test_metadata_keeps_name_namespace_labels_and_annotations_but_last_applied():
    manifest = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ClusterServingRuntime",
        "metadata": {
            "name": "rt",
            "labels": {"team": "a"},
            "annotations": {
                "ome.io/inherit-from": "base",
                "kubectl.kubernetes.io/last-applied-configuration": '{"spec": {"env": "x"}}',
            },
            "uid": "1",
            "managedFields": [{"manager": "kubectl"}],
            "resourceVersion": "9",
        },
        "spec": {"engineConfig": {"annotations": {"ome.io/deploymentMode": "x", "other": "y"}}},
        "status": {"ready": True},
    }
    assert stored_form(manifest) == {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ClusterServingRuntime",
        "metadata": {
            "name": "rt",
            "labels": {"team": "a"},
            "annotations": {"ome.io/inherit-from": "base"},
        },
        "spec": {"engineConfig": {"annotations": {"ome.io/deploymentMode": "x"}}},
    }


def _leaves(schema, prefix: str = "") -> set[str]:
    found = set()
    for name, field in schema.fields.items():
        key = f"{prefix}{field.data_key or name}"
        if isinstance(field, fields.Nested):
            found |= _leaves(field.schema, key + ".")
        elif isinstance(field, fields.List) and isinstance(field.inner, fields.Nested):
            found |= _leaves(field.inner.schema, key + "[].")
        else:
            found.add(key)
    return found


def _shape_leaves(shape, prefix: str = "") -> set[str]:
    found = set()
    for key, value in shape.items():
        if value is KEEP:
            found.add(f"{prefix}{key}")
        elif isinstance(value, Items):
            found |= _shape_leaves(value.shape, f"{prefix}{key}[].")
        elif isinstance(value, dict):
            found |= _shape_leaves(value, f"{prefix}{key}.") | {f"{prefix}{key}"}
        else:
            found.add(f"{prefix}{key}")
    return found


@pytest.mark.parametrize(
    ("kind", "schema"),
    [
        ("ClusterBaseModel", model_document_schema),
        ("ServingRuntime", runtime_document_schema),
        ("InferenceService", inference_service_document_schema),
    ],
)
def test_every_field_a_schema_reads_is_kept(kind, schema):
    """The shape is derived from the schemas: a field added to one is kept without a list to
    update (the metadata is kept whole but for what the cluster adds)."""
    kept = _shape_leaves(SHAPES[kind])
    read = {leaf for leaf in _leaves(schema) if not leaf.startswith("metadata.")}
    assert read <= kept


@pytest.mark.parametrize(
    ("uri", "kept"),
    [
        ("pvc://models/llama", True),  # read: the InferenceService webhook's namespace rule
        ("hf://meta/llama?token=hf_secret", False),  # not read, and may carry a credential
        ("", False),
        (5, True),  # not a string: kept for the schema to refuse, as it refuses the manifest
        (["s3://bucket"], True),
    ],
)
def test_a_storage_uri_is_kept_when_read_or_refused(uri, kept):
    manifest = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ClusterBaseModel",
        "metadata": {"name": "llama"},
        "spec": {"modelFormat": {"name": "safetensors"}, "storage": {"storageUri": uri}},
    }
    storage = stored_form(manifest)["spec"]["storage"]
    assert storage == ({"storageUri": uri} if kept else {})
    if not isinstance(uri, str):
        assert document_of(manifest) is None and document_of(stored_form(manifest)) is None
