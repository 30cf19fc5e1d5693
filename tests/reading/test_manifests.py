"""SPEC §15: bodies as ``kubectl apply -f`` takes them — other kinds skipped and reported, JSON
manifests (one object, ``kind: List``, an array), repeated objects, models that are not Ready,
and the warnings that explain."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc

YAML = {"Content-Type": "application/yaml"}


def stream(*documents: dict) -> bytes:
    return yaml.safe_dump_all(documents, sort_keys=False).encode()


def ok(response) -> dict:
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}
KUSTOMIZATION = {
    "apiVersion": "kustomize.config.k8s.io/v1beta1",
    "kind": "Kustomization",
    "resources": ["model.yaml"],
}
CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cfg", "namespace": "demo"},
}


def test_other_kinds_are_skipped_and_listed(client):
    body = ok(
        client.post(
            "/v1/rank",
            data=stream(KUSTOMIZATION, NAMESPACE, model_doc(), CONFIG_MAP, runtime_doc("rt")),
            headers=YAML,
        )
    )
    assert body["selected"]["name"] == "rt"
    assert body["ignored"] == [
        {
            "kind": "Kustomization",
            "name": None,
            "scope": None,
            "namespace": None,
            "reason": "Kustomization is not read by runtime selection",
        },
        {
            "kind": "Namespace",
            "name": "demo",
            "scope": None,
            "namespace": None,
            "reason": "Namespace is not read by runtime selection",
        },
        {
            "kind": "ConfigMap",
            "name": "cfg",
            "scope": None,
            "namespace": "demo",
            "reason": "ConfigMap is not read by runtime selection",
        },
    ]


def test_other_kinds_inside_a_list_are_skipped_too(client):
    listed = {"apiVersion": "v1", "kind": "List", "items": [NAMESPACE, runtime_doc("rt")]}
    body = ok(client.post("/v1/rank", data=stream(model_doc(), listed), headers=YAML))
    assert [item["kind"] for item in body["ignored"]] == ["Namespace"]
    assert body["selected"]["name"] == "rt"


@pytest.mark.parametrize(
    "payload",
    [
        [model_doc(), runtime_doc("rt")],  # an array of manifests
        {"apiVersion": "v1", "kind": "List", "items": [model_doc(), runtime_doc("rt")]},
    ],
    ids=["array", "kubectl-get-o-json-list"],
)
def test_json_manifests_read_like_the_same_yaml_stream(client, payload):
    as_json = ok(client.post("/v1/rank", json=payload))
    documents = payload if isinstance(payload, list) else [payload]
    as_yaml = ok(client.post("/v1/rank", data=stream(*documents), headers=YAML))
    assert as_json == as_yaml
    assert as_json["selected"]["name"] == "rt"


def test_a_single_json_manifest_is_a_stream_of_one(client):
    body = ok(client.post("/v1/rank", json=model_doc()))
    assert body["runtimes"] == []
    assert body["message"] == (
        "no runtime found to support model safetensors with format safetensors in namespace demo"
    )
    runtime_only = client.post("/v1/rank", json=runtime_doc("rt"))
    assert runtime_only.status_code == 400
    assert (
        "exactly one BaseModel or ClusterBaseModel, found 0"
        in (runtime_only.get_json()["error"]["message"])
    )


def test_query_parameters_apply_to_json_manifests(client):
    body = ok(client.post("/v1/rank?namespace=other&omeVersion=1.2", json=[model_doc()]))
    assert (body["namespace"], body["omeVersion"]) == ("other", "1.2")


def test_a_repeated_model_or_inference_service_counts_once_with_a_warning(client):
    old_model = model_doc(format_version="9.9.9")
    isvc = isvc_doc(runtime={"name": "rt"})
    documents = [old_model, isvc, model_doc(), runtime_doc("rt"), isvc]
    body = ok(client.post("/v1/rank", data=stream(*documents), headers=YAML))
    assert body["warnings"] == [
        "BaseModel llama appears 2 times in the request; the last one is used",
        "InferenceService svc appears 2 times in the request; the last one is used",
    ]
    assert body["selected"] == {"name": "rt", "scope": "Cluster", "score": 2, "explicit": True}


def test_two_different_models_are_still_refused(client):
    documents = [model_doc("a"), model_doc("b")]
    response = client.post("/v1/rank", data=stream(*documents), headers=YAML)
    assert response.status_code == 400
    assert (
        "exactly one BaseModel or ClusterBaseModel, found 2"
        in (response.get_json()["error"]["message"])
    )


def test_an_inference_service_without_its_model_is_ome_s_model_lookup_failure(client):
    isvc = isvc_doc(model={"name": "llama-3-2-90b"})
    response = client.post(
        "/v1/rank", data=stream(isvc, NAMESPACE, runtime_doc("rt")), headers=YAML
    )
    assert response.status_code == 404
    assert response.get_json()["error"] == {
        "code": "ModelNotFound",
        "message": "No BaseModel or ClusterBaseModel with the name: llama-3-2-90b",
    }
    # OME's sample manifests include InferenceServices of an older schema (spec.model.modelName):
    # OME's lookup of the empty name fails the same way.
    nameless = client.post("/v1/rank", data=stream(isvc_doc(), runtime_doc("rt")), headers=YAML)
    assert nameless.status_code == 404
    assert nameless.get_json()["error"]["message"] == (
        "No BaseModel or ClusterBaseModel with the name: "
    )
    two = stream(isvc_doc("a"), isvc_doc("b"), runtime_doc("rt"))
    assert client.post("/v1/rank", data=two, headers=YAML).status_code == 400


def test_duplicate_runtimes_in_a_stream_last_one_wins(client):
    documents = [model_doc(), runtime_doc("rt", entry(priority=4)), runtime_doc("rt")]
    body = ok(client.post("/v1/rank", data=stream(*documents), headers=YAML))
    assert [row["score"] for row in body["runtimes"]] == [2]
    assert body["warnings"] == [
        "ClusterServingRuntime rt appears 2 times in the request; the last one is used"
    ]


# -- a model that is not Ready --------------------------------------------------------------

NOT_READY = "invalid model specification: modelFormat.name: model format name is required"


def unready(spec: dict) -> dict:
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ClusterBaseModel",
        "metadata": {"name": "llama-3-2-1b-instruct"},
        "spec": spec,
    }


@pytest.mark.parametrize(
    "spec",
    [
        {"storage": {"storageUri": "hf://meta-llama/Llama-3.2-1B-Instruct"}},
        {"modelFormat": {"name": ""}},
        {"modelFormat": {"version": "1.0.0"}},
        {"modelFormat": None},
    ],
    ids=["storage-only", "empty-name", "no-name", "null"],
)
@pytest.mark.parametrize("endpoint", ["/v1/rank", "/v1/select"])
def test_a_model_without_a_format_is_refused_as_ome_does(client, spec, endpoint):
    response = client.post(endpoint, json=rank_body(unready(spec), runtime_doc("rt")))
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert (error["code"], error["message"]) == ("ModelNotReady", NOT_READY)
    assert "model agent fills modelFormat" in error["hint"]


def test_model_not_ready_in_a_manifest_stream(client):
    documents = [unready({"storage": {}}), runtime_doc("rt"), NAMESPACE]
    response = client.post("/v1/rank", data=stream(*documents), headers=YAML)
    assert response.get_json()["error"]["code"] == "ModelNotReady"


# -- warnings that explain ------------------------------------------------------------------


def test_a_model_without_size_warns_that_ranges_play_no_part(client):
    runtimes = [
        runtime_doc("a", size_range={"min": "1B", "max": "8B"}),
        runtime_doc("b", size_range={"max": "8B"}),
        runtime_doc("c"),
        runtime_doc("off", disabled=True, modelSizeRange={"min": "1B"}),
    ]
    body = ok(client.post("/v1/rank", json=rank_body(model_doc(), *runtimes)))
    assert body["warnings"] == [
        "model has no modelParameterSize, so the modelSizeRange of 2 qualifying runtimes "
        "plays no part"
    ]
    sized = ok(client.post("/v1/rank", json=rank_body(model_doc(size="3B"), *runtimes)))
    assert sized["warnings"] == []


# -- integers as the CRD types them ---------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "path"),
    [
        (entry(priority=2**31), "runtimes[0].spec.supportedModelFormats[0].priority"),
        (entry(weight=2**63), "runtimes[0].spec.supportedModelFormats[0].modelFormat.weight"),
        (
            entry(framework_weight=-(2**63) - 1),
            "runtimes[0].spec.supportedModelFormats[0].modelFramework.weight",
        ),
    ],
)
def test_integers_beyond_the_crd_types_are_invalid_documents(client, item, path):
    response = client.post(
        "/v1/rank",
        data=json.dumps(rank_body(model_doc(), runtime_doc("rt", item))),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert list(response.get_json()["error"]["fields"]) == [path]


def test_an_integer_too_long_to_print_is_a_malformed_body(client):
    raw = json.dumps(rank_body(model_doc(), runtime_doc("rt", entry(priority=-7))))
    raw = raw.replace('"priority": -7', '"priority": ' + "9" * 5000)
    response = client.post("/v1/rank", data=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert "integer is too long" in response.get_json()["error"]["message"]


def test_the_largest_crd_integers_are_answered(client):
    item = entry(priority=2**31 - 1, weight=2**63 - 1)
    body = ok(client.post("/v1/rank", json=rank_body(model_doc(), runtime_doc("rt", item))))
    assert body["runtimes"][0]["priority"] == 2**31 - 1


def test_model_cache_provider_query_parameter_is_part_of_the_cached_answer(client):
    body = rank_body(
        model_doc(distribution="Sharded"), runtime_doc("rt", entry(modelCacheProviders=["a"]))
    )
    raw = json.dumps(body)
    headers = {"Content-Type": "application/json"}
    first = client.post("/v1/select?modelCacheProvider=a", data=raw, headers=headers)
    second = client.post("/v1/select?modelCacheProvider=b", data=raw, headers=headers)
    assert first.status_code == 200
    assert second.status_code == 422
    assert second.headers["X-Cache"] == "miss"
    again = client.post("/v1/select?modelCacheProvider=b", data=raw, headers=headers)
    assert (again.status_code, again.headers["X-Cache"]) == (422, "hit")
