"""What a ranking answers (app/selection/ranking/ranked.py): the order of distances as the
controller truncates them (rules §5), names in byte order (§15), and the runtimes OME's
no-runtime text lists, each name once (§15)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def _utf_8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


# Any code point, lone surrogates included (a YAML body may hold one).
_TEXTS = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, categories=None))


@settings(max_examples=500, deadline=None)
@given(_TEXTS, _TEXTS)
def test_text_keys_order_and_tell_apart_texts_as_their_utf_8_bytes_do(a, b):
    assert (text_key(a) < text_key(b)) == (_utf_8(a) < _utf_8(b))
    assert (text_key(a) == text_key(b)) == (_utf_8(a) == _utf_8(b))


def test_names_and_texts_compare_by_their_utf_8_bytes():
    # Byte order is not UTF-16's: U+FF5E sorts before U+1F600 here, after its surrogates there.
    assert text_key("\uff5e") < text_key("\U0001f600") and _utf_8("\uff5e") < _utf_8("\U0001f600")
    assert text_key("\ud800") < text_key("\ue000")  # a lone surrogate orders, rather than fails
    assert name_key(Runtime("ClusterServingRuntime", "é", None)) == text_key("é")
    assert text_key(None) == text_key("") < text_key("\x00")


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
