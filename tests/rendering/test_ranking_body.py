"""A ``Prediction`` as the bodies of rules §15 (app/rendering/ranking_body.py), rendered directly:
the seed example's explain table is the text answer byte for byte, and the JSON bodies of
``/v1/rank`` and ``/v1/select`` carry the fields the answer schema documents."""

from __future__ import annotations

import json
import math

import pytest

from app.reading.manifests import read_yaml_stream
from app.rendering.ranking_body import excluded_reasons, explain_table, ranking_body, select_body
from app.schemas.requests import load_rank_request
from app.selection.prediction import rank_and_place
from tests.builders import entry, model_doc, rank_body, runtime_doc
from tests.paths import FIXTURES, SEED_YAML

SELECTED = {"name": "team-llama", "scope": "Namespaced", "score": 2, "explicit": False}
MESSAGE = "Runtime team-llama will be auto-selected for model llama-3-2-3b-instruct"


def predicted(body):
    return rank_and_place(load_rank_request(body, {}), with_advice=True)


SEED = predicted(read_yaml_stream(SEED_YAML).request)


def test_the_seed_examples_explain_table_is_the_text_answer():
    assert explain_table(SEED.ranking) == (FIXTURES / "seed_example.txt").read_text("utf-8")


def test_the_rank_answer_is_the_rank_body_and_nothing_else(client):
    """The view renders the body as it is: what tests/api/test_endpoints.py pins of the answer
    is this module's."""
    answer = client.post("/v1/rank", data=SEED_YAML, headers={"Content-Type": "application/yaml"})
    assert answer.status_code == 200
    assert answer.get_json() == json.loads(json.dumps(ranking_body(SEED)))
    assert (ranking_body(SEED)["selected"], ranking_body(SEED)["message"]) == (SELECTED, MESSAGE)


def test_the_select_body_is_the_selection_and_its_placement():
    assert select_body(SEED) == {
        "selected": SELECTED,
        "message": MESSAGE,
        "warnings": [],
        "placement": {
            "entry": {"index": 0, "name": "safetensors", "score": 2, "definedIn": None},
            "engine": None,
            "decoder": None,
            "event": None,
        },
    }


def test_the_excluded_runtimes_reasons_by_name():
    prediction = predicted(
        rank_body(
            model_doc(),
            runtime_doc("onnx-rt", entry(format_name="onnx")),
            runtime_doc("off", entry(), disabled=True),
        )
    )
    reasons = excluded_reasons(prediction.ranking)
    assert reasons["off"] == "runtime is disabled"
    assert reasons["onnx-rt"].endswith("format name mismatch (model=safetensors, runtime=onnx)")
    assert ranking_body(prediction)["selected"] is None
    assert excluded_reasons(SEED.ranking) == {}


def test_a_ranking_ranked_without_its_advice_is_not_rendered_as_the_json_body():
    """The body shows the advice (rules §19) and rendering does not work it out: a prediction
    made without it is refused, never rendered with null advice on every row."""
    bare = rank_and_place(load_rank_request(read_yaml_stream(SEED_YAML).request, {}))
    assert bare.advice is None
    with pytest.raises(ValueError, match="with_advice=True"):
        ranking_body(bare)
    # what the answers without advice read is there
    assert select_body(bare) == select_body(SEED)
    assert explain_table(bare.ranking) == explain_table(SEED.ranking)


def test_a_way_outs_changes_are_plain_objects_a_list_value_a_list():
    # The cache providers' fix is a tuple in the advice: the body holds it as a list, as it
    # holds every other value as it is.
    prediction = predicted(
        rank_body(
            model_doc(distribution="Sharded"),  # rules §3.1: the provider is read
            runtime_doc("no-cache", entry(modelCacheProviders=["fleet"]), disabled=True),
            modelCacheProvider="edge",
        )
    )
    (row,) = ranking_body(prediction)["runtimes"]
    assert row["wayOut"] == [
        {"check": "disabled", "entry": None, "field": "disabled", "change": False},
        {
            "check": "cache provider",
            "entry": 0,
            "field": "modelCacheProviders",
            "change": ["fleet", "edge"],
        },
    ]
    assert type(row["wayOut"][1]["change"]) is list


@pytest.mark.parametrize(
    ("size", "size_range"),
    [("inf", {"min": "1B"}), ("8B", {"min": "1B", "max": "8B"}), ("2B", {"max": "8B"})],
)
def test_a_rows_distance_in_the_body_is_null_unless_finite(size, size_range):
    # rules §9: in the body itself, not only once JSON has written a non-finite float as null.
    prediction = predicted(
        rank_body(model_doc(size=size), runtime_doc("rt", size_range=size_range))
    )
    (ranked,) = prediction.ranking.rows
    (row,) = ranking_body(prediction)["runtimes"]
    assert (row["name"], row["scope"]) == ("rt", "Cluster")
    if size == "inf":
        assert ranked.distance == math.inf and row["distance"] is None
    else:
        assert math.isfinite(ranked.distance) and row["distance"] == ranked.distance
