"""Kinds and versions as kubectl maps them, through the API (rules §18, revision 3.1): lint
refuses in kubectl's words what ``kubectl apply`` refuses before any server sees it and goes on
with the rest; rank and select list those objects under ``ignored``; an object refused for its
name or its ``apiVersion`` still gets what would follow as ``AlsoRefused``."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.builders import isvc_doc, model_doc, retyped, runtime_doc, serving_runtime

SEED = (Path(__file__).resolve().parent.parent / "fixtures" / "seed_example.yaml").read_text()
YAML = {"Content-Type": "application/yaml"}
TYPO = 'no matches for kind "ServingRuntme" in version "ome.io/v1beta1"'
ALPHA = 'no matches for kind "ClusterServingRuntime" in version "ome.io/v1alpha1"'
MODEL_OR_RUNTIME = "at least one of spec.model or spec.runtime must be set"
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}


def body(*documents: dict, seed: bool = True) -> bytes:
    """The seed example (one model, four runtimes), then ``documents``."""
    extra = yaml.safe_dump_all(documents, sort_keys=False) if documents else ""
    return ((SEED + "---\n") if seed else "").encode() + extra.encode()


def lint(client, raw: bytes, **headers):
    response = client.post("/v1/lint", data=raw, headers={**YAML, **headers})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response


def findings(answer: dict, *, severity: str | None = None) -> list[tuple]:
    return [
        (f["severity"], f["kind"], f["namespace"], f["name"], f["field"], f["code"], f["message"])
        for f in answer["findings"]
        if severity in (None, f["severity"])
    ]


def test_lint_refuses_what_kubectl_would_not_map_and_lints_the_rest(client):
    raw = body(
        retyped(runtime_doc("typo"), kind="ServingRuntme"),
        {"metadata": {"name": "bare"}},
        retyped(runtime_doc("alpha"), api_version="ome.io/v1alpha1"),
        retyped(NAMESPACE, api_version=None),
        NAMESPACE,
        serving_runtime("zero", {"name": "x", "priority": 0}, namespace="llama-demo"),
    )
    answer = lint(client, raw).get_json()
    assert findings(answer, severity="error") == [
        (
            "error",
            None,
            None,
            "bare",
            "apiVersion",
            "Invalid",
            "[apiVersion not set, kind not set]",
        ),
        ("error", "ClusterServingRuntime", None, "alpha", "apiVersion", "NoKindMatch", ALPHA),
        ("error", "Namespace", None, "demo", "apiVersion", "Invalid", "apiVersion not set"),
        # the rest of the stream is linted all the same
        (
            "error",
            "ServingRuntime",
            "llama-demo",
            "zero",
            "spec.supportedModelFormats[0].priority",
            "Invalid",
            'The ServingRuntime "zero" is invalid: [spec.supportedModelFormats[0].priority: '
            "Invalid value: 0: spec.supportedModelFormats[0].priority in body should be greater "
            "than or equal to 1, spec.supportedModelFormats[0].modelFormat: Required value, "
            "spec.supportedModelFormats[0].modelFramework: Required value]",
        ),
        ("error", "ServingRuntme", None, "typo", "kind", "NoKindMatch", TYPO),
    ]
    assert answer["admitted"] is False
    # an object of another group stays ignored; one kubectl refuses is a finding, not ignored
    assert answer["ignored"] == [
        {
            "kind": "Namespace",
            "name": "demo",
            "namespace": None,
            "reason": "Namespace is not read by runtime selection",
        }
    ]


def test_lints_text_prints_kubectls_words(client):
    raw = body(retyped(runtime_doc("typo"), kind="ServingRuntme"), {"apiVersion": "v1"})
    text = lint(client, raw, Accept="text/plain").get_data(as_text=True)
    assert text.splitlines()[:2] == ["error: kind not set", f"error: {TYPO}"]


def test_an_object_without_api_version_is_not_part_of_the_cluster_but_is_judged(client):
    model = retyped(model_doc("llama", storage={"storageUri": "pvc://x"}), api_version=None)
    chat = isvc_doc("chat", engine={}, model={"name": "llama"})
    answer = lint(client, body(model, chat, seed=False)).get_json()
    assert findings(answer) == [
        ("error", "BaseModel", "demo", "llama", "apiVersion", "Invalid", "apiVersion not set"),
        (
            "error",
            "InferenceService",
            "demo",
            "chat",
            "spec.model.name",
            "ModelNotFound",
            'referenced model "llama" not found in namespace "demo": ensure a BaseModel exists '
            "in this namespace or a ClusterBaseModel exists cluster-wide with this name",
        ),
        (
            "info",
            "BaseModel",
            "demo",
            "llama",
            "spec.storage.storageUri",
            "AlsoRefused",
            'then: invalid PVC storage URI "pvc://x": invalid PVC storage URI format: missing '
            "subpath",
        ),
    ]


def test_an_object_refused_for_its_name_still_gets_the_webhooks_refusals(client):
    invalid = lint(client, body(isvc_doc("Invalid-Name"), seed=False)).get_json()
    valid = lint(client, body(isvc_doc("invalid-name"), seed=False)).get_json()
    assert findings(valid) == [
        (
            "error",
            "InferenceService",
            "demo",
            "invalid-name",
            "spec",
            "ModelOrRuntimeRequired",
            MODEL_OR_RUNTIME,
        ),
    ]
    assert findings(invalid) == [
        (
            "error",
            "InferenceService",
            "demo",
            "Invalid-Name",
            "metadata.name",
            "Invalid",
            'The InferenceService "Invalid-Name" is invalid: metadata.name: Invalid value: '
            f'"Invalid-Name": {SUBDOMAIN}',
        ),
        (
            "info",
            "InferenceService",
            "demo",
            "Invalid-Name",
            "metadata.name",
            "AlsoRefused",
            'then: invalid InferenceService name "Invalid-Name", must match '
            '"[a-z]([-a-z0-9]*[a-z0-9])?"',
        ),
        (
            "info",
            "InferenceService",
            "demo",
            "Invalid-Name",
            "spec",
            "AlsoRefused",
            f"then: {MODEL_OR_RUNTIME}",
        ),
    ]


def test_a_refused_name_comes_first_in_the_api_servers_message(client):
    model = {**model_doc("Bad_Model"), "spec": {"modelFormat": {"name": "a"}}}
    (finding,) = findings(lint(client, body(model, seed=False)).get_json())
    assert finding[4:] == (
        "metadata.name",
        "Invalid",
        'The BaseModel "Bad_Model" is invalid: [metadata.name: Invalid value: "Bad_Model": '
        f"{SUBDOMAIN}, spec.storage: Required value]",
    )


def test_rank_lists_what_it_did_not_read_with_kubectls_words(client):
    raw = body(retyped(runtime_doc("typo"), kind="ServingRuntme"), {"metadata": {"name": "x"}})
    answer = client.post("/v1/rank", data=raw, headers=YAML).get_json()
    assert answer["selected"]["name"] == "team-llama"  # the rest is read as before
    assert answer["ignored"] == [  # by namespace, name, kind
        {"kind": "ServingRuntme", "name": "typo", "scope": None, "namespace": None, "reason": TYPO},
        {
            "kind": None,
            "name": "x",
            "scope": None,
            "namespace": None,
            "reason": "[apiVersion not set, kind not set]",
        },
    ]


def test_select_lists_them_only_when_there_are_some(client):
    plain = client.post("/v1/select", data=body(NAMESPACE), headers=YAML).get_json()
    assert "ignored" not in plain  # another kind: as before
    alpha = retyped(runtime_doc("alpha"), api_version="ome.io/v1alpha1")
    answer = client.post("/v1/select", data=body(NAMESPACE, alpha), headers=YAML).get_json()
    assert answer["selected"]["name"] == "team-llama"
    assert answer["ignored"] == [
        {
            "kind": "ClusterServingRuntime",
            "name": "alpha",
            "scope": None,
            "namespace": None,
            "reason": ALPHA,
        }
    ]
    assert {key: plain[key] for key in plain} == {key: answer[key] for key in plain}


def test_over_a_catalog_a_stored_object_stays_when_the_bodys_is_refused(client):
    """kubectl refuses the body's model, so the cluster keeps the stored one: the
    InferenceService finds it, and the model is judged as the body gives it, after its error."""
    stored = model_doc("llama", storage={"storageUri": "hf://meta/llama"})
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    put = client.put("/v1/clusters/prod/objects", data=body(stored, seed=False), headers=YAML)
    assert put.status_code == 200
    unversioned = retyped(
        {**stored, "spec": {"storage": {"storageUri": "pvc://x"}}}, api_version=None
    )
    chat = isvc_doc("chat", runtime={"name": "vllm"}, model={"name": "llama"})
    response = client.post(
        "/v1/clusters/prod/lint", data=body(unversioned, chat, seed=False), headers=YAML
    )
    assert [(f[0], f[1], f[5], f[6][:40]) for f in findings(response.get_json())] == [
        ("error", "BaseModel", "Invalid", "apiVersion not set"),
        ("info", "BaseModel", "AlsoRefused", 'then: invalid PVC storage URI "pvc://x":'),
    ]
