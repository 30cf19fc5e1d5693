"""OME's BaseModel and ClusterBaseModel webhook (rules §18): the storage URI's shape, ``pvc://``
and ``stage://``, with OME's texts. It reads nothing else and warns of nothing."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from ..values import get, go_quote
from .findings import Refusal
from .storage_uris import PVC, STAGE, parse_pvc


def _pvc(spec: Any, uri: str, cluster: bool) -> str | None:
    if get(spec, "distribution") == "Sharded":
        return (
            "PVC storage URIs are not compatible with distribution=Sharded; use "
            "distribution=PerNode (or omit) for pvc:// models"
        )
    parsed = parse_pvc(uri)
    if isinstance(parsed, str):
        return f"invalid PVC storage URI {go_quote(uri)}: {parsed}"
    namespace = parsed[0]
    if cluster and not namespace:
        return (
            "ClusterBaseModel PVC URI must specify a namespace (format: "
            f"pvc://{{namespace}}:{{pvc-name}}/{{sub-path}}), got {go_quote(uri)}"
        )
    if not cluster and namespace:
        return (
            "namespaced BaseModel PVC URI must not specify a namespace; the BaseModel's own "
            f"namespace is used, got {go_quote(uri)}"
        )
    return None


def _stage(spec: Any, uri: str) -> str | None:
    source = uri.removeprefix(STAGE)
    if not source.startswith("/") or ".." in source.split("/"):
        return (
            f"invalid stage storage URI {go_quote(uri)}: the source {go_quote(source)} must be "
            "an absolute path without .. segments"
        )
    path = get(spec, "storage", "path")
    if not isinstance(path, str) or not path:
        return "stage:// storage requires spec.storage.path to name the node-local destination"
    cleaned = posixpath.normpath(path)
    if cleaned.startswith("//"):
        cleaned = "/" + cleaned.lstrip("/")  # Go's path.Clean keeps one leading slash
    if not cleaned.startswith("/"):
        return f"stage:// spec.storage.path must be an absolute path, got {go_quote(path)}"
    root = posixpath.normpath(source)
    if cleaned == root or cleaned.startswith(root.rstrip("/") + "/"):
        return (
            f"stage:// spec.storage.path {go_quote(cleaned)} must not be inside the source "
            f"{go_quote(root)}"
        )
    return None


def model_refusals(manifest: Mapping[str, Any]) -> list[Refusal]:
    """The webhook's refusal of a model as applied (it has one check at most per URI)."""
    spec = get(manifest, "spec")
    uri = get(spec, "storage", "storageUri")
    if not isinstance(uri, str):
        return []
    field = "spec.storage.storageUri"
    if uri.startswith(PVC):
        text = _pvc(spec, uri, manifest.get("kind") == "ClusterBaseModel")
        return [] if text is None else [("InvalidStorage", field, text)]
    if uri.startswith(STAGE):
        text = _stage(spec, uri)
        return [] if text is None else [("InvalidStorage", field, text)]
    return []
