"""One ``supportedModelFormats`` entry against the model (app/selection/ranking/entries.py): its
match (rules §3.1), the text of a mismatch (§3.2), its score (§4), the model's label (§3.3) and
the WEIGHT column (§6), entry by entry rather than through a whole ranking."""

from __future__ import annotations

import pytest

from app.selection.ranking.entries import (
    configured_provider,
    entry_matches,
    entry_mismatch,
    entry_score,
    model_label,
    row_weight,
    supports_cache_provider,
)
from tests.builders import entry, loaded, model_doc, runtime_doc


def model(**fields):
    return loaded(model_doc("llama", **fields))


def one(**fields):
    """The entry as the runtime schema reads it."""
    return loaded(runtime_doc("rt", entry(**fields))).entries[0]


LLAMA = model()


def test_the_models_label():
    assert model_label(LLAMA) == "mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0"
    bare = model(format_version=None, architecture=None, framework=None, quantization="fp8")
    assert model_label(bare) == "mt:safetensors:fp8"
    assert model_label(model(framework_version=None)).endswith(":LlamaForCausalLM:transformers")


def test_an_entry_that_matches_scores_its_weights_times_its_priority():
    matching = one(weight=3, framework_weight=2, priority=4)
    assert entry_matches(LLAMA, matching)
    assert entry_score(LLAMA, matching) == (3 + 2) * 4
    assert row_weight(matching) == (3 + 2) * 4


def test_a_weight_of_zero_scores_ten_and_five_but_adds_nothing_to_the_weight_column():
    zero = one(weight=0, framework_weight=0)
    assert entry_score(LLAMA, zero) == 10 + 5
    assert row_weight(zero) == 0


@pytest.mark.parametrize(
    ("fields", "mismatch"),
    [
        ({"format_name": "onnx"}, "format name mismatch (model=safetensors, runtime=onnx)"),
        ({"format_version": "2.0.0"}, "format version mismatch (model=1.0.0, runtime=2.0.0)"),
        ({"framework": "vllm"}, "framework name mismatch (model=transformers, runtime=vllm)"),
        (
            {"framework": None},
            "model has framework transformers but runtime has no framework requirement",
        ),
        (
            {"architecture": "Other"},
            "architecture mismatch (model=LlamaForCausalLM, runtime=Other)",
        ),
        (
            {"architecture": None},
            "model has architecture LlamaForCausalLM but runtime has no architecture requirement",
        ),
        ({"quantization": "fp8"}, "model has no quantization but runtime requires fp8"),
        (
            {"format_name": "onnx", "architecture": "Other"},
            "architecture mismatch (model=LlamaForCausalLM, runtime=Other), format name mismatch "
            "(model=safetensors, runtime=onnx)",
        ),
    ],
)
def test_a_mismatch_names_every_difference_in_order(fields, mismatch):
    other = one(**fields)
    assert not entry_matches(LLAMA, other)
    assert entry_mismatch(LLAMA, other) == mismatch


def test_versions_only_score_when_both_sides_set_them_but_must_both_be_absent_to_match():
    """rules §3.1 against §4: an entry that sets no version does not match a model that sets
    one, yet it scores."""
    unversioned = one(format_version=None)
    assert not entry_matches(LLAMA, unversioned)
    assert entry_mismatch(LLAMA, unversioned) == (
        "model has format version but runtime has no version requirement"
    )
    assert entry_score(LLAMA, unversioned) == 2


def test_greater_than_reads_the_entrys_version_on_the_left():
    assert entry_matches(
        model(format_version="1.0.0"), one(format_version="2.0.0", operator="GreaterThan")
    )
    assert not entry_matches(
        model(format_version="3.0.0"), one(format_version="2.0.0", operator="GreaterThan")
    )


def test_no_format_and_no_framework_on_either_side_scores_nothing():
    bare_model = model(framework=None)
    assert entry_score(bare_model, one(format_name=None, framework=None)) == 0


SHARDED = model(distribution="Sharded")


@pytest.mark.parametrize(
    ("providers", "configured", "supported", "mismatch"),
    [
        (["DragonFly"], "DragonFly", True, None),
        (
            ["DragonFly"],
            "",
            False,
            "no model cache provider is configured for sharded model loading",
        ),
        (
            None,
            "DragonFly",
            False,
            'runtime format does not support model cache provider "DragonFly"',
        ),
        (
            ["A", "B"],
            "DragonFly",
            False,
            'runtime format supports model cache providers [A, B], not "DragonFly"',
        ),
    ],
)
def test_a_sharded_model_needs_an_entry_listing_the_clusters_cache_provider(
    providers, configured, supported, mismatch
):
    fields = {} if providers is None else {"modelCacheProviders": providers}
    cached = one(**fields)
    assert supports_cache_provider(SHARDED, cached, configured) is supported
    assert entry_matches(SHARDED, cached, configured) is supported
    assert entry_score(SHARDED, cached, configured) == (2 if supported else 0)
    if mismatch is not None:
        assert entry_mismatch(SHARDED, cached, configured) == mismatch
    assert supports_cache_provider(LLAMA, cached, configured)  # not sharded: no provider needed


def test_the_configured_provider_is_trimmed():
    assert configured_provider(None) == ""
    assert configured_provider("  DragonFly \n") == "DragonFly"
