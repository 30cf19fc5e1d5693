"""Small builders for request documents, so tests state only what they vary, and the documents
the service reads of them; a token file; and a recorded cluster dump whose objects carry
secrets, which no answer may show."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import yaml

from app.schemas.document_schemas import (
    inference_service_document_schema,
    model_document_schema,
    runtime_document_schema,
)
from tests.paths import FIXTURES

API = "ome.io/v1beta1"
# The schema that reads each kind of manifest into the document the rules read (SPEC §1).
SCHEMAS = {
    "ServingRuntime": runtime_document_schema,
    "ClusterServingRuntime": runtime_document_schema,
    "BaseModel": model_document_schema,
    "ClusterBaseModel": model_document_schema,
    "InferenceService": inference_service_document_schema,
}


def model_doc(
    name: str = "llama",
    *,
    kind: str = "BaseModel",
    namespace: str | None = "demo",
    format_name: str = "safetensors",
    format_version: str | None = "1.0.0",
    framework: str | None = "transformers",
    framework_version: str | None = "4.45.0",
    architecture: str | None = "LlamaForCausalLM",
    quantization: str | None = None,
    size: str | None = None,
    **spec: Any,
) -> dict:
    fmt: dict[str, Any] = {"name": format_name}
    if format_version is not None:
        fmt["version"] = format_version
    body: dict[str, Any] = {"modelFormat": fmt}
    if framework is not None:
        body["modelFramework"] = {"name": framework}
        if framework_version is not None:
            body["modelFramework"]["version"] = framework_version
    if architecture is not None:
        body["modelArchitecture"] = architecture
    if quantization is not None:
        body["quantization"] = quantization
    if size is not None:
        body["modelParameterSize"] = size
    body.update(spec)
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {"apiVersion": API, "kind": kind, "metadata": metadata, "spec": body}


def entry(
    *,
    format_name: str | None = "safetensors",
    format_version: str | None = "1.0.0",
    operator: str | None = None,
    weight: int | None = None,
    framework: str | None = "transformers",
    framework_version: str | None = "4.45.0",
    framework_weight: int | None = None,
    architecture: str | None = "LlamaForCausalLM",
    auto_select: bool | None = True,
    priority: int | None = None,
    **extra: Any,
) -> dict:
    item: dict[str, Any] = {}
    if format_name is not None:
        item["modelFormat"] = {"name": format_name}
        if format_version is not None:
            item["modelFormat"]["version"] = format_version
        if operator is not None:
            item["modelFormat"]["operator"] = operator
        if weight is not None:
            item["modelFormat"]["weight"] = weight
    if framework is not None:
        item["modelFramework"] = {"name": framework}
        if framework_version is not None:
            item["modelFramework"]["version"] = framework_version
        if framework_weight is not None:
            item["modelFramework"]["weight"] = framework_weight
    if architecture is not None:
        item["modelArchitecture"] = architecture
    if auto_select is not None:
        item["autoSelect"] = auto_select
    if priority is not None:
        item["priority"] = priority
    item.update(extra)
    return item


def runtime_doc(
    name: str,
    *entries: dict,
    kind: str = "ClusterServingRuntime",
    namespace: str | None = None,
    size_range: dict | None = None,
    **spec: Any,
) -> dict:
    body: dict[str, Any] = {"supportedModelFormats": list(entries) if entries else [entry()]}
    if size_range is not None:
        body["modelSizeRange"] = size_range
    body.update(spec)
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {"apiVersion": API, "kind": kind, "metadata": metadata, "spec": body}


def serving_runtime(name: str, *entries: dict, namespace: str | None = "demo", **spec) -> dict:
    return runtime_doc(name, *entries, kind="ServingRuntime", namespace=namespace, **spec)


def isvc_doc(name: str = "svc", *, namespace: str | None = "demo", annotations=None, **spec):
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    if annotations is not None:
        metadata["annotations"] = annotations
    return {"apiVersion": API, "kind": "InferenceService", "metadata": metadata, "spec": spec}


_KEEP: Any = object()


def retyped(document: dict, *, api_version: Any = _KEEP, kind: Any = _KEEP) -> dict:
    """``document`` with another ``apiVersion`` or ``kind`` (None: without one), the rest kept
    in place."""
    changed = dict(document)
    for key, value in (("apiVersion", api_version), ("kind", kind)):
        if value is None:
            changed.pop(key, None)
        elif value is not _KEEP:
            changed[key] = value
    return changed


def loaded(manifest: dict) -> Any:
    """The document the service reads of ``manifest``: a Runtime, Model or InferenceService."""
    return SCHEMAS[manifest["kind"]].load(manifest)


def rank_body(model: dict | None = None, *runtimes: dict, **extra: Any) -> dict:
    body = {"model": model or model_doc(), "runtimes": list(runtimes)}
    body.update(extra)
    return body


def token_file(path, *tokens: dict) -> str:
    """Write a token file (SPEC §17) of ``{"name", "secret", "read"?, "write"?}`` tokens,
    keeping only each secret's SHA-256 as the service expects; returns its path."""
    entries = []
    for token in tokens:
        entry = {k: v for k, v in token.items() if k != "secret"}
        entry["sha256"] = hashlib.sha256(token["secret"].encode()).hexdigest()
        entries.append(entry)
    path.write_text(yaml.safe_dump({"tokens": entries}))
    return str(path)


def json_paths(node: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every place in a JSON value, itself first: the keys and indices that lead there."""
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from json_paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from json_paths(value, (*path, index))


def reordered_keys(node: Any, order: Callable[[list], Iterable] = reversed) -> Any:
    """A JSON value with the keys of every mapping in it put in ``order`` (reversed: the last
    first); send it with ``data=json.dumps(...)``, as the test client's ``json=`` sorts them."""
    if isinstance(node, dict):
        return {key: reordered_keys(node[key], order) for key in order(list(node))}
    if isinstance(node, list):
        return [reordered_keys(item, order) for item in node]
    return node


def read_whole(wsgi_app: Callable) -> Callable:
    """``wsgi_app`` with each answer read whole and closed at once, for a client that never
    closes what it reads (a file answered would be left open: a ResourceWarning)."""

    def answered(environ: dict, start_response: Callable) -> list[bytes]:
        body = wsgi_app(environ, start_response)
        try:
            return [b"".join(body)]
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()

    return answered


MARKER = "s3cr3t-m4rk3r"
SECRET = {"name": "HF_TOKEN", "value": f"hf_{MARKER}_token"}


def with_secrets(manifest: dict) -> dict:
    """What a real cluster's objects carry besides what the rules read, a marker in each."""
    spec = manifest["spec"]
    runner = {
        "name": "ome-container",
        "image": "docker.io/vllm/vllm-openai:v0.9.0",
        "env": [SECRET, {"name": "ARGS", "valueFrom": {"secretKeyRef": {"name": MARKER}}}],
        "envFrom": [{"secretRef": {"name": f"{MARKER}-env"}}],
        "args": [f"--api-key={MARKER}"],
        "command": ["sh", "-c", f"serve --token {MARKER}"],
        "volumeMounts": [{"name": MARKER, "mountPath": "/secrets"}],
    }
    if manifest["kind"] == "InferenceService":
        spec.setdefault("engine", {})["runner"] = runner
        spec["engine"]["leader"] = {"runner": dict(runner)}
    elif "Runtime" in manifest["kind"]:
        spec.setdefault("engineConfig", {})["runner"] = runner
        spec["volumes"] = [{"name": MARKER, "secret": {"secretName": MARKER}}]
    else:
        spec["storage"] = {"storageUri": f"hf://org/model?token={MARKER}", "key": MARKER}
    manifest["status"] = {"message": MARKER}
    return manifest


def dump() -> bytes:
    """The recorded ``kubectl get -A -o yaml`` of the seed cluster, each object with secrets."""
    listing = yaml.safe_load((FIXTURES / "kubectl_get_seed_cluster.yaml").read_text())
    listing["items"] = [with_secrets(item) for item in listing["items"]]
    body = yaml.safe_dump(listing, sort_keys=False).encode()
    assert body.count(MARKER.encode()) > 30
    return body
