"""``wayOut``, ``wayOutNote`` and ``summary`` over HTTP: in the JSON and YAML answers, documented
by the answer schema, and absent from the text table, which stays OME's."""

from __future__ import annotations

import yaml

from app.schemas.rank_answers import RankResponseSchema
from tests.builders import entry, model_doc, rank_body, runtime_doc

BODY = rank_body(
    model_doc(framework_version="4.46.0", distribution="Sharded"),
    runtime_doc("onnx-a", entry(format_name="onnx", modelCacheProviders=["fleet"])),
    runtime_doc("vllm-llama", entry(framework_version="4.45.0", modelCacheProviders=["fleet"])),
    runtime_doc("no-cache", entry(), disabled=True),
    modelCacheProvider="fleet",
)


def test_no_rows_carry_their_way_out_and_the_answer_its_summary(client):
    answer = client.post("/v1/rank", json=BODY).get_json()
    assert RankResponseSchema().validate(answer) == {}
    rows = {row["name"]: row for row in answer["runtimes"]}
    assert rows["vllm-llama"]["wayOut"] == [
        {
            "check": "framework version",
            "entry": 0,
            "field": "modelFramework.version",
            "change": "4.46.0",
        }
    ]
    assert rows["no-cache"]["wayOut"] == [
        {"check": "disabled", "entry": None, "field": "disabled", "change": False},
        {
            "check": "cache provider",
            "entry": 0,
            "field": "modelCacheProviders",
            "change": ["fleet"],
        },
        {
            "check": "framework version",
            "entry": 0,
            "field": "modelFramework.version",
            "change": "4.46.0",
        },
    ]
    assert all(row["wayOutNote"] is None for row in answer["runtimes"])
    assert answer["summary"] == (
        "3 runtimes excluded: disabled ×1, format name mismatch ×1, framework version ×1; "
        "closest: vllm-llama (framework version)"
    )
    assert answer["message"].startswith(
        "no runtime found to support model safetensors with format safetensors in namespace demo."
    )


def test_without_a_provider_the_way_out_says_why_there_is_none(client):
    body = {key: value for key, value in BODY.items() if key != "modelCacheProvider"}
    answer = client.post("/v1/rank", json=body).get_json()
    assert RankResponseSchema().validate(answer) == {}
    assert {row["wayOut"] for row in answer["runtimes"]} == {None}
    assert all("no model cache provider" in row["wayOutNote"] for row in answer["runtimes"])
    assert answer["summary"].endswith(
        "; closest: none (no change to one runtime alone makes it qualify)"
    )


def test_yaml_carries_the_same_and_the_text_table_none_of_it(client):
    as_json = client.post("/v1/rank", json=BODY).get_json()
    as_yaml = client.post("/v1/rank", json=BODY, headers={"Accept": "application/yaml"})
    assert yaml.safe_load(as_yaml.data) == as_json
    table = client.post("/v1/rank", json=BODY, headers={"Accept": "text/plain"}).get_data(True)
    assert table.splitlines()[0].split() == [
        "RUNTIME",
        "SCOPE",
        "COMPATIBLE",
        "PRIORITY",
        "WEIGHT",
        "REASON",
    ]
    assert "excluded" not in table and "wayOut" not in table
    assert len(table.splitlines()) == 4
