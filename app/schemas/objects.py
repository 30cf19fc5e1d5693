"""One stored object (rules §17): a manifest validated as §1 says, kept in its stored form.

A catalog holds what ``kubectl get … -o yaml`` prints, which carries what the cluster adds to
every object (``status``, ``resourceVersion``, ``managedFields`` …) and what no rule reads
(containers, their ``env`` and ``args`` …). Only what is read is kept (``stored.stored_form``):
a sync of an unchanged cluster then changes nothing, and keeps the catalog's generation (and
every cached answer), and no secret of a container reaches the store.

The plain, valid documents are loaded without marshmallow (``fast_runtime``,
``fast_documents``); the schemas, and the stored form derived from them, are imported the
first time a document needs them: a local lint of valid manifests never does.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from app.selection.values import AcceleratorClass, InferenceService, Model, Runtime

from .fast_documents import load_inference_service, load_model
from .fast_runtime import load_runtime
from .names import is_object_name
from .ome_kinds import ACCELERATOR_CLASS_KIND, API_VERSION, ISVC_KIND, MODEL_KINDS

CLUSTER_SCOPED = frozenset({"ClusterServingRuntime", "ClusterBaseModel", ACCELERATOR_CLASS_KIND})
DEFAULT_NAMESPACE = "default"  # where kubectl puts a namespaced object that names none

Loaded = Runtime | Model | InferenceService | AcceleratorClass


def _plain_document(manifest: dict) -> Runtime | Model | InferenceService | None:
    kind = manifest.get("kind")
    if kind in MODEL_KINDS:
        return load_model(manifest)
    if kind == ISVC_KIND:
        return load_inference_service(manifest)
    return load_runtime(manifest)


def _schema_document(manifest: dict, path: str, errors: dict[str, list[str]]) -> Loaded | None:
    """The document as the marshmallow schema of its kind loads it, or None with ``errors``
    filled at ``path``."""
    # Imported here: marshmallow and the schemas are a fifth of a local lint's time, and only a
    # document out of the plain loaders' reach needs them.
    from . import accelerators, document_schemas, requests

    schema: Any = {
        ACCELERATOR_CLASS_KIND: accelerators.accelerator_class_document_schema,
        ISVC_KIND: document_schemas.inference_service_document_schema,
        **dict.fromkeys(MODEL_KINDS, document_schemas.model_document_schema),
    }.get(str(manifest.get("kind")), document_schemas.runtime_document_schema)
    return requests.load_document(schema, manifest, path, errors)


def _stored_form(manifest: dict) -> dict:
    from .stored import stored_form  # derived from the schemas: imported with them

    return stored_form(manifest)


def load_object(
    manifest: dict, path: str, errors: dict[str, list[str]], *, store: bool = True
) -> tuple[dict, Loaded] | None:
    """(manifest to store, normalised document), or None with ``errors`` filled at ``path``.
    A namespaced object without a namespace lands in ``default``, as ``kubectl apply`` puts it;
    a cluster-scoped one keeps none. Not ``store``d (lint: no catalog keeps it), the manifest
    is kept as applied, its metadata a copy that takes the namespace as the stored form does."""
    kind = manifest.get("kind")
    document: Loaded | None = None
    if kind != ACCELERATOR_CLASS_KIND:
        document = _plain_document(manifest)
    if document is None:
        document = _schema_document(manifest, path, errors)
    if document is None:
        return None
    # A new dict down to metadata either way: changed here, not the body's.
    kept = _stored_form(manifest) if store else {**manifest, "metadata": dict(manifest["metadata"])}
    if isinstance(document, AcceleratorClass):
        kept["metadata"].pop("namespace", None)  # ignored by the API server (rules §20.1)
        return kept, document
    if kind in CLUSTER_SCOPED:
        if document.namespace is not None:  # the API server ignores it for cluster-scoped kinds
            document = dataclasses.replace(document, namespace=None)
            kept["metadata"].pop("namespace", None)
    elif document.namespace is None:
        document = dataclasses.replace(document, namespace=DEFAULT_NAMESPACE)
        kept["metadata"]["namespace"] = DEFAULT_NAMESPACE
    return kept, document


def class_identity_taken(manifest: dict, path: str, errors: dict[str, list[str]]) -> bool:
    """Whether the API server can create an AcceleratorClass under its name (its apiVersion,
    kind and name; lint leaves the rest to the CRD's schema), else False with ``errors`` filled
    at ``path`` (``AcceleratorClassIdentitySchema``'s refusals)."""
    api_version, metadata = manifest.get("apiVersion"), manifest.get("metadata")
    if (
        (api_version is None or api_version == API_VERSION)
        and manifest.get("kind") == ACCELERATOR_CLASS_KIND
        and type(metadata) is dict
        and is_object_name(metadata.get("name"))
    ):
        return True
    from . import accelerators, requests  # as in _schema_document: only for one out of the plain

    schema = accelerators.accelerator_class_identity_schema
    return requests.load_document(schema, manifest, path, errors) is not None
