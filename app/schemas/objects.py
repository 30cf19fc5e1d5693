"""One stored object (SPEC §17): a manifest validated as §1 says, normalised for the store.

A catalog holds what ``kubectl get … -o yaml`` prints, which carries what the cluster adds to
every object (``status``, ``resourceVersion``, ``managedFields`` …). Those change on every sync
without changing anything selection reads, so they are dropped before the manifest is stored:
a sync of an unchanged cluster then changes nothing, and keeps the catalog's generation (and
every cached answer).
"""

from __future__ import annotations

import copy
import dataclasses

from app.selection.documents import InferenceService, Model, Runtime

from .documents import (
    ISVC_KIND,
    MODEL_KINDS,
    inference_service_document_schema,
    model_document_schema,
    runtime_document_schema,
)
from .fast_runtime import load_runtime
from .requests import load_document

CLUSTER_SCOPED = frozenset({"ClusterServingRuntime", "ClusterBaseModel"})
DEFAULT_NAMESPACE = "default"  # where kubectl puts a namespaced object that names none
# What the API server writes into an object, never what its author declares.
SERVER_METADATA = (
    "resourceVersion",
    "managedFields",
    "uid",
    "creationTimestamp",
    "generation",
    "selfLink",
)
SERVER_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


def as_written(manifest: dict) -> dict:
    """The manifest without what the cluster adds to it."""
    kept = {key: value for key, value in manifest.items() if key != "status"}
    metadata = kept.get("metadata")
    if isinstance(metadata, dict):
        metadata = {key: value for key, value in metadata.items() if key not in SERVER_METADATA}
        annotations = metadata.get("annotations")
        if isinstance(annotations, dict) and any(a in annotations for a in SERVER_ANNOTATIONS):
            annotations = {k: v for k, v in annotations.items() if k not in SERVER_ANNOTATIONS}
            metadata["annotations"] = annotations
        kept["metadata"] = metadata
    return kept


def load_object(
    manifest: dict, path: str, errors: dict[str, list[str]]
) -> tuple[dict, Runtime | Model | InferenceService] | None:
    """(manifest to store, normalised document), or None with ``errors`` filled at ``path``.
    A namespaced object without a namespace lands in ``default``, as ``kubectl apply`` puts it."""
    kind = manifest.get("kind")
    if kind in MODEL_KINDS:
        document = load_document(model_document_schema, manifest, path, errors)
    elif kind == ISVC_KIND:
        document = load_document(inference_service_document_schema, manifest, path, errors)
    else:
        document = load_runtime(manifest)
        if document is None:
            document = load_document(runtime_document_schema, manifest, path, errors)
    if document is None:
        return None
    stored = as_written(manifest)
    if kind in CLUSTER_SCOPED:
        if document.namespace is not None:  # the API server ignores it for cluster-scoped kinds
            document = dataclasses.replace(document, namespace=None)
            stored = copy.deepcopy(stored)
            stored["metadata"].pop("namespace", None)
    elif document.namespace is None:
        document = dataclasses.replace(document, namespace=DEFAULT_NAMESPACE)
        stored = copy.deepcopy(stored)
        stored["metadata"]["namespace"] = DEFAULT_NAMESPACE
    return stored, document
