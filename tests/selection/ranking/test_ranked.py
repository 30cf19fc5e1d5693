"""What a ranking answers (app/selection/ranking/ranked.py): the order of distances as the
controller truncates them (rules §5), names in byte order (§15), and the runtimes OME's
no-runtime text lists, each name once (§15)."""

from __future__ import annotations

import math

import pytest

from app.selection.ranking import rank_runtimes
from app.selection.ranking.ranked import Ranking, distance_order, name_key, text_key
from app.selection.values import RankRequest, Runtime
from tests.builders import entry, loaded, model_doc, runtime_doc, serving_runtime


@pytest.mark.parametrize(
    ("a", "b", "order"),
    [
        (1.0, 3.0, -1),
        (3.0, 1.0, 1),
        (1.0, 1.9, 0),  # less than one apart: a tie, as an integer difference is
        (2.5, 1.5, 1),
        (math.inf, 1.0, 1),
        (math.inf, math.inf, 0),  # inf - inf is NaN: no order
        (math.nan, 1.0, 0),
    ],
)
def test_distances_order_by_their_truncated_difference(a, b, order):
    assert distance_order(a, b) == order


def test_names_and_texts_compare_by_their_utf_8_bytes():
    assert name_key(Runtime("ClusterServingRuntime", "é", None)) == b"\xc3\xa9"
    assert text_key(None) == b""
    assert text_key("\ud800") == b"\xed\xa0\x80"  # a lone surrogate orders, rather than fails


def test_the_excluded_runtimes_are_listed_once_a_name_the_cluster_runtimes_reason_first():
    model = loaded(model_doc("llama"))
    runtimes = (
        loaded(serving_runtime("b", entry(format_name="onnx"), namespace="demo")),
        loaded(runtime_doc("b", entry(framework="vllm"))),
        loaded(runtime_doc("a", entry(architecture="Other"))),
        loaded(runtime_doc("ok", entry())),
    )
    ranking = rank_runtimes(RankRequest(model, runtimes))
    assert [name for name, _ in ranking.excluded()] == ["a", "b"]
    reasons = dict(ranking.excluded())
    assert "framework name mismatch (model=transformers, runtime=vllm)" in reasons["b"]
    assert Ranking.excluded_of(ranking.rows) == ranking.excluded()
