"""One stored object (rules §17): a manifest validated as §1 says, kept in its stored form.

A catalog holds what ``kubectl get … -o yaml`` prints, which carries what the cluster adds to
every object (``status``, ``resourceVersion``, ``managedFields`` …) and what no rule reads
(containers, their ``env`` and ``args`` …). Only what is read is kept (``stored.stored_form``):
a sync of an unchanged cluster then changes nothing, and keeps the catalog's generation (and
every cached answer), and no secret of a container reaches the store.
"""

from __future__ import annotations

import dataclasses

from app.selection.values import AcceleratorClass, InferenceService, Model, Runtime

from .accelerators import ACCELERATOR_CLASS_KIND, accelerator_class_document_schema
from .document_schemas import (
    ISVC_KIND,
    MODEL_KINDS,
    inference_service_document_schema,
    model_document_schema,
    runtime_document_schema,
)
from .fast_runtime import load_runtime
from .requests import load_document
from .stored import stored_form

CLUSTER_SCOPED = frozenset({"ClusterServingRuntime", "ClusterBaseModel", ACCELERATOR_CLASS_KIND})
DEFAULT_NAMESPACE = "default"  # where kubectl puts a namespaced object that names none


def load_object(
    manifest: dict, path: str, errors: dict[str, list[str]]
) -> tuple[dict, Runtime | Model | InferenceService | AcceleratorClass] | None:
    """(manifest to store, normalised document), or None with ``errors`` filled at ``path``.
    A namespaced object without a namespace lands in ``default``, as ``kubectl apply`` puts it;
    a cluster-scoped one keeps none."""
    kind = manifest.get("kind")
    if kind == ACCELERATOR_CLASS_KIND:
        accelerator = load_document(accelerator_class_document_schema, manifest, path, errors)
        if accelerator is None:
            return None
        stored = stored_form(manifest)
        stored["metadata"].pop("namespace", None)  # ignored by the API server (rules §20.1)
        return stored, accelerator
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
    stored = stored_form(manifest)  # a new dict down to metadata: changed here, not the body's
    if kind in CLUSTER_SCOPED:
        if document.namespace is not None:  # the API server ignores it for cluster-scoped kinds
            document = dataclasses.replace(document, namespace=None)
            stored["metadata"].pop("namespace", None)
    elif document.namespace is None:
        document = dataclasses.replace(document, namespace=DEFAULT_NAMESPACE)
        stored["metadata"]["namespace"] = DEFAULT_NAMESPACE
    return stored, document
