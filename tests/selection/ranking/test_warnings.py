"""Warnings about what OME accepts but reads otherwise (app/selection/ranking/warnings.py): sizes
that are not plain decimals (rules §9), objects a request repeats (§2), and size ranges a model
without a size leaves unused (§15)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.selection.ranking import rank_runtimes
from app.selection.ranking.warnings import (
    _size_warning,
    repeat_warnings,
    runtime_size_warnings,
    size_warnings,
    unused_size_range_warning,
)
from app.selection.values import RankRequest, RepeatedObject, Runtime, SizeRange
from tests.builders import entry, loaded, model_doc, runtime_doc, serving_runtime


def test_size_warnings_come_model_first_then_namespaced_then_cluster_runtimes_by_name():
    model = loaded(model_doc("llama", size="7b"))
    runtimes = [
        loaded(runtime_doc("b", size_range={"min": "0x1p4M", "max": "8B"})),
        loaded(serving_runtime("z", size_range={"max": "1e3M"})),
        loaded(runtime_doc("a", size_range={"min": "0"})),
        loaded(runtime_doc("plain", size_range={"min": "1B", "max": "70B"})),
    ]
    assert size_warnings(model, runtimes) == [
        'BaseModel llama: spec.modelParameterSize "7b" is read by OME as 0 parameters',
        'ServingRuntime z: spec.modelSizeRange.max "1e3M" is read by OME as 1000000000 parameters',
        'ClusterServingRuntime a: spec.modelSizeRange.min "0" is read by OME as 0 parameters',
        'ClusterServingRuntime b: spec.modelSizeRange.min "0x1p4M" is read by OME as 16000000 '
        "parameters",
    ]


def test_plain_sizes_warn_of_nothing():
    model = loaded(model_doc("llama", size="8B"))
    assert size_warnings(model, [loaded(runtime_doc("rt", size_range={"max": "70B"}))]) == []


def test_repeats_are_warned_about_in_kind_order_then_by_name():
    repeated = [
        RepeatedObject("ClusterServingRuntime", "rt", 2),
        RepeatedObject("InferenceService", "svc", 3),
        RepeatedObject("BaseModel", "b", 2),
        RepeatedObject("BaseModel", "a", 4),
        RepeatedObject("AcceleratorClass", "gpu", 2),  # a kind outside the order comes last
    ]
    assert repeat_warnings(repeated) == [
        "BaseModel a appears 4 times in the request; the last one is used",
        "BaseModel b appears 2 times in the request; the last one is used",
        "InferenceService svc appears 3 times in the request; the last one is used",
        "ClusterServingRuntime rt appears 2 times in the request; the last one is used",
        "AcceleratorClass gpu appears 2 times in the request; the last one is used",
    ]


def rows(model, *runtimes):
    return rank_runtimes(RankRequest(model, tuple(runtimes))).rows


def test_an_unsized_model_leaves_the_ranges_of_qualifying_runtimes_unused():
    model = loaded(model_doc("llama"))
    ranged = loaded(runtime_doc("ranged", entry(), size_range={"min": "1B"}))
    other = loaded(runtime_doc("other-ranged", entry(format_name="onnx"), size_range={"min": "1B"}))
    plain = loaded(runtime_doc("plain", entry()))
    assert unused_size_range_warning(model, rows(model, ranged, other, plain)) == (
        "model has no modelParameterSize, so the modelSizeRange of 1 qualifying runtimes plays "
        "no part"
    )
    assert unused_size_range_warning(model, rows(model, plain)) is None
    sized = loaded(model_doc("llama", size="8B"))
    assert unused_size_range_warning(sized, rows(sized, ranged)) is None


def _size_warnings_of_every_runtime(runtimes: list[Runtime]) -> list[str]:
    """The reference: every runtime sorted, each bound read on its own."""
    found = []
    for runtime in sorted(runtimes, key=lambda r: (r.is_cluster, r.name.encode())):
        bounds = runtime.size_range
        if bounds is None:
            continue
        for field, raw in (("min", bounds.min), ("max", bounds.max)):
            text = (
                None
                if raw is None
                else _size_warning(runtime.kind, runtime.name, f"spec.modelSizeRange.{field}", raw)
            )
            if text is not None:
                found.append(text)
    return found


_SIZES = st.sampled_from(["1B", "70B", "7b", "0", "0x1p4M", "1e3M", "500M", "abc", "0B"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["ServingRuntime", "ClusterServingRuntime"]),
            st.sampled_from(["a", "b", "é", "z"]),  # names repeat: equal keys keep their order
            st.none() | st.tuples(st.none() | _SIZES, st.none() | _SIZES),
        ),
        max_size=12,
    )
)
def test_runtime_size_warnings_agree_with_sorting_every_runtime(specs):
    runtimes = [
        Runtime(kind, name, None, size_range=None if sizes is None else SizeRange(*sizes))
        for kind, name, sizes in specs
    ]
    assert runtime_size_warnings(runtimes) == _size_warnings_of_every_runtime(runtimes)
