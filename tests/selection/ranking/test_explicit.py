"""SPEC §7: an InferenceService that names its runtime — lookup by ``spec.runtime.kind``,
inheritance on the explicit path, ``disabled`` on the effective spec, OME's warning and the
refusal for sharded models. Texts are OME's (*Reference a runtime explicitly*, *Runtime
inheritance*)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from app.selection.ranking.explicit import lookup_order
from app.selection.values import go_quote
from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime

INHERIT = "ome.io/inherit-from"


def named(name: str, kind: str | None = None, **extra) -> dict:
    runtime = {"name": name}
    if kind is not None:
        runtime["kind"] = kind
    return isvc_doc(runtime=runtime, **extra)


def child(name: str, parent: str, *entries: dict, kind: str = "ClusterServingRuntime", **spec):
    document = (
        runtime_doc(name, *entries, **spec)
        if kind == "ClusterServingRuntime"
        else serving_runtime(name, *entries, **spec)
    )
    document["metadata"]["annotations"] = {INHERIT: parent}
    if not entries:
        document["spec"].pop("supportedModelFormats")
    return document


@pytest.fixture
def explicit(rank):
    def run(isvc: dict, *runtimes: dict, model: dict | None = None, **query: str):
        return rank(rank_body(model or model_doc(), *runtimes, inferenceService=isvc), **query)

    return run


# -- lookup by kind ---------------------------------------------------------------------------


SHARED = (serving_runtime("shared", entry(format_name="onnx")), runtime_doc("shared"))


def test_absent_kind_is_the_crd_default_cluster_first(explicit):
    ranking = explicit(named("shared"), *SHARED)
    assert (ranking.selected.name, ranking.selected.scope) == ("shared", "Cluster")
    assert ranking.warnings == ()


def test_kind_serving_runtime_finds_the_namespaced_one(explicit):
    ranking = explicit(named("shared", "ServingRuntime"), *SHARED)
    assert ranking.selected.scope == "Namespaced"
    assert ranking.warnings[0].startswith('runtime "shared" does not declare support')


def test_cluster_kind_falls_back_to_the_namespace(explicit):
    ranking = explicit(named("mine"), serving_runtime("mine"))
    assert ranking.selected.scope == "Namespaced"


def test_kind_serving_runtime_never_falls_back_to_cluster_scope(explicit):
    ranking = explicit(named("global", "ServingRuntime"), runtime_doc("global"))
    assert ranking.selected is None
    assert ranking.error.code == "RuntimeNotFound"
    assert ranking.message == "ServingRuntime global not found in namespace demo"


@pytest.mark.parametrize("kind", ["", "servingruntime", "Other"])
def test_any_other_kind_looks_in_the_namespace_first(explicit, kind):
    ranking = explicit(named("shared", kind), *SHARED)
    assert ranking.selected.scope == "Namespaced"


def test_before_1_3_kind_is_ignored_and_the_namespace_comes_first(explicit):
    for kind in (None, "ClusterServingRuntime"):
        ranking = explicit(named("shared", kind), *SHARED, omeVersion="1.2.2")
        assert ranking.selected.scope == "Namespaced"
    missing = explicit(named("global", "ServingRuntime"), runtime_doc("x"), omeVersion="1.2")
    assert missing.message == "runtime global not found in namespace demo or at cluster scope"


def test_not_found_messages(explicit):
    runtimes = (runtime_doc("off", disabled=True), serving_runtime("far", namespace="other"))
    missing = explicit(named("far"), *runtimes)
    assert missing.error.code == "RuntimeNotFound"
    assert missing.message == "runtime far not found in namespace demo or at cluster scope"
    assert missing.notes == (
        "spec.runtime is explicit; automatic selection below is hypothetical.",
    )
    empty = explicit(named(""), *runtimes)
    assert empty.message == "runtime  not found in namespace demo or at cluster scope"


def test_disabled_explicit_runtime(explicit):
    off = explicit(named("off"), runtime_doc("off", disabled=True))
    assert (off.error.code, off.message) == (
        "RuntimeDisabled",
        "cluster-scoped runtime off is disabled",
    )
    mine = explicit(named("mine", "ServingRuntime"), serving_runtime("mine", disabled=True))
    assert mine.message == "namespace-scoped runtime mine is disabled"


# -- OME's warning: the whole inner error ----------------------------------------------------


def test_warning_carries_the_whole_inner_error_for_a_format_mismatch(explicit):
    model = model_doc(
        "llama-3-2-1b-instruct", framework_version="4.46.0", kind="ClusterBaseModel", namespace=None
    )
    runtime = runtime_doc(
        "srt-llama-3-2-1b-instruct",
        entry(framework_version="4.45.0.dev0", auto_select=False),
        size_range={"min": "500M", "max": "2B"},
    )
    ranking = explicit(
        named("srt-llama-3-2-1b-instruct", namespace="llama-demo"), runtime, model=model
    )
    assert ranking.selected.name == "srt-llama-3-2-1b-instruct"
    assert ranking.selected.explicit is True
    assert ranking.warnings == (
        'runtime "srt-llama-3-2-1b-instruct" does not declare support for model '
        '"llama-3-2-1b-instruct" (runtime srt-llama-3-2-1b-instruct does not support model '
        "safetensors: model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.46.0' "
        "not in supported formats: framework version mismatch (model=4.46.0, "
        "runtime=4.45.0.dev0)); proceeding because the runtime was named explicitly",
    )


def test_warning_names_no_model_for_accelerator_and_mode_failures(explicit):
    isvc = named("rt", annotations={"ome.io/accelerator-class": "h100"})
    ranking = explicit(isvc, runtime_doc("rt"))
    assert ranking.warnings == (
        'runtime "rt" does not declare support for model "llama" (runtime rt does not support '
        "model : runtime does not support the required accelerator class); proceeding because "
        "the runtime was named explicitly",
    )
    moded = named("rt", deploymentMode="RawDeployment")
    runtime = runtime_doc(
        "rt", engineConfig={"annotations": {"ome.io/deploymentMode": "MultiNode"}}
    )
    assert (
        "(runtime rt does not support model : runtime engine deployment mode MultiNode"
        in (explicit(moded, runtime).warnings[0])
    )


def test_warning_names_the_format_for_a_size_failure(explicit):
    runtime = runtime_doc("rt", size_range={"min": "10B", "max": "20B"})
    ranking = explicit(named("rt"), runtime, model=model_doc(size="3B"))
    assert (
        "(runtime rt does not support model safetensors: model size 3B is outside supported "
        "range [10B, 20B]); proceeding" in ranking.warnings[0]
    )


def test_names_are_go_quoted_in_the_warning(explicit):
    runtime = runtime_doc("odd.name", entry(format_name="onnx"))
    ranking = explicit(named("odd.name"), runtime)
    assert ranking.warnings[0].startswith('runtime "odd.name" does not declare support')
    # Kubernetes names need no escapes; Go's %q escapes what older stored objects may hold.
    assert go_quote('odd"na\\me\x1b\u00e9') == '"odd\\"na\\\\me\\x1bé"'


def test_explicit_score_is_the_section_4_score(explicit):
    """autoSelect plays no part in choosing it, but the §4 score still skips autoSelect=false."""
    counted = explicit(named("rt"), runtime_doc("rt", entry(auto_select=None, priority=3)))
    assert (counted.selected.score, counted.warnings) == (6, ())
    skipped = explicit(named("rt"), runtime_doc("rt", entry(auto_select=False, priority=3)))
    assert (skipped.selected.name, skipped.selected.score, skipped.warnings) == ("rt", 0, ())


# -- sharded models --------------------------------------------------------------------------


def sharded(**extra) -> dict:
    return model_doc(distribution="Sharded", **extra)


def test_sharded_model_on_an_explicit_runtime_without_the_provider_is_refused(explicit):
    ranking = explicit(named("rt"), runtime_doc("rt"), model=sharded())
    assert ranking.selected is None
    assert ranking.error.code == "RuntimeIncompatible"
    assert ranking.message == (
        "runtime rt does not support model llama: runtime rt does not support model safetensors: "
        "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0' not in "
        "supported formats: no model cache provider is configured for sharded model loading"
    )


def test_sharded_model_with_a_listed_provider_is_selected(explicit):
    runtime = runtime_doc("rt", entry(modelCacheProviders=["lustre"]))
    ranking = explicit(named("rt"), runtime, model=sharded(), modelCacheProvider=" lustre ")
    assert ranking.selected.name == "rt"
    assert ranking.warnings == ()


# -- inheritance -----------------------------------------------------------------------------


def test_child_inherits_its_parents_formats_and_keeps_its_own_enablement(explicit):
    profile = runtime_doc("profile", entry(auto_select=None), disabled=True)
    kid = child("kid", "profile", disabled=False)
    ranking = explicit(named("kid"), profile, kid)
    assert ranking.selected.name == "kid"
    assert ranking.selected.score == 2
    assert ranking.warnings == ()
    # Without inheritance (and so before 1.3) the child has no formats: a warning, score 0.
    old = explicit(named("kid"), profile, kid, omeVersion="1.2.2")
    assert old.selected.score == 0
    assert "no supported formats defined" in old.warnings[0]


def test_the_ranking_rows_read_each_runtimes_own_spec(explicit):
    profile = runtime_doc("profile", entry(), disabled=True)
    kid = child("kid", "profile", disabled=False)
    ranking = explicit(named("kid"), profile, kid)
    rows = {row.name: row.reason for row in ranking.rows}
    assert rows["kid"].endswith("not in supported formats: no supported formats defined")


def test_a_child_inherits_disabled_unless_it_sets_it(explicit):
    profile = runtime_doc("profile", entry(), disabled=True)
    ranking = explicit(named("kid"), profile, child("kid", "profile"))
    assert (ranking.error.code, ranking.message) == (
        "RuntimeDisabled",
        "cluster-scoped runtime kid is disabled",
    )


def test_size_range_merges_key_by_key_and_empty_values_do_not_override(explicit):
    parent = runtime_doc("parent", entry(), size_range={"min": "1B", "max": "2B"})
    kid = child("kid", "parent", modelSizeRange={"max": "8B", "min": ""})
    ranking = explicit(named("kid"), parent, kid, model=model_doc(size="3B"))
    # Effective range [1B, 8B]: only the own-spec size warning for the child's "" remains.
    assert ranking.warnings == (
        'ClusterServingRuntime kid: spec.modelSizeRange.min "" is read by OME as 0 parameters',
    )
    small = explicit(named("kid"), parent, kid, model=model_doc(size="500M"))
    assert "model size 500M is outside supported range [1B, 8B]" in small.warnings[0]


def test_a_childs_list_replaces_its_parents_and_an_empty_list_keeps_it(explicit):
    parent = runtime_doc("parent", entry(format_name="onnx"))
    own = child("own", "parent", entry())
    empty = child("empty", "parent")
    empty["spec"]["supportedModelFormats"] = []
    assert explicit(named("own"), parent, own).warnings == ()
    assert "format name mismatch" in explicit(named("empty"), parent, empty).warnings[0]


def test_annotations_merge_by_key(explicit):
    mode = {"annotations": {"ome.io/deploymentMode": "MultiNode"}}
    parent = runtime_doc("parent", entry(), engineConfig=mode)
    kid = child("kid", "parent", engineConfig={"annotations": {"ome.io/deploymentMode": ""}})
    ranking = explicit(named("kid", deploymentMode="RawDeployment"), parent, kid)
    assert "runtime engine deployment mode MultiNode does not match" in ranking.warnings[0]


def test_a_serving_runtime_finds_its_parent_in_the_namespace_then_at_cluster_scope(explicit):
    cluster_parent = runtime_doc("base", entry(format_name="onnx"))
    local_parent = serving_runtime("base", entry())
    kid = child("kid", "base", kind="ServingRuntime")
    both = explicit(named("kid", "ServingRuntime"), cluster_parent, local_parent, kid)
    assert both.warnings == ()  # the namespaced parent won
    only_cluster = explicit(named("kid", "ServingRuntime"), cluster_parent, kid)
    assert "format name mismatch" in only_cluster.warnings[0]


def test_a_cluster_runtime_never_inherits_from_a_namespaced_one(explicit):
    kid = child("kid", "base")
    ranking = explicit(named("kid"), serving_runtime("base", entry()), kid)
    assert ranking.error.code == "RuntimeInheritanceError"
    assert ranking.message == 'inherit-from parent "base" not found (chain so far: [kid])'


def test_missing_parent_names_the_chain_so_far(explicit):
    runtimes = (child("a", "b", entry()), child("b", "gone"))
    ranking = explicit(named("a"), *runtimes)
    assert ranking.message == 'inherit-from parent "gone" not found (chain so far: [a b])'


def test_cycles(explicit):
    itself = explicit(named("loop"), child("loop", "loop", entry()))
    assert itself.message == "inheritance cycle detected: [loop loop]"
    longer = explicit(named("a"), child("a", "b", entry()), child("b", "a"))
    assert longer.message == "inheritance cycle detected: [a b a]"
    # Names alone count: a ServingRuntime naming the ClusterServingRuntime of its own name.
    own_name = explicit(
        named("same", "ServingRuntime"),
        child("same", "same", entry(), kind="ServingRuntime"),
        runtime_doc("same"),
    )
    assert own_name.message == "inheritance cycle detected: [same same]"


def test_depth_limit_comes_before_the_cycle_check(explicit):
    names = ["r1", "r2", "r3", "r4", "r5"]
    chain = [child(name, parent, entry()) for name, parent in pairwise(names)]
    five = explicit(named("r1"), *chain, runtime_doc("r5"))
    assert five.error is None and five.selected.name == "r1"
    too_deep = explicit(named("r1"), *chain, child("r5", "r6"), runtime_doc("r6"))
    assert too_deep.message == "inheritance chain exceeds max depth 5 (chain: [r1 r2 r3 r4 r5])"
    cycle_at_five = explicit(named("r1"), *chain, child("r5", "r1"))
    assert cycle_at_five.message.startswith("inheritance chain exceeds max depth 5")


def test_null_or_empty_inherit_from_names_no_parent(explicit):
    for parent in (None, ""):
        runtime = runtime_doc("rt")
        runtime["metadata"]["annotations"] = {INHERIT: parent}
        assert explicit(named("rt"), runtime).error is None


@pytest.mark.parametrize(
    ("kind", "modern", "order"),
    [
        (None, True, ("ClusterServingRuntime", "ServingRuntime")),  # the CRD's default
        ("ClusterServingRuntime", True, ("ClusterServingRuntime", "ServingRuntime")),
        ("ServingRuntime", True, ("ServingRuntime",)),
        ("", True, ("ServingRuntime", "ClusterServingRuntime")),  # any other value
        ("Other", True, ("ServingRuntime", "ClusterServingRuntime")),
        ("ClusterServingRuntime", False, ("ServingRuntime", "ClusterServingRuntime")),  # 1.2
    ],
)
def test_where_a_named_runtime_is_looked_up_first(kind, modern, order):
    """rules §7 step 1, the lookup itself rather than through a ranking."""
    assert lookup_order(kind, modern) == order
