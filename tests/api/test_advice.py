"""SPEC §19 on rankings: ``decidedBy`` on every ``Yes`` row, ``toWin``/``toWinNote``; checked by
applying the advice and ranking again."""

from __future__ import annotations

import copy
import random

import yaml
from hypothesis import settings

from tests.builders import entry, model_doc, rank_body, runtime_doc, serving_runtime
from tests.paths import FIXTURES, SEED_YAML


def test_the_seed_page_raise_its_priority_to_4(client):
    answer = client.post(
        "/v1/rank", data=SEED_YAML, headers={"Content-Type": "application/yaml"}
    ).get_json()
    rows = {row["name"]: row for row in answer["runtimes"]}
    assert rows["team-llama"]["decidedBy"] is None
    assert rows["vllm-llama"]["decidedBy"] == "scope"
    assert rows["vllm-llama"]["toWin"] is None  # first of its scope
    assert rows["srt-llama-small"]["decidedBy"] == "distance"
    assert rows["srt-llama-small"]["toWin"] == {"entry": 0, "priority": 4}
    assert rows["srt-llama-small"]["toWinNote"] == (
        "ServingRuntime team-llama in llama-demo qualifies and comes first whatever the score"
    )
    # The text table stays byte for byte the same.
    table = client.post(
        "/v1/rank",
        data=SEED_YAML,
        headers={"Content-Type": "application/yaml", "Accept": "text/plain"},
    ).get_data()
    expected = (FIXTURES / "seed_example.txt").read_bytes()
    assert table == expected


def test_decided_by_score_and_name(client):
    body = rank_body(
        model_doc(),
        runtime_doc("b", entry(priority=2)),
        runtime_doc("a", entry()),
        runtime_doc("c", entry()),
    )
    rows = client.post("/v1/rank", json=body).get_json()["runtimes"]
    assert [(r["name"], r["decidedBy"]) for r in rows] == [
        ("b", None),
        ("a", "score"),
        ("c", "name"),
    ]
    assert rows[2]["toWin"] == {"entry": 0, "priority": 3}  # 2 ties with b, and b wins on name
    assert rows[2]["toWinNote"] is None


def test_a_no_row_that_only_lacks_auto_select(client):
    body = rank_body(model_doc(), runtime_doc("off", entry(auto_select=None)))
    [row] = client.post("/v1/rank", json=body).get_json()["runtimes"]
    assert row["compatible"] is False
    assert row["toWin"] == {"entry": 0, "autoSelect": True}
    body["runtimes"][0]["spec"]["supportedModelFormats"][0]["autoSelect"] = True
    assert client.post("/v1/select", json=body).get_json()["selected"]["name"] == "off"


def test_no_priority_can_win_past_the_int32_the_crd_allows(client):
    top = runtime_doc("a", entry(priority=2**31 - 1, weight=2))  # score 3 x (2^31 - 1)
    body = rank_body(model_doc(), top, runtime_doc("b", entry()))
    rows = {r["name"]: r for r in client.post("/v1/rank", json=body).get_json()["runtimes"]}
    assert rows["b"]["compatible"] is True
    assert rows["b"]["toWin"] is None  # it would need a priority above 2^31 - 1
    assert rows["b"]["toWinNote"] is None


def _random_body(rng: random.Random) -> dict:
    runtimes = []
    for i in range(rng.randint(2, 7)):
        make = serving_runtime if rng.random() < 0.3 else runtime_doc
        entries = [
            entry(
                priority=rng.choice([None, 1, 2, 3, 5]),
                weight=rng.choice([None, 0, 1, 2, 3]),
                framework_weight=rng.choice([None, 0, 1, 2]),
                architecture=rng.choice(["LlamaForCausalLM", "LlamaForCausalLM", "X"]),
                auto_select=rng.choice([True, True, None]),
            )
            for _ in range(rng.randint(1, 3))
        ]
        size = rng.choice([None, {"min": "1B", "max": "8B"}, {"min": "1B", "max": "70B"}])
        runtimes.append(make(f"rt-{i}", *entries, size_range=size))
    return rank_body(model_doc(size=rng.choice([None, "3B", "7B"])), *runtimes)


def _first_in_scope(client, body: dict, name: str, cluster: bool) -> bool:
    rows = client.post("/v1/rank", json=body).get_json()["runtimes"]
    scope = "Cluster" if cluster else "Namespaced"
    first = next(r for r in rows if r["compatible"] and r["scope"] == scope)
    return first["name"] == name


def test_applying_to_win_makes_the_runtime_first_and_one_less_does_not(client):
    # A property test by seeds: 150 under hypothesis's ci profile, 30 under dev.
    seeds = 3 * settings.default.max_examples // 2
    checked = 0
    for seed in range(seeds):
        rng = random.Random(seed)
        body = _random_body(rng)
        rows = client.post("/v1/rank", json=body).get_json()["runtimes"]
        for row in rows:
            advice = row["toWin"]
            if not row["compatible"] or advice is None:
                continue
            cluster = row["scope"] == "Cluster"
            runtime = next(
                r
                for r in body["runtimes"]
                if r["metadata"]["name"] == row["name"]
                and (r["kind"] == "ClusterServingRuntime") == cluster
            )
            changed = copy.deepcopy(body)
            target = changed["runtimes"][body["runtimes"].index(runtime)]
            target["spec"]["supportedModelFormats"][advice["entry"]]["priority"] = advice[
                "priority"
            ]
            assert _first_in_scope(client, changed, row["name"], cluster), (seed, row)
            if advice["priority"] > 1:
                target["spec"]["supportedModelFormats"][advice["entry"]]["priority"] -= 1
                assert not _first_in_scope(client, changed, row["name"], cluster), (seed, row)
            checked += 1
    assert checked > seeds // 3


def test_yaml_answers_carry_the_advice_too(client):
    answer = client.post(
        "/v1/rank",
        data=SEED_YAML,
        headers={"Content-Type": "application/yaml", "Accept": "application/yaml"},
    )
    rows = yaml.safe_load(answer.get_data())["runtimes"]
    assert rows[2]["toWin"] == {"entry": 0, "priority": 4}


def test_to_win_is_exact_for_int64_weights(client):
    # Scores past 2^53: a float division would ask for priority 1000, one too few.
    body = rank_body(
        model_doc(),
        runtime_doc("a", entry(weight=2**60 + 11, priority=1000)),
        runtime_doc("b", entry(weight=2**60)),
    )
    rows = {r["name"]: r for r in client.post("/v1/rank", json=body).get_json()["runtimes"]}
    assert rows["b"]["toWin"] == {"entry": 0, "priority": 1001}
    body["runtimes"][1]["spec"]["supportedModelFormats"][0]["priority"] = 1001
    assert client.post("/v1/select", json=body).get_json()["selected"]["name"] == "b"
    body["runtimes"][1]["spec"]["supportedModelFormats"][0]["priority"] = 1000
    assert client.post("/v1/select", json=body).get_json()["selected"]["name"] == "a"
