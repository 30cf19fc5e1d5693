"""``app/selection/ranking/runtime_sets.py``: the facts of one set of runtimes that every
question of a namespace shares, worked out once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.schemas.requests import load_rank_request
from app.selection.ranking import rank_runtimes
from app.selection.ranking.runtime_sets import (
    RuntimeSet,
    latest_runtimes,
    model_match_key,
    runtime_identity,
)
from app.selection.values import OtherObject, RankRequest, RepeatedObject, Runtime
from tests.builders import entry, loaded, model_doc, rank_body, runtime_doc, serving_runtime


def request_of(*runtimes):
    return load_rank_request(rank_body(model_doc(), *runtimes), {})


def test_only_runtimes_with_an_entry_of_the_models_key_and_auto_select_may_match():
    request = request_of(
        runtime_doc("fits", entry()),
        runtime_doc("other-arch", entry(architecture="Other")),
        runtime_doc("no-auto", entry(auto_select=False)),
        runtime_doc(
            "no-auto-at-all", entry(format_name="onnx", auto_select=False), entry(auto_select=None)
        ),
        runtime_doc("another-entry-auto", entry(format_name="onnx"), entry(auto_select=None)),
    )
    facts = RuntimeSet(request.runtimes).in_namespace("demo")
    names = {id(r): r.name for r in request.runtimes}
    assert sorted(names[i] for i in facts.may_match(request.model)) == [
        "another-entry-auto",
        "fits",
    ]
    key = model_match_key(request.model)
    assert key == ("safetensors", "LlamaForCausalLM", None, "transformers")


def test_each_namespace_sees_its_own_candidates_once():
    request = request_of(
        runtime_doc("shared", entry()),
        serving_runtime("team", entry(), namespace="demo"),
        serving_runtime("theirs", entry(), namespace="other"),
    )
    shared = RuntimeSet(request.runtimes)
    demo = shared.in_namespace("demo")
    assert [r.name for r in demo.candidates] == ["shared", "team"]
    assert [item.name for item in demo.ignored] == ["theirs"]
    assert shared.in_namespace("demo") is demo  # worked out once
    assert [r.name for r in shared.in_namespace("other").candidates] == ["shared", "theirs"]


def test_the_candidates_size_warnings_are_kept_with_them():
    odd = runtime_doc("odd", entry())
    odd["spec"]["modelSizeRange"] = {"min": "7b", "max": "8B"}
    facts = RuntimeSet(request_of(odd).runtimes).in_namespace("demo")
    assert facts.size_warnings == [
        'ClusterServingRuntime odd: spec.modelSizeRange.min "7b" is read by OME as 0 parameters'
    ]


def _latest_by_identity(runtimes, namespace):
    """The reference: every runtime's identity (``runtime_identity``) counted."""
    latest, counts = {}, {}
    for runtime in runtimes:
        key = runtime_identity(runtime, namespace)
        latest[key] = runtime
        counts[key] = counts.get(key, 0) + 1
    repeated = [
        RepeatedObject(kind, name, count)
        for (kind, where, name), count in counts.items()
        if count > 1 and where in ("", namespace)
    ]
    return list(latest.values()), repeated


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["ServingRuntime", "ClusterServingRuntime"]),
            st.sampled_from(["a", "b", "c"]),
            st.sampled_from([None, "", "demo", "other"]),
        ),
        max_size=10,
    )
)
def test_latest_runtimes_agree_with_counting_every_identity(specs):
    # A runtime is told apart by identity: the latest copy is the one kept.
    runtimes = tuple(Runtime(kind, name, namespace) for kind, name, namespace in specs)
    latest, repeated = latest_runtimes(runtimes, "demo")
    want_latest, want_repeated = _latest_by_identity(runtimes, "demo")
    assert [id(r) for r in latest] == [id(r) for r in want_latest]
    assert repeated == want_repeated


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "é"]), st.sampled_from(["n1", "n2", "demo"])),
        max_size=8,
        unique=True,  # a repeated runtime is one object (rules §2): another test's matter
    ),
    st.lists(
        st.tuples(
            st.none() | st.sampled_from(["ConfigMap", "ServingRuntime"]),
            st.none() | st.sampled_from(["a", "b"]),
            st.none() | st.sampled_from(["n1", "n2"]),
        ),
        max_size=4,
    ),
)
def test_the_ignored_are_in_order_however_they_come(runtimes, others):
    # Equal keys (a runtime and another object of the same kind, name and namespace) keep the
    # order of a sort of them all: the other objects first, then the runtimes as given.
    request = RankRequest(
        loaded(model_doc()),
        tuple(Runtime("ServingRuntime", name, namespace) for name, namespace in runtimes),
        namespace="demo",
        others=tuple(OtherObject(*fields) for fields in others),
    )
    ignored = rank_runtimes(request).ignored
    unsorted = [
        (other.kind, other.name, other.namespace, other.reason) for other in request.others
    ] + [
        (
            r.kind,
            r.name,
            r.namespace,
            f"ServingRuntime in namespace {r.namespace}, not in the target namespace demo",
        )
        for r in request.runtimes
        if r.namespace != "demo"
    ]
    expected = sorted(unsorted, key=lambda i: tuple((t or "").encode() for t in i[2::-1]))
    assert [(i.kind, i.name, i.namespace, i.reason) for i in ignored] == expected
