"""SPEC §2–§7: qualification, score, order and the explicit runtime, through the
pure selection package (the request schemas build its inputs)."""

import pytest

from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime


def rows_of(ranking):
    return [(row.name, row.scope, row.compatible) for row in ranking.rows]


def row_named(ranking, name, scope="Cluster"):
    return next(r for r in ranking.rows if r.name == name and r.scope == scope)


def test_seed_worked_example(rank):
    model = model_doc("llama-3-2-3b-instruct", namespace="llama-demo", size="3.21B")
    runtimes = [
        serving_runtime("team-llama", namespace="llama-demo"),
        runtime_doc("vllm-llama", entry(weight=2, priority=2)),
        runtime_doc("srt-llama-small", entry(priority=3), size_range={"min": "1B", "max": "8B"}),
        runtime_doc("srt-llama-large", entry(priority=3), size_range={"min": "1B", "max": "70B"}),
    ]
    ranking = rank(rank_body(model, *runtimes))
    assert [(r.name, r.score, r.weight, r.priority, r.distance) for r in ranking.rows] == [
        ("team-llama", 2, 2, 1, 0.0),
        ("vllm-llama", 6, 6, 2, 0.0),
        ("srt-llama-small", 6, 6, 3, 7e9),
        ("srt-llama-large", 6, 6, 3, 69e9),
    ]
    assert ranking.selected.name == "team-llama"
    assert (
        ranking.message
        == "Runtime team-llama will be auto-selected for model llama-3-2-3b-instruct"
    )

    runtimes[2] = runtime_doc(
        "srt-llama-small", entry(priority=4), size_range={"min": "1B", "max": "8B"}
    )
    ranking = rank(rank_body(model, *runtimes))
    assert [r.name for r in ranking.rows] == [
        "team-llama",
        "srt-llama-small",
        "vllm-llama",
        "srt-llama-large",
    ]
    assert row_named(ranking, "srt-llama-small").score == 8


def test_namespace_first_whatever_the_score(rank):
    ranking = rank(
        rank_body(
            model_doc(),
            runtime_doc("big", entry(weight=50, priority=9)),
            serving_runtime("small"),
        )
    )
    assert [r.name for r in ranking.rows] == ["small", "big"]
    assert ranking.selected.scope == "Namespaced"


def test_weight_zero_counts_as_ten_and_five_but_shows_as_zero(rank):
    ranking = rank(
        rank_body(model_doc(), runtime_doc("zero", entry(weight=0, framework_weight=0, priority=2)))
    )
    row = ranking.rows[0]
    assert row.score == (10 + 5) * 2
    assert row.weight == 0  # the explain column reads the raw weights


def test_negative_weight_lowers_score_and_zero_score_excludes(rank):
    ranking = rank(rank_body(model_doc(), runtime_doc("neg", entry(weight=-1))))
    row = ranking.rows[0]
    assert not row.compatible
    assert row.reason == "auto-select score is 0"
    assert ranking.selected is None


def test_weight_column_counts_framework_only_when_positive(rank):
    ranking = rank(
        rank_body(model_doc(), runtime_doc("rt", entry(weight=3, framework_weight=-2, priority=2)))
    )
    row = ranking.rows[0]
    assert row.weight == 6
    assert row.score == (3 - 2) * 2


def test_score_uses_best_entry_but_row_uses_first_matching_entry(rank):
    first = entry(priority=1)
    better = entry(priority=5, architecture="Other")  # scores, but does not match
    ranking = rank(rank_body(model_doc(), runtime_doc("rt", first, better)))
    row = ranking.rows[0]
    assert (row.priority, row.weight, row.score) == (1, 2, 10)


def test_autoselect_false_entry_matches_but_another_entry_scores(rank):
    # The seed page: an autoSelect:true entry with the same format and framework
    # makes a runtime selectable for a model only an autoSelect:false entry matches.
    matching = entry(auto_select=False)
    selectable = entry(architecture="Other", auto_select=True)
    ranking = rank(rank_body(model_doc(), runtime_doc("rt", matching, selectable)))
    assert ranking.rows[0].compatible
    assert ranking.rows[0].score == 2


def test_matching_entry_not_autoselect_and_other_entry_scores_zero(rank):
    matching = entry(auto_select=False)
    other = entry(format_name="onnx", architecture="Other", auto_select=True)
    ranking = rank(rank_body(model_doc(), runtime_doc("rt", matching, other)))
    assert ranking.rows[0].reason == (
        "matching format safetensors is not autoSelect-enabled (a different "
        "supportedModelFormats entry on this runtime has autoSelect=true, but not the one "
        "that matches this model)"
    )


def test_no_autoselect_true_entry(rank):
    ranking = rank(rank_body(model_doc(), runtime_doc("rt", entry(auto_select=None))))
    assert ranking.rows[0].reason == (
        "supports the model but has no supportedModelFormats[].autoSelect=true entry, so "
        "automatic selection skips it (pin it explicitly via spec.runtime.name instead)"
    )


def test_disabled_is_checked_first(rank):
    ranking = rank(
        rank_body(model_doc(), runtime_doc("rt", entry(format_name="onnx"), disabled=True))
    )
    assert ranking.rows[0].reason == "runtime is disabled"


def test_format_mismatch_reason_lists_every_entry(rank):
    entries = [
        entry(format_name="onnx", architecture=None),
        entry(format_version="2.0.0", framework=None, quantization="fp8"),
        entry(framework="vllm", framework_version=None),
    ]
    model = model_doc(size="7B")
    ranking = rank(rank_body(model, runtime_doc("rt", *entries)))
    assert ranking.rows[0].reason == (
        "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0' not in "
        "supported formats: model has architecture LlamaForCausalLM but runtime has no "
        "architecture requirement, format name mismatch (model=safetensors, runtime=onnx); "
        "model has no quantization but runtime requires fp8, format version mismatch "
        "(model=1.0.0, runtime=2.0.0), model has framework transformers but runtime has no "
        "framework requirement; framework name mismatch (model=transformers, runtime=vllm)"
    )


def test_no_supported_formats(rank):
    doc = runtime_doc("rt")
    doc["spec"]["supportedModelFormats"] = []
    ranking = rank(rank_body(model_doc(framework=None, architecture=None), doc))
    assert ranking.rows[0].reason == (
        "model format 'mt:safetensors:1.0.0' not in supported formats: no supported formats defined"
    )


@pytest.mark.parametrize(
    ("model_kwargs", "entry_kwargs", "text"),
    [
        (
            {"architecture": None},
            {},
            "model has no architecture but runtime requires LlamaForCausalLM",
        ),
        ({"architecture": "X"}, {}, "architecture mismatch (model=X, runtime=LlamaForCausalLM)"),
        (
            {"quantization": "int4"},
            {"quantization": "fp8"},
            "quantization mismatch (model=int4, runtime=fp8)",
        ),
        (
            {"quantization": "int4"},
            {},
            "model has quantization int4 but runtime has no quantization requirement",
        ),
        ({"format_version": None}, {}, "model has no format version but runtime requires 1.0.0"),
        (
            {},
            {"format_version": None},
            "model has format version but runtime has no version requirement",
        ),
        (
            {"framework_version": None},
            {},
            "model has no framework version but runtime requires 4.45.0",
        ),
        (
            {},
            {"framework_version": None},
            "model has framework version but runtime has no version requirement",
        ),
        (
            {},
            {"framework_version": "4.46.0"},
            "framework version mismatch (model=4.45.0, runtime=4.46.0)",
        ),
        ({"framework": None}, {}, "model has no framework but runtime requires transformers"),
        ({}, {"format_name": None}, "unknown mismatch"),
    ],
)
def test_single_mismatch_texts(rank, model_kwargs, entry_kwargs, text):
    model = model_doc(**model_kwargs)
    ranking = rank(rank_body(model, runtime_doc("rt", entry(**entry_kwargs))))
    reason = ranking.rows[0].reason
    assert reason.endswith(f"not in supported formats: {text}")


def test_model_label_includes_every_set_part(rank):
    model = model_doc(quantization="fp8", format_version="", framework_version=None)
    ranking = rank(rank_body(model, runtime_doc("rt", entry(format_name="onnx"))))
    assert "model format 'mt:safetensors::LlamaForCausalLM:fp8:transformers' not in" in (
        ranking.rows[0].reason
    )


def test_only_one_side_setting_a_version_still_scores(rank):
    # §4 ignores a version only one side sets, but §3.1 needs both or neither:
    # the autoSelect entry below does not match, yet it gives the runtime its score.
    matching = entry(auto_select=False)
    unversioned = entry(format_version=None, framework_version=None, architecture=None)
    ranking = rank(rank_body(model_doc(), runtime_doc("rt", matching, unversioned)))
    assert ranking.rows[0].compatible
    assert ranking.rows[0].score == 2


def test_greater_than_direction(rank):
    model = model_doc(framework_version="4.45")
    below = runtime_doc("accepts", entry(framework_version="4.46", operator=None))
    below["spec"]["supportedModelFormats"][0]["modelFramework"]["operator"] = "GreaterThan"
    above = runtime_doc("refuses", entry(framework_version="4.44"))
    above["spec"]["supportedModelFormats"][0]["modelFramework"]["operator"] = "GreaterThan"
    ranking = rank(rank_body(model, below, above))
    assert row_named(ranking, "accepts").compatible
    assert not row_named(ranking, "refuses").compatible


def test_size_outside_range_and_labels(rank):
    model = model_doc(size="70B")
    runtimes = [
        runtime_doc("both", size_range={"min": "1B", "max": "8B"}),
        runtime_doc("low", size_range={"min": "80B"}),
        runtime_doc("high", size_range={"max": "8B"}),
        runtime_doc("empty", size_range={}),
    ]
    ranking = rank(rank_body(model, *runtimes))
    assert row_named(ranking, "both").reason == "model size 70B is outside supported range [1B, 8B]"
    assert (
        row_named(ranking, "low").reason == "model size 70B is outside supported range [80B, inf)"
    )
    assert (
        row_named(ranking, "high").reason == "model size 70B is outside supported range (-inf, 8B]"
    )
    assert row_named(ranking, "empty").compatible


def test_bounds_are_inclusive(rank):
    ranking = rank(
        rank_body(model_doc(size="8B"), runtime_doc("rt", size_range={"min": "8B", "max": "8000M"}))
    )
    assert ranking.rows[0].compatible
    assert ranking.rows[0].distance == 0.0


def test_unparseable_size_reads_as_zero_and_warns(rank):
    ranking = rank(rank_body(model_doc(size="7b"), runtime_doc("rt", size_range={"min": "1B"})))
    assert ranking.rows[0].reason == "model size 7b is outside supported range [1B, inf)"
    assert any(
        'spec.modelParameterSize "7b"' in text and " 0 " in text for text in ranking.warnings
    )


def test_nan_size_fits_every_range_and_distance_ties(rank):
    runtimes = [runtime_doc(name, size_range={"min": "1B", "max": "2B"}) for name in ("b", "a")]
    ranking = rank(rank_body(model_doc(size="nan"), *runtimes))
    assert [r.name for r in ranking.rows] == ["a", "b"]
    assert all(r.compatible for r in ranking.rows)


def test_one_bound_ranges_before_ome_1_3(rank):
    model = model_doc(size="7B")
    runtimes = [
        runtime_doc("one", size_range={"min": "1B"}),
        runtime_doc("two", size_range={"min": "1B", "max": "9B"}),
    ]
    old = rank(rank_body(model, *runtimes, omeVersion="1.2.2"))
    assert row_named(old, "one").reason == (
        "modelSizeRange sets only one bound; OME before v1.3 needs both min and max"
    )
    assert row_named(old, "two").compatible
    new = rank(rank_body(model, *runtimes))
    assert row_named(new, "one").distance == 6e9
    assert [r.name for r in new.rows] == ["one", "two"]
    # Without a model size the bounds are never read.
    unsized = rank(rank_body(model_doc(), *runtimes, omeVersion="1.2"))
    assert all(r.compatible for r in unsized.rows)


def test_distance_ties_below_one_parameter(rank):
    model = model_doc(size="10")
    runtimes = [
        runtime_doc("c", size_range={"min": "9.5"}),
        runtime_doc("b", size_range={"min": "9.9"}),
        runtime_doc("a", size_range={"min": "8"}),
    ]
    ranking = rank(rank_body(model, *runtimes))
    # b (0.1) and c (0.5) tie and keep name order; a (2) is at least 1 further.
    assert [r.name for r in ranking.rows] == ["b", "c", "a"]


def test_distances_less_than_one_apart_tie_against_their_names(rank):
    """Names sort opposite to the distances here, so a plain float comparison of the
    distances (instead of the controller's truncated difference) would reorder the rows."""
    model = model_doc(size="1000")
    runtimes = [
        runtime_doc("a", size_range={"min": "999.2"}),  # 0.8
        runtime_doc("b", size_range={"min": "999.9"}),  # 0.1
        runtime_doc("c", size_range={"min": "998.95"}),  # 1.05: more than 1 from b, not from a
        runtime_doc("d", size_range={"min": "997"}),  # 3
    ]
    ranking = rank(rank_body(model, *runtimes))
    assert [r.name for r in ranking.rows] == ["a", "b", "c", "d"]
    assert [round(r.distance, 2) for r in ranking.rows] == [0.8, 0.1, 1.05, 3.0]


def test_distance_only_breaks_score_ties(rank):
    model = model_doc(size="7B")
    ranking = rank(
        rank_body(
            model,
            runtime_doc("near", size_range={"min": "7B", "max": "7B"}),
            runtime_doc("far", entry(priority=2), size_range={"min": "1B", "max": "700B"}),
        )
    )
    assert [r.name for r in ranking.rows] == ["far", "near"]


def test_names_order_bytewise(rank):
    names = ("b", "a0", "a.b", "10", "a-z")  # locale collation ignores "-" and "."
    ranking = rank(rank_body(model_doc(), *(runtime_doc(n) for n in names)))
    assert [r.name for r in ranking.rows] == ["10", "a-z", "a.b", "a0", "b"]


def test_no_rows_follow_namespaced_then_cluster_by_name(rank):
    runtimes = [
        runtime_doc("y-bad", entry(format_name="onnx")),
        serving_runtime("z-bad", entry(format_name="onnx")),
        runtime_doc("ok"),
        runtime_doc("a-bad", disabled=True),
        serving_runtime("b-bad", disabled=True),
    ]
    ranking = rank(rank_body(model_doc(), *runtimes))
    assert [r.name for r in ranking.rows] == ["ok", "b-bad", "z-bad", "a-bad", "y-bad"]


def test_target_namespace_precedence_and_ignored(rank):
    runtimes = [
        serving_runtime("here", namespace="req"),
        serving_runtime("there", namespace="demo"),
        serving_runtime("anywhere", namespace=None),
    ]
    isvc = isvc_doc(namespace="svc-ns")
    ranking = rank(
        rank_body(model_doc(namespace="demo"), *runtimes, inferenceService=isvc, namespace="req")
    )
    assert ranking.namespace == "req"
    assert [r.name for r in ranking.rows] == ["anywhere", "here"]
    assert [(i.name, i.reason) for i in ranking.ignored] == [
        ("there", "ServingRuntime in namespace demo, not in the target namespace req")
    ]
    assert rank(rank_body(model_doc(namespace="demo"), inferenceService=isvc)).namespace == "svc-ns"
    assert rank(rank_body(model_doc(namespace="demo"))).namespace == "demo"
    assert (
        rank(rank_body(model_doc(kind="ClusterBaseModel", namespace="demo"))).namespace == "default"
    )
    assert rank(rank_body(model_doc(namespace="demo"), namespace="")).namespace == "demo"


def test_query_namespace_loses_to_body(rank):
    ranking = rank(rank_body(model_doc(), namespace="body"), namespace="query")
    assert ranking.namespace == "body"
    assert rank(rank_body(model_doc()), namespace="query").namespace == "query"


def test_no_runtime_message(rank):
    """SPEC §15 / OME's *Troubleshoot runtime selection* page: the model is named by its format,
    every candidate is counted, only checks 1-5 are listed, a shared name is listed once with
    the ClusterServingRuntime's reason."""
    runtimes = [
        runtime_doc("same", disabled=True),
        serving_runtime("same", entry(format_name="onnx")),
        runtime_doc("alpha", entry(weight=-5)),  # check 7: counted, not listed
        runtime_doc("quiet", entry(auto_select=None)),  # check 6: counted, not listed
        serving_runtime("solo", entry(architecture="MistralForCausalLM")),
    ]
    ranking = rank(rank_body(model_doc(), *runtimes))
    assert ranking.selected is None
    assert ranking.message == (
        "no runtime found to support model safetensors with format safetensors in namespace "
        "demo. Checked 5 runtimes (2 namespace-scoped, 3 cluster-scoped). Excluded runtimes: "
        "same (runtime is disabled); solo (model format "
        "'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0' not in supported formats: "
        "architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM))"
    )
    assert ranking.excluded() == [
        ("same", "runtime is disabled"),
        ("solo", row_named(ranking, "solo", "Namespaced").reason),
    ]
    assert rank(rank_body(model_doc())).message == (
        "no runtime found to support model safetensors with format safetensors in namespace demo"
    )


def test_shared_name_lists_the_namespaced_reason_when_only_it_is_excluded(rank):
    runtimes = [
        runtime_doc("twin", entry(auto_select=None)),  # passes checks 1-5
        serving_runtime("twin", disabled=True),
    ]
    ranking = rank(rank_body(model_doc(), *runtimes))
    assert ranking.message.endswith(". Excluded runtimes: twin (runtime is disabled)")
    assert ranking.excluded() == [("twin", "runtime is disabled")]


def test_only_skipped_runtimes_leave_no_excluded_part(rank):
    ranking = rank(rank_body(model_doc(), runtime_doc("quiet", entry(auto_select=False))))
    assert ranking.message == (
        "no runtime found to support model safetensors with format safetensors in namespace "
        "demo. Checked 1 runtimes (0 namespace-scoped, 1 cluster-scoped)"
    )


def test_accelerator_classes(rank):
    isvc = isvc_doc(
        annotations={"ome.io/accelerator-class": "a100"},
        acceleratorSelector={"acceleratorClass": "h100"},
    )
    runtimes = [
        runtime_doc("both", acceleratorRequirements={"acceleratorClasses": ["h100", "a100", "x"]}),
        runtime_doc("one", acceleratorRequirements={"acceleratorClasses": ["h100"]}),
        runtime_doc("none"),
    ]
    ranking = rank(rank_body(model_doc(), *runtimes, inferenceService=isvc))
    assert row_named(ranking, "both").compatible
    for name in ("one", "none"):
        assert row_named(ranking, name).reason == (
            "runtime does not support the required accelerator class"
        )


def test_null_accelerator_annotation_requires_empty_class(rank):
    isvc = isvc_doc(annotations={"ome.io/accelerator-class": None})
    runtimes = [
        runtime_doc("empty", acceleratorRequirements={"acceleratorClasses": [""]}),
        runtime_doc("other", acceleratorRequirements={"acceleratorClasses": ["a100"]}),
    ]
    ranking = rank(rank_body(model_doc(), *runtimes, inferenceService=isvc))
    assert row_named(ranking, "empty").compatible
    assert not row_named(ranking, "other").compatible


def test_deployment_modes(rank):
    mode = "ome.io/deploymentMode"
    isvc = isvc_doc(deploymentMode="MultiNode", decoder={"annotations": {mode: "RawDeployment"}})
    runtimes = [
        runtime_doc("raw-engine", engineConfig={"annotations": {mode: "RawDeployment"}}),
        runtime_doc("multi-decoder", decoderConfig={"annotations": {mode: "MultiNode"}}),
        runtime_doc("invalid", engineConfig={"annotations": {mode: "rawdeployment"}}),
        runtime_doc("agree", engineConfig={"annotations": {mode: "MultiNode"}}),
    ]
    ranking = rank(rank_body(model_doc(), *runtimes, inferenceService=isvc))
    assert row_named(ranking, "raw-engine").reason == (
        "runtime engine deployment mode RawDeployment does not match requested engine "
        "deployment mode MultiNode"
    )
    assert row_named(ranking, "multi-decoder").reason == (
        "runtime decoder deployment mode MultiNode does not match requested decoder "
        "deployment mode RawDeployment"
    )
    assert row_named(ranking, "invalid").compatible
    assert row_named(ranking, "agree").compatible


def test_decoder_mode_only_with_decoder(rank):
    mode = "ome.io/deploymentMode"
    runtime = runtime_doc("rt", decoderConfig={"annotations": {mode: "RawDeployment"}})
    without = rank(
        rank_body(model_doc(), runtime, inferenceService=isvc_doc(deploymentMode="MultiNode"))
    )
    assert without.rows[0].compatible
    with_decoder = rank(
        rank_body(
            model_doc(), runtime, inferenceService=isvc_doc(deploymentMode="MultiNode", decoder={})
        )
    )
    assert not with_decoder.rows[0].compatible


def test_explicit_runtime_with_passing_checks_has_no_warning(rank):
    isvc = isvc_doc(runtime={"name": "rt"})
    ranking = rank(
        rank_body(model_doc(), runtime_doc("rt", entry(auto_select=False)), inferenceService=isvc)
    )
    assert ranking.selected.name == "rt"
    assert ranking.selected.score == 0
    assert ranking.warnings == ()


def test_input_order_never_changes_the_answer(rank):
    runtimes = [runtime_doc(n, entry(priority=p)) for n, p in (("a", 1), ("b", 2), ("c", 2))]
    runtimes += [
        serving_runtime("a"),
        serving_runtime("x", namespace="o"),
        serving_runtime("w", namespace="n"),
    ]
    first = rank(rank_body(model_doc(size="7B"), *runtimes))
    second = rank(rank_body(model_doc(size="7B"), *reversed(runtimes)))
    assert rows_of(first) == rows_of(second)
    assert first.ignored == second.ignored
    assert first.warnings == second.warnings
