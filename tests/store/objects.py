"""Stored objects built from manifests the way the service builds them: the schemas of SPEC §1."""

from __future__ import annotations

from typing import Any

from app.store import StoredObject
from tests.builders import entry, isvc_doc, loaded, model_doc, runtime_doc


def stored(manifest: dict[str, Any]) -> StoredObject:
    kind = manifest["kind"]
    metadata = manifest["metadata"]
    return StoredObject(
        kind,
        metadata.get("namespace"),
        metadata["name"],
        manifest,
        loaded(manifest),
    )


def runtime(name: str, *, namespace: str | None = None, weight: int = 1, **spec: Any):
    """A ClusterServingRuntime, or a ServingRuntime when given a namespace."""
    kind = "ClusterServingRuntime" if namespace is None else "ServingRuntime"
    manifest = runtime_doc(name, entry(weight=weight), kind=kind, namespace=namespace, **spec)
    return stored(manifest)


def model(name: str = "llama", *, namespace: str | None = "demo", **spec: Any) -> StoredObject:
    kind = "BaseModel" if namespace is not None else "ClusterBaseModel"
    return stored(model_doc(name, kind=kind, namespace=namespace, **spec))


def isvc(name: str = "svc", *, namespace: str = "demo", **spec: Any) -> StoredObject:
    return stored(isvc_doc(name, namespace=namespace, model={"name": "llama"}, **spec))


def catalog(tag: str, count: int) -> list[StoredObject]:
    """``count`` runtimes whose names say which catalog they belong to, and one model."""
    runtimes = [runtime(f"{tag}-{n:04d}", weight=n % 7 + 1) for n in range(count)]
    return [model(f"model-{tag}"), *runtimes]
