"""SPEC §19 on rankings: ``decidedBy`` on every ``Yes`` row, ``toWin``/``toWinNote``; checked by
applying the advice and ranking again; and worked out only for the answers that show it."""

from __future__ import annotations

import copy
import random
from itertools import product

import pytest
import yaml
from hypothesis import settings

from app.rendering.answers import OUTPUT_JSON, OUTPUT_TEXT, OUTPUT_YAML
from app.rendering.payloads import shows_advice
from app.selection import prediction
from app.selection.advice import advice_on
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


@pytest.fixture
def advised(monkeypatch) -> list[int]:
    """The rows of each ranking whose advice the rules worked out, one entry per ranking."""
    rankings: list[int] = []

    def counted(ranking, explicit):
        rankings.append(len(ranking.rows))
        return advice_on(ranking, explicit)

    monkeypatch.setattr(prediction, "advice_on", counted)
    return rankings


BY_NAME = "?model=llama&namespace=demo"
ANSWERS_AND_ADVICE = [
    # (method, path, Accept, the rows of the ranking advised on: None where the answer does not
    # show the advice, rules §19). By body: the body's 2 runtimes; by name: the stored 2;
    # overlaid: both.
    ("POST", "/v1/rank", "application/json", 2),
    ("POST", "/v1/rank", "application/yaml", 2),
    ("POST", "/v1/rank", "text/plain", None),
    ("POST", "/v1/select", "application/json", None),
    ("GET", f"/v1/clusters/prod/rank{BY_NAME}", "application/json", 2),
    ("GET", f"/v1/clusters/prod/rank{BY_NAME}", "application/yaml", 2),
    ("GET", f"/v1/clusters/prod/rank{BY_NAME}", "text/plain", None),
    ("GET", f"/v1/clusters/prod/select{BY_NAME}", "application/json", None),
    ("POST", "/v1/clusters/prod/rank", "application/json", 4),
    ("POST", "/v1/clusters/prod/rank", "text/plain", None),
    ("POST", "/v1/clusters/prod/select", "application/json", None),
]


@pytest.mark.parametrize(("method", "path", "accept", "rows"), ANSWERS_AND_ADVICE)
def test_the_advice_is_worked_out_only_for_the_answers_that_show_it(
    client, advised, method, path, accept, rows
):
    """The ways out cost about what the ranking does: the explain table and the selections (by
    body, by name, overlaid) never pay for them."""
    stored = rank_body(model_doc(), runtime_doc("on"), runtime_doc("off", disabled=True))
    assert client.put("/v1/clusters/prod").status_code == 201
    objects = [stored["model"], *stored["runtimes"]]
    assert client.put("/v1/clusters/prod/objects", json=objects).status_code == 200
    body = rank_body(
        model_doc(), runtime_doc("given"), runtime_doc("given-onnx", entry(format_name="onnx"))
    )
    answer = client.open(
        path,
        method=method,
        json=body if method == "POST" else None,
        headers={"Accept": accept},
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert advised == ([] if rows is None else [rows])
    if rows is not None and accept == "application/json":
        assert [row["wayOut"] is not None for row in answer.get_json()["runtimes"]].count(True) == (
            rows // 2
        )


def test_only_the_rank_answers_json_and_yaml_show_the_advice():
    assert [
        shows_advice(endpoint, output)
        for endpoint, output in product(("rank", "select"), (OUTPUT_JSON, OUTPUT_YAML, OUTPUT_TEXT))
    ] == [True, True, False, False, False, False]
