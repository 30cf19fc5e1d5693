"""``POST /v1/clusters/{c}/impact``, ``POST /v1/impact`` and ``POST /v1/selections`` (SPEC §19):
exactly the InferenceServices whose ``select`` answer a change moves, nothing stored."""

from __future__ import annotations

import random

import yaml

from tests.builders import entry, isvc_doc, model_doc, runtime_doc, serving_runtime

YAML = {"Content-Type": "application/yaml"}


def _stream(documents) -> bytes:
    return yaml.safe_dump_all(documents, sort_keys=False).encode()


def _catalog(rng: random.Random) -> list[dict]:
    documents = [
        model_doc("m0"),
        model_doc("m1", architecture="MistralForCausalLM"),
        model_doc("m2", namespace="other", size="7B"),
    ]
    for i in range(6):
        documents.append(
            runtime_doc(
                f"c{i}",
                entry(
                    architecture=rng.choice(["LlamaForCausalLM", "MistralForCausalLM", None]),
                    priority=rng.randint(1, 4),
                    auto_select=rng.choice([True, True, None, False]),
                ),
                disabled=rng.random() < 0.2,
                size_range={"min": "1B", "max": rng.choice(["8B", "70B"])},
            )
        )
    for i in range(3):
        documents.append(serving_runtime(f"s{i}", entry(priority=rng.randint(1, 3))))
    for i in range(12):
        namespace = rng.choice(["demo", "other"])
        model = rng.choice(["m0", "m1", "m2", "missing"])
        spec = {"model": {"name": model}, "engine": {}}
        if rng.random() < 0.2:
            spec["runtime"] = {"name": rng.choice(["c0", "c1", "s0", "nope"])}
        documents.append(isvc_doc(f"svc-{i}", namespace=namespace, **spec))
    return documents


def _select_all(client, cluster: str, services: list[dict]) -> dict[tuple, tuple]:
    answers = {}
    for svc in services:
        meta = svc["metadata"]
        url = f"/v1/clusters/{cluster}/select?inferenceService={meta['namespace']}/{meta['name']}"
        response = client.get(url)
        answers[(meta["namespace"], meta["name"])] = (response.status_code, response.get_data())
    return answers


def test_impact_is_exactly_the_select_answers_that_change(client):
    for seed in range(8):
        rng = random.Random(seed)
        documents = _catalog(rng)
        services = [d for d in documents if d["kind"] == "InferenceService"]
        cluster = f"c{seed}"
        assert client.put(f"/v1/clusters/{cluster}", json={}).status_code == 201
        put = client.put(f"/v1/clusters/{cluster}/objects", data=_stream(documents), headers=YAML)
        assert put.status_code == 200
        before = _select_all(client, cluster, services)

        # One runtime changes: disabled, re-prioritised or widened.
        changed = rng.choice([d for d in documents if d["kind"].endswith("ServingRuntime")])
        changed = yaml.safe_load(yaml.safe_dump(changed))
        choice = rng.randrange(3)
        if choice == 0:
            changed["spec"]["disabled"] = not changed["spec"].get("disabled", False)
        elif choice == 1:
            changed["spec"]["supportedModelFormats"][0]["priority"] = rng.randint(1, 6)
        else:
            changed["spec"]["supportedModelFormats"][0].pop("modelArchitecture", None)
        generation = client.get(f"/v1/clusters/{cluster}").get_json()["generation"]
        answer = client.post(
            f"/v1/clusters/{cluster}/impact", data=_stream([changed]), headers=YAML
        ).get_json()
        assert client.get(f"/v1/clusters/{cluster}").get_json()["generation"] == generation

        applied = client.post(
            f"/v1/clusters/{cluster}/objects", data=_stream([changed]), headers=YAML
        )
        assert applied.status_code == 200
        after = _select_all(client, cluster, services)
        moved = {key for key in before if before[key] != after[key]}
        assert {(c["namespace"], c["name"]) for c in answer["changes"]} == moved, seed
        assert answer["count"] == len(moved)
        assert answer["checked"] == len(services)


def test_impact_rows_and_deletes(client):
    documents = [
        model_doc(),
        runtime_doc("a", entry(priority=2)),
        runtime_doc("b", entry()),
        isvc_doc("svc", model={"name": "llama"}, engine={}),
    ]
    assert client.put("/v1/clusters/p", json={}).status_code == 201
    client.put("/v1/clusters/p/objects", data=_stream(documents), headers=YAML)
    answer = client.post("/v1/clusters/p/impact?delete=ClusterServingRuntime/a", json=[]).get_json()
    [change] = answer["changes"]
    assert change["before"]["runtime"] == {"name": "a", "scope": "Cluster", "explicit": False}
    assert change["after"]["runtime"]["name"] == "b"
    assert change["after"]["message"] == "Runtime b will be auto-selected for model llama"
    text = client.post(
        "/v1/clusters/p/impact?delete=ClusterServingRuntime/a",
        json=[],
        headers={"Accept": "text/plain"},
    ).get_data(as_text=True)
    assert text.splitlines()[1].split()[:5] == ["demo", "svc", "llama", "a", "b"]
    bad = client.post("/v1/clusters/p/impact?delete=nonsense", json=[])
    assert bad.status_code == 400

    # The same question with two streams.
    proposed = [d for d in documents if d["metadata"]["name"] != "a"]
    stateless = client.post("/v1/impact", json={"current": documents, "proposed": proposed})
    assert stateless.get_json()["changes"] == answer["changes"]
    assert client.post("/v1/impact", json={"current": {}}).status_code == 400
    unchanged = client.post("/v1/impact", json={"current": documents, "proposed": documents})
    assert unchanged.get_json() == {"checked": 1, "count": 0, "changes": []}


def test_selections_of_a_stream_with_many_models(client):
    documents = [
        model_doc("m0"),
        model_doc("m1"),
        model_doc("cluster-wide", kind="ClusterBaseModel", namespace=None),
        runtime_doc("vllm", entry()),
        isvc_doc("svc", model={"name": "m0"}),
    ]
    answer = client.post("/v1/selections", data=_stream(documents), headers=YAML).get_json()
    rows = [
        (r["namespace"], r["name"], r["model"], r["runtime"]["name"]) for r in answer["selections"]
    ]
    assert rows == [
        ("demo", "svc", "m0", "vllm"),
        ("default", None, "cluster-wide", "vllm"),
        ("demo", None, "m1", "vllm"),
    ]
    # Each row is what /v1/select answers for that InferenceService or model.
    single = client.post(
        "/v1/select", data=_stream([model_doc("m1"), runtime_doc("vllm", entry())]), headers=YAML
    ).get_json()
    assert answer["selections"][2]["message"] == single["message"]
    table = client.post(
        "/v1/selections", data=_stream(documents), headers={**YAML, "Accept": "text/plain"}
    ).get_data(as_text=True)
    assert table.splitlines()[0].split() == [
        "NAMESPACE",
        "INFERENCESERVICE",
        "MODEL",
        "RUNTIME",
        "SCOPE",
        "MESSAGE",
    ]
    assert table.splitlines()[3].startswith("demo ") and " - " in table.splitlines()[3]
    only = client.post("/v1/selections?namespace=demo", data=_stream(documents), headers=YAML)
    assert [(r["name"], r["model"]) for r in only.get_json()["selections"]] == [
        ("svc", "m0"),
        (None, "m1"),
    ]
    invalid = runtime_doc("bad", entry(priority=0))
    assert client.post("/v1/selections", data=_stream([invalid]), headers=YAML).status_code == 422
