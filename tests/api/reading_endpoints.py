"""Every endpoint that reads documents, each asked about one model whose ``modelFormat.version``
the test chooses, and the catalog of two tenants, for the tests of what a value's length or
digits may cost (SPEC §17 "Safe to share")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from tests.builders import isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime

CLUSTER = "c"  # the tests create it first: the catalog endpoints read or write it
YAML = {"Content-Type": "application/yaml"}


def stream(*documents: dict) -> bytes:
    return yaml.safe_dump_all(documents, sort_keys=False).encode()


def model(version: str = "1.0.0", name: str = "llama", namespace: str = "demo") -> dict:
    return model_doc(name, namespace=namespace, format_version=version)


def isvc(model_name: str = "llama", namespace: str = "demo", name: str = "svc", **spec) -> dict:
    spec.setdefault("engine", {})
    return isvc_doc(name, namespace=namespace, model={"name": model_name}, **spec)


def requests(version: str) -> Iterator[tuple[str, str, dict[str, Any], str]]:
    """(method, path, the test client's keyword arguments, the version's path in an error) of
    every endpoint that reads a model document, the model's version set to ``version``."""
    documents = [model(version), runtime_doc("rt"), isvc()]
    body = rank_body(model(version), runtime_doc("rt"))
    in_body, in_stream = "model.spec.modelFormat.version", "document 1.spec.modelFormat.version"
    yield "POST", "/v1/rank", {"json": body}, in_body
    yield "POST", "/v1/select", {"json": body}, in_body
    yield "POST", "/v1/selections", {"json": documents}, in_stream
    sides = {"current": documents, "proposed": documents}
    yield "POST", "/v1/impact", {"json": sides}, "current 0.spec.modelFormat.version"
    yield "PUT", f"/v1/clusters/{CLUSTER}/objects", {"json": documents}, in_stream
    yield "POST", f"/v1/clusters/{CLUSTER}/objects", {"json": documents}, in_stream
    yield "POST", f"/v1/clusters/{CLUSTER}/rank", {"json": body}, in_body
    yield "POST", f"/v1/clusters/{CLUSTER}/select", {"json": body}, in_body
    yield "POST", f"/v1/clusters/{CLUSTER}/impact", {"json": documents}, in_stream


ENDPOINTS = [f"{method} {path}" for method, path, _, _ in requests("1")]


def request_of(endpoint: str, version: str) -> tuple[str, str, dict[str, Any], str]:
    return next(item for item in requests(version) if f"{item[0]} {item[1]}" == endpoint)


def tenants(version: str) -> list[dict]:
    """Namespace ``tenant-a``'s model (and the InferenceService that names it) with ``version``;
    ``tenant-b``'s, healthy; and a runtime for both."""
    return [
        model(version, "model-a", "tenant-a"),
        isvc("model-a", "tenant-a", "svc-a"),
        model("1.0.0", "model-b", "tenant-b"),
        isvc("model-b", "tenant-b", "svc-b"),
        runtime_doc("shared-rt"),
    ]


def assert_every_reader_answered(client) -> None:
    """What each tenant reads of the cluster: tenant-b's model gets the runtime, tenant-a's
    version matches nothing (as in OME), and every answer is given."""
    rows = client.get(f"/v1/clusters/{CLUSTER}/selections")
    assert rows.status_code == 200, rows.get_data(as_text=True)
    runtime_of = {row["name"]: row["runtime"] for row in rows.get_json()["selections"]}
    assert runtime_of["svc-b"]["name"] == "shared-rt"
    assert runtime_of["svc-a"] is None
    change = [serving_runtime("extra", namespace="tenant-b")]
    impact = client.post(f"/v1/clusters/{CLUSTER}/impact", json=change)
    assert impact.status_code == 200, impact.get_data(as_text=True)
    rank = client.get(f"/v1/clusters/{CLUSTER}/rank?model=model-b&namespace=tenant-b")
    assert (rank.status_code, rank.get_json()["selected"]["name"]) == (200, "shared-rt")
    poisoned = client.get(f"/v1/clusters/{CLUSTER}/rank?model=model-a&namespace=tenant-a")
    assert (poisoned.status_code, poisoned.get_json()["selected"]) == (200, None)
    for path in ("selections?namespace=tenant-a", "objects"):
        assert client.get(f"/v1/clusters/{CLUSTER}/{path}").status_code == 200
