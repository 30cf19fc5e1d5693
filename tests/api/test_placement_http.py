"""``placement`` over HTTP (rules §20.8): OME's *Select accelerators* scenario of rules §20.9,
its classes and its named runtime, one InferenceService at a time, as JSON bodies and as a
manifest stream; the inputs refused where the CRD refuses them."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from tests.api.builders import (
    CLASSES,
    H100,
    H200,
    MODEL,
    RUNTIME,
    accelerator_class,
    body,
    isvc,
)


def placement(client, request_body: dict, endpoint: str = "/v1/rank", query: str = "") -> dict:
    response = client.post(endpoint + query, json=request_body)
    assert response.status_code == 200, response.get_json()
    return response.get_json()["placement"]


def engine(client, service: dict, **extra) -> dict:
    found = placement(client, body(service, **extra))
    assert found["decoder"] is None  # the InferenceService sets no decoder
    return found["engine"]


def others(component: dict) -> list[tuple[str, str | None]]:
    return [(other["name"], other["reason"]) for other in component["others"]]


POD = {
    "nodeSelector": {"nvidia.com/gpu.product": "nvidia-h100"},
    "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
}


def test_best_fit_with_constraints(client):
    got = engine(
        client, isvc(acceleratorSelector={"policy": "BestFit", "constraints": {"minMemory": 80}})
    )
    assert got["acceleratorClass"] == "nvidia-h100"
    assert (got["from"], got["policy"], got["score"]) == (
        "spec.acceleratorSelector.policy",
        "BestFit",
        1.0,
    )
    assert others(got) == [("nvidia-h200", "score 0.6971631205673758 < 1.0")]
    assert (got["known"], got["reason"], got["error"], got["acceleratorConfig"]) == (
        True,
        None,
        None,
        None,
    )
    assert {key: got[key] for key in POD} == POD


def test_cheapest(client):
    got = engine(client, isvc(acceleratorSelector={"policy": "Cheapest"}))
    assert (got["acceleratorClass"], got["score"]) == ("nvidia-h100", None)
    assert others(got) == [("nvidia-h200", "perHour 12 > perHour 10")]


def test_most_capable(client):
    got = engine(client, isvc(acceleratorSelector={"policy": "MostCapable"}))
    assert (got["acceleratorClass"], got["score"]) == ("nvidia-h200", 1.0)
    assert others(got) == [("nvidia-h100", "score 0.6930629432624114 < 1.0")]


def test_first_available(client):
    got = engine(client, isvc(acceleratorSelector={"policy": "FirstAvailable"}))
    assert got["acceleratorClass"] == "nvidia-h100"
    assert others(got) == [("nvidia-h200", "listed after nvidia-h100")]


def test_best_fit_without_constraints_stops_omes_controller(client):
    found = placement(client, body(isvc(acceleratorSelector={"policy": "BestFit"})))
    got = found["engine"]
    assert got["acceleratorClass"] is None and got["reason"] is None
    assert got["error"] == {
        "code": "BestFitWithoutConstraints",
        "message": "invalid memory address or nil pointer dereference",
        "ifFixed": "nvidia-h100",
    }
    assert found["event"] is None  # OME's controller records none (rules §20.5)


def test_a_named_class_that_does_not_exist(client):
    service = isvc(acceleratorSelector={"acceleratorClass": "nvidia-a100"})
    found = placement(client, body(service), "/v1/select")
    got = found["engine"]
    message = (
        "Failed to get accelerator class for engine: accelerator class nvidia-a100 not found at "
        "cluster scope"
    )
    assert got["acceleratorClass"] is None
    assert got["from"] == "spec.acceleratorSelector.acceleratorClass"
    assert got["error"] == {"code": "AcceleratorClassNotFound", "message": message}
    assert got["others"] == []
    assert found["event"] == {"reason": "AcceleratorClassError", "message": message}


def test_an_overrides_name_wins_over_the_selectors_policy(client):
    service = isvc(
        acceleratorSelector={"policy": "Cheapest"},
        engine={"acceleratorOverride": {"acceleratorClass": "nvidia-h200"}},
    )
    got = engine(client, service)
    assert got["acceleratorClass"] == "nvidia-h200"
    assert got["from"] == "spec.engine.acceleratorOverride.acceleratorClass"
    assert (got["policy"], got["score"], got["others"]) == (None, None, [])


def test_classes_unknown_are_never_guessed(client):
    got = engine(client, isvc(acceleratorSelector={"policy": "Cheapest"}), classes=[])
    assert (got["acceleratorClass"], got["known"]) == (None, False)
    assert got["reason"] == "unknown: the request holds no AcceleratorClass objects"
    assert others(got) == [("nvidia-h100", None), ("nvidia-h200", None)]


def test_known_without_classes_makes_a_name_fail(client):
    service = isvc(acceleratorSelector={"acceleratorClass": "nvidia-h100"})
    unknown = engine(client, service, classes=[])
    assert (unknown["acceleratorClass"], unknown["known"]) == ("nvidia-h100", False)
    for query, extra in (
        ("?acceleratorClassesKnown=true", {}),
        ("", {"acceleratorClassesKnown": True}),
    ):
        found = placement(client, body(service, classes=[], **extra), query=query)
        assert found["engine"]["error"]["code"] == "AcceleratorClassNotFound"
    # false means unknown even when classes are held (rules §20.10 item 20)
    held = engine(client, service, acceleratorClassesKnown=False)
    assert (held["known"], held["nodeSelector"]) == (False, None)


def test_the_query_parameter_is_part_of_the_raw_request_key(client):
    service = isvc(acceleratorSelector={"acceleratorClass": "nvidia-h100"})
    request_body = body(service, classes=[])
    first = placement(client, request_body, query="?acceleratorClassesKnown=false")
    second = placement(client, request_body, query="?acceleratorClassesKnown=true")
    assert first["engine"]["known"] is False
    assert second["engine"]["error"] is not None


def test_the_entry_and_its_accelerator_config(client):
    runtime = copy.deepcopy(RUNTIME)
    config = {
        "tensorParallelismOverride": {"tensorParallelSize": 4, "pipelineParallelSize": 2},
        "runtimeArgsOverride": ["--mem-frac=0.85"],
        "dataParallelSize": 2,
    }
    runtime["spec"]["supportedModelFormats"][0]["name"] = "safetensors"
    runtime["spec"]["supportedModelFormats"][0]["acceleratorConfig"] = {"nvidia-l40s": config}
    runtime["spec"]["acceleratorRequirements"]["acceleratorClasses"].append("nvidia-l40s")
    l40s = accelerator_class("nvidia-l40s", "48Gi", 864, "2")
    service = isvc(acceleratorSelector={"acceleratorClass": "nvidia-l40s"})
    request_body = {**body(service, classes=[*CLASSES, l40s]), "runtimes": [runtime]}
    found = placement(client, request_body)
    assert found["entry"] == {"index": 0, "name": "safetensors", "score": 2, "definedIn": None}
    assert found["engine"]["acceleratorClass"] == "nvidia-l40s"
    assert found["engine"]["acceleratorConfig"] == {
        "tensorParallelismOverride": {"tensorParallelSize": 4, "pipelineParallelSize": 2},
        "runtimeArgsOverride": ["--mem-frac=0.85"],
    }


def test_a_manifest_stream_carries_the_classes(client):
    service = isvc(acceleratorSelector={"policy": "MostCapable"})
    stream = yaml.safe_dump_all([MODEL, RUNTIME, H100, H200, H100, service])
    response = client.post("/v1/rank", data=stream, headers={"Content-Type": "application/yaml"})
    answer = response.get_json()
    assert response.status_code == 200
    assert answer["placement"]["engine"]["acceleratorClass"] == "nvidia-h200"
    assert (
        "AcceleratorClass nvidia-h100 appears 2 times in the request; the last one is used"
        in (answer["warnings"])
    )
    assert not any(item["kind"] == "AcceleratorClass" for item in answer["ignored"])
    assert response.data.count(b"nvidia-h200") >= 1
    table = client.post(
        "/v1/rank",
        data=stream,
        headers={"Content-Type": "application/yaml", "Accept": "text/plain"},
    )
    assert b"nvidia" not in table.data  # the text table is unchanged (rules §20.8)


def test_nothing_selected_has_no_placement(client):
    service = isvc(runtime={"name": "nope"})
    assert placement(client, body(service)) is None


def test_a_changed_class_changes_the_canonical_key(client):
    service = isvc(acceleratorSelector={"policy": "Cheapest"})
    cheaper = copy.deepcopy(H200)
    cheaper["spec"]["cost"]["perHour"] = "9"
    assert engine(client, service)["acceleratorClass"] == "nvidia-h100"
    assert engine(client, service, classes=[H100, cheaper])["acceleratorClass"] == "nvidia-h200"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            lambda b: b["acceleratorClasses"][0]["spec"]["capabilities"].update(memoryGB="80 Gi"),
            "acceleratorClasses[0].spec.capabilities.memoryGB",
        ),
        (
            lambda b: b["acceleratorClasses"][1]["spec"].update(resources=[{"quantity": "1"}]),
            "acceleratorClasses[1].spec.resources[0].name",
        ),
        (
            lambda b: b["acceleratorClasses"][0]["spec"].pop("capabilities"),
            "acceleratorClasses[0].spec.capabilities",
        ),
        (
            lambda b: b["inferenceService"]["spec"].update(acceleratorSelector={"policy": ""}),
            "inferenceService.spec.acceleratorSelector.policy",
        ),
        (
            lambda b: b["inferenceService"]["spec"]["engine"].update(
                acceleratorOverride={"policy": "Fastest"}
            ),
            "inferenceService.spec.engine.acceleratorOverride.policy",
        ),
        (
            lambda b: b["inferenceService"]["spec"].update(
                acceleratorSelector={"constraints": {"minMemory": -1}}
            ),
            "inferenceService.spec.acceleratorSelector.constraints.minMemory",
        ),
    ],
)
def test_what_the_crd_refuses_is_an_invalid_document(client, change, field):
    request_body = copy.deepcopy(body(isvc()))
    change(request_body)
    response = client.post("/v1/rank", json=request_body)
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "InvalidDocument"
    assert field in error["fields"]


@pytest.mark.parametrize(
    "extra", [{"acceleratorClassesKnown": "true"}, {"acceleratorClasses": {"a": 1}}]
)
def test_a_malformed_flag_or_list_in_the_body_is_a_400(client, extra):
    response = client.post("/v1/rank", json=body(isvc(), **extra))
    assert response.status_code == 400


def test_a_flag_in_the_query_that_is_no_boolean_is_a_422_as_every_bad_query_value(client):
    response = client.post("/v1/rank?acceleratorClassesKnown=yes", json=body(isvc()))
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert (error["code"], error["fields"]) == (
        "InvalidDocument",
        {"acceleratorClassesKnown": ["Must be true or false."]},
    )


@pytest.mark.parametrize("accept", ["application/json", "application/yaml", "text/plain"])
def test_a_map_key_that_is_a_lone_surrogate_is_answered(client, accept):
    """JSON may escape half a surrogate pair (``"\\ud800"``): a key so written is sorted among
    the others as its code point (UTF-8's byte order for every other), never a 500."""
    classes = copy.deepcopy(CLASSES)
    for accelerator in classes:
        accelerator["spec"]["discovery"]["nodeSelector"]["\ud800a"] = "x"
        accelerator["spec"]["resources"].append({"name": "\udc00", "quantity": "1"})
    request_body = body(isvc(acceleratorSelector={"policy": "Cheapest"}), classes)
    response = client.post(
        "/v1/rank",
        data=json.dumps(request_body),  # the test client's json= would refuse the surrogate
        headers={"Content-Type": "application/json", "Accept": accept},
    )
    assert response.status_code == 200, response.get_data()
    if accept == "application/json":
        selector = response.get_json()["placement"]["engine"]["nodeSelector"]
        assert list(selector) == ["nvidia.com/gpu.product", "\ud800a"]
