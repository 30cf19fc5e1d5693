"""``POST /v1/lint`` on the accelerator fields (rules §20.7): AcceleratorClass objects as the API
server takes them."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from tests.builders import API, entry, runtime_doc

YAML = {"Content-Type": "application/yaml"}
TEXT = {"Accept": "text/plain"}


def accelerator(name="nvidia-h100", spec=None, **capabilities):
    """An AcceleratorClass the CRD takes, with these capabilities (or this whole spec)."""
    body = {"discovery": {}, "capabilities": capabilities} if spec is None else spec
    return {"apiVersion": API, "kind": "AcceleratorClass", "metadata": {"name": name}, "spec": body}


def lint(client, *documents, url="/v1/lint", **headers):
    body = yaml.safe_dump_all(documents, sort_keys=False).encode()
    response = client.post(url, data=body, headers={**YAML, **headers})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response


def text_lines(client, *documents):
    return lint(client, *documents, **TEXT).get_data(as_text=True).splitlines()


# --- AcceleratorClass objects: the API server's answer --------------------------------------


def test_a_class_is_validated_by_the_crd_in_the_api_servers_words(client):
    typo = accelerator(memoryGb="80Gi")
    answer = lint(client, typo).get_json()
    assert answer["admitted"] is False
    assert [(f["severity"], f["kind"], f["namespace"], f["code"]) for f in answer["findings"]] == [
        ("error", "AcceleratorClass", None, "UnknownField")
    ]
    assert answer["findings"][0]["message"] == (
        'AcceleratorClass in version "v1beta1" cannot be handled as a AcceleratorClass: strict '
        'decoding error: unknown field "spec.capabilities.memoryGb"'
    )
    missing = accelerator(spec={"capabilities": {"memoryGB": "80 GB"}})
    [found] = lint(client, missing).get_json()["findings"]
    assert (found["code"], found["field"]) == ("Invalid", "spec.capabilities.memoryGB")
    assert found["message"].startswith(
        'The AcceleratorClass "nvidia-h100" is invalid: [spec.capabilities.memoryGB: Invalid '
        'value: "80 GB": spec.capabilities.memoryGB in body should match '
    )
    assert found["message"].endswith(", spec.discovery: Required value]")
    # No webhook judges classes: kubectl prints the API server's text alone.
    assert text_lines(client, missing)[0] == f"error: {found['message']}"
    # spec is optional; with one, discovery and capabilities are required objects, possibly {}
    assert lint(client, accelerator(spec=None)).get_json()["admitted"] is True
    bare = {"apiVersion": API, "kind": "AcceleratorClass", "metadata": {"name": "bare"}}
    assert lint(client, bare).get_json()["findings"] == []


def test_a_class_name_the_api_server_refuses(client):
    [found] = lint(client, accelerator("Nvidia_H100")).get_json()["findings"]
    assert (found["kind"], found["name"], found["field"], found["code"]) == (
        "AcceleratorClass",
        "Nvidia_H100",
        "metadata.name",
        "Invalid",
    )
    assert found["message"].startswith(
        'The AcceleratorClass "Nvidia_H100" is invalid: metadata.name: Invalid value: '
        '"Nvidia_H100": a lowercase RFC 1123 subdomain'
    )


def test_classes_are_read_not_ignored_and_cluster_scoped(client):
    placed = accelerator()
    placed["metadata"]["namespace"] = "demo"  # ignored: classes are cluster-scoped
    answer = lint(client, placed, accelerator("nvidia-h100", memoryGB="80G")).get_json()
    assert answer["ignored"] == []
    assert answer["warnings"] == [
        "AcceleratorClass nvidia-h100 appears 2 times in the request; the last one is used"
    ]
    typo = accelerator(memoryGb="80Gi")
    typo["metadata"]["namespace"] = "demo"
    [found] = lint(client, typo).get_json()["findings"]
    assert (found["namespace"], found["code"]) == (None, "UnknownField")


def test_a_class_given_twice_is_judged_as_the_last_one(client):
    good, typo = accelerator(), accelerator(memoryGb="80Gi")
    assert [f["code"] for f in lint(client, good, typo).get_json()["findings"]] == ["UnknownField"]
    assert lint(client, typo, good).get_json()["findings"] == []


def test_which_classes_exist_for_the_runtimes_webhook(client):
    rt = runtime_doc(
        "rt",
        entry(priority=1),
        acceleratorRequirements={"acceleratorClasses": ["nvidia-h100", "Nvidia_H200", "a10"]},
    )
    typo = accelerator(memoryGb="80Gi")  # refused, but fixing it keeps its name
    bad_name = accelerator("Nvidia_H200")  # no fix makes this name exist
    answer = lint(client, rt, typo, bad_name).get_json()
    refusal = next(f for f in answer["findings"] if f["kind"] == "ClusterServingRuntime")
    assert (refusal["code"], refusal["message"]) == (
        "UnknownAcceleratorClass",
        "unknown accelerator classes referenced in AcceleratorRequirements: [Nvidia_H200 a10]",
    )
    # A request whose only class has a refused name still holds classes: they are known.
    only = lint(client, rt, bad_name).get_json()
    assert "AcceleratorClassesUnknown" not in {f["code"] for f in only["findings"]}
    assert {f["code"] for f in only["findings"]} >= {"UnknownAcceleratorClass"}


# --- bounded work ----------------------------------------------------------------------------


@pytest.fixture
def patient(make_app):
    """A client whose requests have time for a big body on a busy machine: a hang guard."""
    return make_app(REQUEST_DEADLINE_SECONDS=120).test_client()


def test_classes_and_lists_stay_linear(patient):
    # 10 000 classes, 100 runtimes listing 401 of them and configuring 201: a scan of every
    # class per listed name would be 4e8 steps.
    classes = [accelerator(f"c-{i:05d}", memoryGB="80G") for i in range(10_000)]
    listed = [f"c-{i:05d}" for i in range(0, 10_000, 25)]  # 400 names, each runtime
    config = {name: {"runtimeArgsOverride": ["--x"]} for name in listed[:200]}
    config["missing"] = {"runtimeArgsOverride": ["--x"]}
    runtimes = [
        runtime_doc(
            f"rt-{i:04d}",
            entry(acceleratorConfig=config),
            acceleratorRequirements={"acceleratorClasses": [*listed, "gone"]},
        )
        for i in range(100)
    ]
    started = time.monotonic()
    response = patient.post(
        "/v1/lint",
        data=json.dumps([*classes, *runtimes]),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 200
    answer = response.get_json()
    codes = [f["code"] for f in answer["findings"]]
    assert codes.count("UnknownAcceleratorClass") == 100  # "gone"
    assert time.monotonic() - started < 60  # a hang guard, not a speed test
