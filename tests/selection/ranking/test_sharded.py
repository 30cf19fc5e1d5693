"""SPEC §3.1, §3.2, §4: a sharded model matches, and scores with, only entries that list the
cluster's model cache provider (OME's ``model_cache.go``)."""

from __future__ import annotations

import pytest

from tests.builders import entry, model_doc, rank_body, runtime_doc

LABEL = "mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0"


def sharded(**extra) -> dict:
    return model_doc(distribution="Sharded", **extra)


def reason_of(ranking, name="rt") -> str | None:
    return next(row.reason for row in ranking.rows if row.name == name)


@pytest.mark.parametrize(
    ("providers", "configured", "why"),
    [
        (None, None, "no model cache provider is configured for sharded model loading"),
        (["lustre"], None, "no model cache provider is configured for sharded model loading"),
        (["lustre"], "  ", "no model cache provider is configured for sharded model loading"),
        (None, "lustre", 'runtime format does not support model cache provider "lustre"'),
        ([], "lustre", 'runtime format does not support model cache provider "lustre"'),
        (
            ["nfs", "gcs"],
            "lustre",
            'runtime format supports model cache providers [nfs, gcs], not "lustre"',
        ),
        # The configured provider is trimmed; the entry's values are compared as written.
        (
            [" lustre"],
            "lustre",
            'runtime format supports model cache providers [ lustre], not "lustre"',
        ),
    ],
)
def test_sharded_model_needs_the_configured_provider(rank, providers, configured, why):
    extra = {} if providers is None else {"modelCacheProviders": providers}
    query = {} if configured is None else {"modelCacheProvider": configured}
    ranking = rank(rank_body(sharded(), runtime_doc("rt", entry(**extra))), **query)
    assert reason_of(ranking) == f"model format '{LABEL}' not in supported formats: {why}"


def test_the_provider_part_comes_before_the_other_mismatches(rank):
    runtime = runtime_doc("rt", entry(architecture="Other", modelCacheProviders=["nfs"]))
    ranking = rank(rank_body(sharded(), runtime), modelCacheProvider="lustre")
    assert reason_of(ranking).endswith(
        "not in supported formats: runtime format supports model cache providers [nfs], not "
        '"lustre", architecture mismatch (model=LlamaForCausalLM, runtime=Other)'
    )


def test_a_listed_provider_matches_and_scores(rank):
    runtime = runtime_doc("rt", entry(modelCacheProviders=["nfs", "lustre"], priority=2))
    ranking = rank(rank_body(sharded(), runtime), modelCacheProvider=" lustre\n")
    assert ranking.selected.name == "rt"
    assert ranking.rows[0].score == 4


def test_only_sharded_models_read_the_provider(rank):
    for distribution in (None, "Replicated", "sharded"):
        model = model_doc() if distribution is None else model_doc(distribution=distribution)
        ranking = rank(rank_body(model, runtime_doc("rt")))
        assert ranking.selected.name == "rt", distribution


def test_score_counts_only_entries_that_support_the_provider(rank):
    """SPEC §4 step 0: an autoSelect entry of the same format without the provider scores 0,
    even where a matching entry (autoSelect false) lets the runtime qualify."""
    runtime = runtime_doc(
        "rt",
        entry(auto_select=False, modelCacheProviders=["lustre"]),
        entry(auto_select=True, priority=5),
    )
    ranking = rank(rank_body(sharded(), runtime), modelCacheProvider="lustre")
    assert reason_of(ranking).startswith("matching format safetensors is not autoSelect-enabled")
    plain = rank(rank_body(model_doc(), runtime), modelCacheProvider="lustre")
    assert plain.rows[0].score == 10


def test_body_field_wins_over_the_query_parameter(rank):
    runtime = runtime_doc("rt", entry(modelCacheProviders=["a"]))
    body = rank_body(sharded(), runtime, modelCacheProvider="a")
    assert rank(body, modelCacheProvider="b").selected.name == "rt"
