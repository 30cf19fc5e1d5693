"""/v1/rank and /v1/select over the WSGI app: formats, negotiation, SPEC §15 bodies."""

import json

import yaml

from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime
from tests.paths import FIXTURES, SEED_YAML

SEED_TABLE = (FIXTURES / "seed_example.txt").read_text()
YAML = {"Content-Type": "application/yaml"}


def test_seed_example_as_yaml_gives_the_table_byte_for_byte(client):
    response = client.post("/v1/rank", data=SEED_YAML, headers={**YAML, "Accept": "text/plain"})
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    assert response.get_data(as_text=True) == SEED_TABLE


def test_seed_example_json_answer(client):
    response = client.post("/v1/rank", data=SEED_YAML, headers=YAML)
    assert response.status_code == 200
    body = response.get_json()
    assert body["selected"] == {
        "name": "team-llama",
        "scope": "Namespaced",
        "score": 2,
        "explicit": False,
    }
    assert body["model"] == {
        "name": "llama-3-2-3b-instruct",
        "kind": "BaseModel",
        "namespace": "llama-demo",
    }
    assert [(r["name"], r["score"], r["distance"]) for r in body["runtimes"]] == [
        ("team-llama", 2, 0.0),
        ("vllm-llama", 6, 0.0),
        ("srt-llama-small", 6, 7e9),
        ("srt-llama-large", 6, 69e9),
    ]
    assert list(body) == [
        "model",
        "namespace",
        "omeVersion",
        "selected",
        "message",
        "summary",
        "runtimes",
        "ignored",
        "warnings",
        "notes",
        "placement",
    ]
    assert body["omeVersion"] == "1.3"
    # No InferenceService: no component, but the entry OME would apply (rules §20.2).
    assert body["placement"] == {
        "entry": {"index": 0, "name": "safetensors", "score": 2, "definedIn": None},
        "engine": None,
        "decoder": None,
        "event": None,
    }


def test_yaml_output_is_the_json_answer(client):
    as_json = client.post("/v1/rank", data=SEED_YAML, headers=YAML).get_json()
    response = client.post(
        "/v1/rank", data=SEED_YAML, headers={**YAML, "Accept": "application/yaml"}
    )
    assert response.mimetype == "application/yaml"
    assert yaml.safe_load(response.data) == as_json


def test_json_and_yaml_inputs_agree(client):
    docs = [d for d in yaml.safe_load_all(SEED_YAML)]
    runtimes = [docs[1], *docs[2]["items"]]
    response = client.post("/v1/rank", json={"model": docs[0], "runtimes": runtimes})
    assert response.get_json() == client.post("/v1/rank", data=SEED_YAML, headers=YAML).get_json()


def test_query_parameters_for_yaml(client):
    response = client.post(
        "/v1/rank?namespace=elsewhere&omeVersion=1.2", data=SEED_YAML, headers=YAML
    )
    body = response.get_json()
    assert body["namespace"] == "elsewhere"
    assert body["omeVersion"] == "1.2"
    assert [i["name"] for i in body["ignored"]] == ["team-llama"]
    assert body["ignored"][0] == {
        "kind": "ServingRuntime",
        "name": "team-llama",
        "scope": "Namespaced",
        "namespace": "llama-demo",
        "reason": "ServingRuntime in namespace llama-demo, not in the target namespace elsewhere",
    }
    # The model keeps its own namespace in the answer.
    assert body["model"]["namespace"] == "llama-demo"


def test_cluster_model_has_no_namespace(client):
    body = client.post(
        "/v1/rank", json=rank_body(model_doc(kind="ClusterBaseModel", namespace=None))
    ).get_json()
    assert body["model"]["namespace"] is None
    assert body["namespace"] == "default"
    body = client.post("/v1/rank", json=rank_body(model_doc(namespace=None))).get_json()
    assert body["model"]["namespace"] == "default"


def test_select(client):
    response = client.post("/v1/select", json=rank_body(model_doc(), runtime_doc("rt")))
    assert response.status_code == 200
    assert response.get_json() == {
        "selected": {"name": "rt", "scope": "Cluster", "score": 2, "explicit": False},
        "message": "Runtime rt will be auto-selected for model llama",
        "warnings": [],
        "placement": {
            "entry": {"index": 0, "name": None, "score": 2, "definedIn": None},
            "engine": None,
            "decoder": None,
            "event": None,
        },
    }


def test_select_no_runtime_found(client):
    body = rank_body(
        model_doc(),
        runtime_doc("same", disabled=True),
        serving_runtime("same", entry(format_name="onnx")),
    )
    response = client.post("/v1/select", json=body)
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "NoRuntimeFound"
    assert error["message"] == (
        "no runtime found to support model safetensors with format safetensors in namespace "
        "demo. Checked 2 runtimes (1 namespace-scoped, 1 cluster-scoped). Excluded runtimes: "
        "same (runtime is disabled)"
    )
    # OME keys excluded runtimes by name: the ClusterServingRuntime's reason wins.
    assert error["excluded"] == {"same": "runtime is disabled"}
    rank = client.post("/v1/rank", json=body).get_json()
    assert rank["selected"] is None
    assert rank["message"] == error["message"]


def test_select_explicit_errors_and_rank_answers_200(client):
    missing = rank_body(model_doc(), inferenceService=isvc_doc(runtime={"name": "nope"}))
    response = client.post("/v1/select", json=missing)
    assert response.status_code == 404
    assert response.get_json()["error"] == {
        "code": "RuntimeNotFound",
        "message": "runtime nope not found in namespace demo or at cluster scope",
    }
    rank = client.post("/v1/rank", json=missing)
    assert rank.status_code == 200
    assert rank.get_json()["selected"] is None
    assert (
        rank.get_json()["message"] == "runtime nope not found in namespace demo or at cluster scope"
    )
    assert rank.get_json()["notes"] == [
        "spec.runtime is explicit; automatic selection below is hypothetical."
    ]

    disabled = rank_body(
        model_doc(),
        serving_runtime("off", disabled=True),
        inferenceService=isvc_doc(runtime={"name": "off"}),
    )
    response = client.post("/v1/select", json=disabled)
    assert response.status_code == 422
    assert response.get_json()["error"] == {
        "code": "RuntimeDisabled",
        "message": "namespace-scoped runtime off is disabled",
    }


def test_select_explicit_runtime_with_warning(client):
    body = rank_body(
        model_doc(),
        runtime_doc("odd", entry(format_name="onnx")),
        inferenceService=isvc_doc(runtime={"name": "odd"}),
    )
    response = client.post("/v1/select", json=body)
    assert response.status_code == 200
    answer = response.get_json()
    assert answer["selected"] == {"name": "odd", "scope": "Cluster", "score": 0, "explicit": True}
    assert answer["message"] == "Runtime odd is named explicitly for model llama"
    assert answer["warnings"][0].startswith('runtime "odd" does not declare support for model')


def test_text_table_for_no_rows_and_dashes(client):
    body = rank_body(model_doc(), runtime_doc("rt", disabled=True), runtime_doc("ok"))
    response = client.post("/v1/rank", json=body, headers={"Accept": "text/plain"})
    assert response.get_data(as_text=True) == (
        "RUNTIME   SCOPE     COMPATIBLE   PRIORITY   WEIGHT   REASON\n"
        "ok        Cluster   Yes          1          2        -\n"
        "rt        Cluster   No           -          -        runtime is disabled\n"
    )


def test_empty_table_is_the_header(client):
    response = client.post("/v1/rank", json=rank_body(), headers={"Accept": "text/plain"})
    assert response.get_data(as_text=True) == (
        "RUNTIME   SCOPE   COMPATIBLE   PRIORITY   WEIGHT   REASON\n"
    )


def test_accept_negotiation(client):
    body = rank_body(model_doc(), runtime_doc("rt"))
    for accept, mimetype, cache in [
        ("*/*", "application/json", "miss"),
        ("image/png", "application/json", "hit"),  # the same representation: the same entry
        ("text/plain;q=0.5, application/yaml", "application/yaml", "miss"),
        ("text/*", "text/plain", "miss"),
    ]:
        response = client.post("/v1/rank", json=body, headers={"Accept": accept})
        assert response.mimetype == mimetype, accept
        assert response.headers["X-Cache"] == cache, accept
        assert response.headers["Vary"] == "Accept, Accept-Encoding"


def test_non_finite_distance_is_null_and_size_warnings(client):
    body = rank_body(model_doc(size="inf"), runtime_doc("rt", size_range={"min": "1B"}))
    answer = client.post("/v1/rank", json=body).get_json()
    assert answer["runtimes"][0]["compatible"] is True
    assert answer["runtimes"][0]["distance"] is None
    assert answer["warnings"] == [
        'BaseModel llama: spec.modelParameterSize "inf" is read by OME as +Inf parameters'
    ]


def test_answer_is_valid_strict_json(client):
    body = rank_body(model_doc(size="nan"), runtime_doc("rt", size_range={"min": "1B"}))
    raw = client.post("/v1/rank", json=body).get_data(as_text=True)
    json.loads(raw, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
