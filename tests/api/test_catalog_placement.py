"""AcceleratorClasses in stored catalogs (rules §20.8), on both stores: stored and counted,
deleted, read by every answer about the catalog (by name, overlaid, selections, impact, lint),
and the cluster's ``acceleratorClassesKnown``. The scenario is OME's *Select accelerators* page
(rules §20.9): its two classes and its named runtime."""

from __future__ import annotations

import copy

import pytest
import yaml

from tests.api.builders import CLASSES, H100, H200, MODEL, RUNTIME, isvc

YAML = {"Content-Type": "application/yaml"}
ASK = "/v1/clusters/prod/{}?inferenceService=llama-demo/llama-3-3-70b"
H100_LOSS = {"name": "nvidia-h200", "reason": "score 0.6971631205673758 < 1.0"}
MISSING = "accelerator class nvidia-h100 not found at cluster scope"


def stream(*documents: dict) -> bytes:
    return yaml.safe_dump_all(documents, sort_keys=False).encode()


def best_fit() -> dict:
    return isvc(acceleratorSelector={"policy": "BestFit", "constraints": {"minMemory": 80}})


@pytest.fixture
def client(make_app, backend_settings):
    return make_app(**backend_settings).test_client()


@pytest.fixture
def seeded(client):
    assert client.put("/v1/clusters/prod").status_code == 201
    response = client.put(
        "/v1/clusters/prod/objects", data=stream(MODEL, RUNTIME, best_fit(), *CLASSES), headers=YAML
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return client


def engine(client, path: str = "rank") -> dict:
    response = client.get(ASK.format(path))
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["placement"]["engine"]


def test_classes_are_stored_counted_and_listed_in_their_stored_form(seeded):
    counts = seeded.get("/v1/clusters/prod").get_json()["counts"]
    assert counts["AcceleratorClass"] == 2
    given = copy.deepcopy(H100)
    given["metadata"]["namespace"] = "ignored"  # cluster-scoped: the API server drops it
    given["status"] = {"availableNodes": 3}  # never read (rules §20.1)
    given["spec"]["capabilities"]["memoryGB"] = "81Gi"
    answer = seeded.post("/v1/clusters/prod/objects", data=stream(given), headers=YAML)
    assert answer.status_code == 200
    assert answer.get_json()["ignored"] == []
    assert answer.get_json()["counts"]["AcceleratorClass"] == 2  # replaced, not added
    items = seeded.get("/v1/clusters/prod/objects?kind=AcceleratorClass").get_json()["items"]
    assert [item["metadata"] for item in items] == [
        {"name": "nvidia-h100"},
        {"name": "nvidia-h200"},
    ]
    assert "status" not in items[0]
    assert items[0]["spec"]["capabilities"]["memoryGB"] == "81Gi"
    assert items[1] == H200


def test_an_invalid_class_is_refused_where_it_is(client):
    client.put("/v1/clusters/prod")
    bad = copy.deepcopy(H100)
    bad["spec"]["capabilities"]["memoryGB"] = "80 GiB"
    response = client.put("/v1/clusters/prod/objects", data=stream(MODEL, bad), headers=YAML)
    assert response.status_code == 422
    assert response.get_json()["error"]["fields"] == {
        "document 2.spec.capabilities.memoryGB": [
            "'80 GiB' is not a quantity (the CRD's pattern refuses it)"
        ]
    }
    assert client.get("/v1/clusters/prod").get_json()["counts"]["BaseModel"] == 0  # nothing


def test_answers_by_name_read_the_stored_classes(seeded):
    for path in ("rank", "select"):
        found = engine(seeded, path)
        assert (found["acceleratorClass"], found["score"], found["known"]) == (
            "nvidia-h100",
            1.0,
            True,
        )
        assert found["others"] == [H100_LOSS]
        assert found["nodeSelector"] == {"nvidia.com/gpu.product": "nvidia-h100"}


def test_a_deleted_class_moves_the_answer_and_a_named_one_fails(seeded):
    deleted = seeded.delete("/v1/clusters/prod/objects/AcceleratorClass/nvidia-h100")
    assert deleted.status_code == 200, deleted.get_data(as_text=True)
    assert deleted.get_json()["counts"]["AcceleratorClass"] == 1
    found = engine(seeded)
    # 1.3: a missing listed class is left out of the pool; the one left wins unscored.
    assert (found["acceleratorClass"], found["score"]) == ("nvidia-h200", None)
    assert found["others"] == [{"name": "nvidia-h100", "reason": "not found"}]
    named = isvc(acceleratorSelector={"acceleratorClass": "nvidia-h100"})
    seeded.post("/v1/clusters/prod/objects", data=stream(named), headers=YAML)
    body = seeded.get(ASK.format("rank")).get_json()["placement"]
    assert body["engine"]["error"] == {
        "code": "AcceleratorClassNotFound",
        "message": f"Failed to get accelerator class for engine: {MISSING}",
    }
    assert body["event"]["reason"] == "AcceleratorClassError"
    again = seeded.delete("/v1/clusters/prod/objects/AcceleratorClass/nvidia-h100")
    assert again.status_code == 404
    assert again.get_json()["error"]["code"] == "ObjectNotFound"


def test_the_cluster_setting_decides_whether_classes_are_known(seeded):
    assert (
        seeded.put("/v1/clusters/prod", json={"acceleratorClassesKnown": False}).status_code == 200
    )
    assert seeded.get("/v1/clusters/prod").get_json()["acceleratorClassesKnown"] is False
    found = engine(seeded)
    assert (found["acceleratorClass"], found["known"]) == (None, False)
    assert found["reason"] == "unknown: the request holds no AcceleratorClass objects"
    seeded.put("/v1/clusters/prod", json={"acceleratorClassesKnown": None})
    assert engine(seeded)["acceleratorClass"] == "nvidia-h100"
    refused = seeded.put("/v1/clusters/prod", json={"acceleratorClassesKnown": "yes"})
    assert refused.status_code == 422
    assert refused.get_json()["error"]["fields"] == {
        "acceleratorClassesKnown": ["Not a valid boolean."]
    }


def test_without_stored_classes_nothing_is_known_until_the_setting_says_so(client):
    client.put("/v1/clusters/prod")
    objects = stream(MODEL, RUNTIME, best_fit())
    client.put("/v1/clusters/prod/objects", data=objects, headers=YAML)
    assert engine(client)["known"] is False
    client.put("/v1/clusters/prod", json={"acceleratorClassesKnown": True})
    found = engine(client)
    # Known, and none exists: the pool is empty (1.3), so no class and no guess.
    assert (found["acceleratorClass"], found["known"]) == (None, True)
    assert found["reason"] == "no class passes the constraints"


def test_an_overlay_lays_its_classes_over_the_stored_ones(seeded):
    cheaper = copy.deepcopy(H200)
    cheaper["spec"]["cost"]["perHour"] = "9"
    service = isvc(acceleratorSelector={"policy": "Cheapest"})
    response = seeded.post(
        "/v1/clusters/prod/select?model=llama-3-3-70b-instruct",
        data=stream(service, cheaper),
        headers=YAML,
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    found = response.get_json()["placement"]["engine"]
    assert found["acceleratorClass"] == "nvidia-h200"
    assert found["others"] == [{"name": "nvidia-h100", "reason": "perHour 10 > perHour 9"}]
    unknown = seeded.post(
        "/v1/clusters/prod/select?model=llama-3-3-70b-instruct&acceleratorClassesKnown=false",
        data=stream(service),
        headers=YAML,
    )
    assert unknown.get_json()["placement"]["engine"]["known"] is False


def test_selections_rows_carry_each_components_class(seeded):
    rows = seeded.get("/v1/clusters/prod/selections").get_json()["selections"]
    assert [
        (r["name"], r["engineAcceleratorClass"], r["decoderAcceleratorClass"]) for r in rows
    ] == [("llama-3-3-70b", "nvidia-h100", None)]
    seeded.put("/v1/clusters/prod", json={"acceleratorClassesKnown": False})
    row = seeded.get("/v1/clusters/prod/selections").get_json()["selections"][0]
    assert row["engineAcceleratorClass"] is None  # unknown is not a class


def test_selections_place_each_inference_service_on_its_own_fields(seeded):
    # Two InferenceServices ask the same ranking question; their selectors differ.
    other = isvc(acceleratorSelector={"policy": "MostCapable"})
    other["metadata"]["name"] = "llama-capable"
    seeded.post("/v1/clusters/prod/objects", data=stream(other), headers=YAML)
    rows = seeded.get("/v1/clusters/prod/selections").get_json()["selections"]
    assert {r["name"]: r["engineAcceleratorClass"] for r in rows} == {
        "llama-3-3-70b": "nvidia-h100",
        "llama-capable": "nvidia-h200",
    }


def test_impact_compares_placements_and_deletes_a_class(seeded):
    response = seeded.post(
        "/v1/clusters/prod/impact?delete=AcceleratorClass/nvidia-h100", data=b"", headers=YAML
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert (body["checked"], body["count"]) == (1, 1)
    change = body["changes"][0]
    assert change["before"]["runtime"] == change["after"]["runtime"]  # the runtime stays
    assert change["before"]["placement"]["engine"]["acceleratorClass"] == "nvidia-h100"
    assert change["after"]["placement"]["engine"]["acceleratorClass"] == "nvidia-h200"
    # A change to a class that moves nothing is no change.
    renamed = copy.deepcopy(H200)
    renamed["spec"]["vendor"] = "NVIDIA"
    quiet = seeded.post("/v1/clusters/prod/impact", data=stream(renamed), headers=YAML)
    assert quiet.get_json()["count"] == 0


def test_stateless_impact_sees_a_changed_accelerator_config(client):
    configured = copy.deepcopy(RUNTIME)
    entry = configured["spec"]["supportedModelFormats"][0]
    entry["acceleratorConfig"] = {"nvidia-h100": {"runtimeArgsOverride": ["--mem-frac=0.85"]}}
    current = [MODEL, RUNTIME, best_fit(), *CLASSES]
    proposed = [MODEL, configured, best_fit(), *CLASSES]
    body = client.post("/v1/impact", json={"current": current, "proposed": proposed}).get_json()
    assert body["count"] == 1
    after = body["changes"][0]["after"]["placement"]["engine"]
    assert after["acceleratorConfig"] == {"runtimeArgsOverride": ["--mem-frac=0.85"]}


def test_cluster_lint_checks_runtimes_against_the_stored_classes(seeded):
    listed = copy.deepcopy(RUNTIME)
    listed["metadata"]["name"] = "srt-other"
    listed["spec"]["acceleratorRequirements"]["acceleratorClasses"] = ["nvidia-h100", "nvidia-b200"]
    response = seeded.post("/v1/clusters/prod/lint", data=stream(listed), headers=YAML)
    errors = [f for f in response.get_json()["findings"] if f["severity"] == "error"]
    assert [(f["code"], f["message"]) for f in errors] == [
        (
            "UnknownAcceleratorClass",
            "unknown accelerator classes referenced in AcceleratorRequirements: [nvidia-b200]",
        )
    ]
    seeded.put("/v1/clusters/prod", json={"acceleratorClassesKnown": False})
    unknown = seeded.post("/v1/clusters/prod/lint", data=stream(listed), headers=YAML)
    codes = [f["code"] for f in unknown.get_json()["findings"]]
    assert "UnknownAcceleratorClass" not in codes
    assert "AcceleratorClassesUnknown" in codes


def test_a_class_write_is_a_new_generation_and_a_fresh_answer(seeded):
    before = seeded.get(ASK.format("rank"))
    assert engine(seeded)["acceleratorClass"] == "nvidia-h100"
    bigger = copy.deepcopy(H100)
    bigger["spec"]["capabilities"]["memoryGB"] = "160Gi"
    seeded.post("/v1/clusters/prod/objects", data=stream(bigger), headers=YAML)
    after = seeded.get(ASK.format("rank"))
    assert after.headers["ETag"] != before.headers["ETag"]
    # BestFit, minMemory 80: 141Gi now fits closer than 160Gi.
    assert after.get_json()["placement"]["engine"]["acceleratorClass"] == "nvidia-h200"


def services(count: int, distinct: bool) -> list[dict]:
    found = []
    for i in range(count):
        service = isvc(
            acceleratorSelector={
                "policy": "BestFit",
                "constraints": {"minMemory": 80 + (i if distinct else 0)},
            }
        )
        service["metadata"]["name"] = f"llama-{i}"
        found.append(service)
    return found


def test_placement_work_over_the_bound_is_refused_before_it_starts(make_app):
    client = make_app(MAX_RUNTIME_CHECKS=5_000).test_client()
    listed = copy.deepcopy(RUNTIME)
    names = [f"class-{i}" for i in range(100)]
    listed["spec"]["acceleratorRequirements"]["acceleratorClasses"] = names
    classes = [{**copy.deepcopy(H100), "metadata": {"name": name}} for name in names]
    # 60 InferenceServices, each with its own constraints: 60 × 100 class checks.
    body = stream(MODEL, listed, *classes, *services(60, distinct=True))
    refused = client.post("/v1/selections", data=body, headers=YAML)
    assert refused.status_code == 422, refused.get_data(as_text=True)
    error = refused.get_json()["error"]
    assert error["code"] == "LimitExceeded"
    assert "6000 accelerator class checks" in error["message"]
    # The same services with one spec share one placement, and are counted once.
    shared = stream(MODEL, listed, *classes, *services(60, distinct=False))
    answered = client.post("/v1/selections", data=shared, headers=YAML)
    assert answered.status_code == 200, answered.get_data(as_text=True)
    rows = answered.get_json()["selections"]
    assert len({row["engineAcceleratorClass"] for row in rows if row["name"]}) == 1


def test_stream_answers_take_accelerator_classes_known_from_the_query(client):
    body = stream(MODEL, RUNTIME, best_fit(), *CLASSES)
    rows = client.post("/v1/selections", data=body, headers=YAML).get_json()["selections"]
    assert rows[0]["engineAcceleratorClass"] == "nvidia-h100"
    unknown = client.post("/v1/selections?acceleratorClassesKnown=false", data=body, headers=YAML)
    assert unknown.get_json()["selections"][0]["engineAcceleratorClass"] is None
    bad = client.post("/v1/selections?acceleratorClassesKnown=yes", data=body, headers=YAML)
    assert bad.status_code == 422
    listed = copy.deepcopy(RUNTIME)
    listed["spec"]["acceleratorRequirements"]["acceleratorClasses"] = ["nvidia-b200"]
    known = client.post("/v1/lint?acceleratorClassesKnown=true", data=stream(listed), headers=YAML)
    codes = [finding["code"] for finding in known.get_json()["findings"]]
    assert "UnknownAcceleratorClass" in codes


def test_impact_answers_count_their_placements_against_the_bound(make_app):
    # 100 InferenceServices of one spec share one placement, each listing 300 classes: the
    # answer repeats it per change, so its size is counted per change, before it is rendered.
    client = make_app(MAX_ANSWER_BYTES=200_000).test_client()
    names = [f"class-{i:03d}" for i in range(300)]
    listed = copy.deepcopy(RUNTIME)
    listed["spec"]["acceleratorRequirements"]["acceleratorClasses"] = names
    classes = [{**copy.deepcopy(H100), "metadata": {"name": name}} for name in names]
    services = []
    for i in range(100):
        service = isvc(acceleratorSelector={"policy": "FirstAvailable"})
        service["metadata"]["name"] = f"svc-{i}"
        services.append(service)
    current = [MODEL, listed, *classes, *services]
    proposed = [MODEL, listed, *classes[1:], *services]
    response = client.post("/v1/impact", json={"current": current, "proposed": proposed})
    assert response.status_code == 422, response.status_code
    assert response.get_json()["error"]["code"] == "LimitExceeded"
    few = client.post("/v1/impact", json={"current": current[:-98], "proposed": proposed[:-98]})
    assert few.status_code == 200
    assert few.get_json()["count"] == 2


def test_impact_deletes_a_class_named_with_a_namespace_too(seeded):
    for form in ("AcceleratorClass/nvidia-h100", "AcceleratorClass/default/nvidia-h100"):
        response = seeded.post(f"/v1/clusters/prod/impact?delete={form}", data=b"", headers=YAML)
        assert response.status_code == 200
        assert response.get_json()["count"] == 1, form


@pytest.mark.parametrize(
    "document",
    [
        "kind: AcceleratorClass\nmetadata: {name: x}\n"
        "spec: {discovery: {affinity: {w: .nan}}, capabilities: {}}\n",
        "kind: ClusterServingRuntime\nmetadata: {name: r}\nspec:\n  supportedModelFormats:\n"
        "  - {modelFormat: {name: f}, acceleratorConfig: {x: {y: .inf}}}\n",
    ],
)
def test_what_json_cannot_hold_is_refused_where_it_is(client, document):
    client.put("/v1/clusters/prod")
    body = ("apiVersion: ome.io/v1beta1\n" + document).encode()
    response = client.put("/v1/clusters/prod/objects", data=body, headers=YAML)
    assert response.status_code == 422, response.get_data(as_text=True)
    assert "no NaN or infinity" in response.get_data(as_text=True)


def test_answers_by_name_take_the_query_flag_over_the_setting(seeded):
    assert seeded.get(ASK.format("select") + "&acceleratorClassesKnown=maybe").status_code == 422
    found = seeded.get(ASK.format("select") + "&acceleratorClassesKnown=false").get_json()
    assert found["placement"]["engine"]["known"] is False
    assert engine(seeded, "select")["known"] is True  # another question, another cached answer
    path = "/v1/clusters/prod/selections?acceleratorClassesKnown=false"
    assert seeded.get(path).get_json()["selections"][0]["engineAcceleratorClass"] is None
    first = seeded.get("/v1/clusters/prod/selections").get_json()["selections"][0]
    assert first["engineAcceleratorClass"] == "nvidia-h100"


def test_a_body_of_more_classes_than_a_cluster_holds_is_refused_unread(make_app):
    client = make_app(MAX_OBJECTS_PER_CLUSTER=10).test_client()
    body = {"model": MODEL, "runtimes": [], "acceleratorClasses": [{}] * 11}
    response = client.post("/v1/rank", json=body)
    assert response.status_code == 413
    assert "request has 11 AcceleratorClasses" in response.get_json()["error"]["message"]


def test_an_inference_services_model_is_found_whatever_its_kind_says(client):
    # rules §20.10 item 6: OME's lookup reads spec.model.name only.
    client.put("/v1/clusters/prod")
    base = copy.deepcopy(MODEL)
    base.update(
        kind="BaseModel", metadata={"name": MODEL["metadata"]["name"], "namespace": "llama-demo"}
    )
    service = best_fit()
    service["spec"]["model"]["kind"] = "ClusterBaseModel"  # no such ClusterBaseModel is stored
    objects = stream(base, RUNTIME, service, *CLASSES)
    assert client.put("/v1/clusters/prod/objects", data=objects, headers=YAML).status_code == 200
    row = client.get("/v1/clusters/prod/selections").get_json()["selections"][0]
    assert (row["error"], row["engineAcceleratorClass"]) == (None, "nvidia-h100")
    assert engine(client)["acceleratorClass"] == "nvidia-h100"
