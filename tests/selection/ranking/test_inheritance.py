"""Runtime inheritance (app/selection/ranking/inheritance.py, rules §7 step 2): a chain walked
child first with OME's errors (``runtimeinheritance/resolve_test.go``), and the effective spec
merged root first, each child over its parent, where ``null``, ``[]``, ``{}`` and ``""`` are
not set."""

from __future__ import annotations

import pytest

from app.selection.ranking.inheritance import (
    InheritanceError,
    effective_runtime,
    merge_spec,
    resolve_chain,
)
from app.selection.values import SizeRange
from tests.builders import entry, loaded, runtime_doc

INHERIT = "ome.io/inherit-from"


def runtime(name, parent=None, *entries, **spec):
    doc = runtime_doc(name, *entries, **spec)
    if parent is not None:
        doc["metadata"]["annotations"] = {INHERIT: parent}
    if not entries:
        doc["spec"].pop("supportedModelFormats")
    return loaded(doc)


def finder(*runtimes):
    by_name = {r.name: r for r in runtimes}
    return by_name.get


def test_a_runtime_without_a_parent_is_its_own_chain():
    alone = runtime("runtime")
    assert resolve_chain(alone, finder()) == [alone]


def test_a_chain_is_walked_child_first():
    root = runtime("root")
    middle = runtime("middle", "root")
    leaf = runtime("leaf", "middle")
    third = runtime("third", "leaf")
    assert resolve_chain(third, finder(root, middle, leaf)) == [third, leaf, middle, root]


@pytest.mark.parametrize(
    ("runtimes", "start", "message"),
    [
        ([], "runtime", 'inherit-from parent "ghost" not found (chain so far: [runtime])'),
        ([("b", "a")], "a", "inheritance cycle detected: [a b a]"),
        ([], "a", "inheritance cycle detected: [a a]"),  # found before any lookup
        (
            [("n5", "n4"), ("n4", "n3"), ("n3", "n2"), ("n2", "n1"), ("n1", None)],
            "leaf",
            "inheritance chain exceeds max depth 5 (chain: [leaf n5 n4 n3 n2])",
        ),
    ],
)
def test_omes_errors(runtimes, start, message):
    parents = {"runtime": "ghost", "a": "b" if runtimes else "a", "leaf": "n5"}
    others = [runtime(name, parent) for name, parent in runtimes]
    assert resolve_chain(runtime(start, parents[start]), finder(*others)) == InheritanceError(
        message
    )


def test_the_depth_is_checked_before_the_cycle():
    """A fifth runtime that names a parent is too deep, even a parent already in the chain."""
    chain = [runtime(name, parent) for name, parent in (("b", "c"), ("c", "d"), ("d", "e"))]
    fifth = runtime("e", "a")
    start = runtime("a", "b")
    assert resolve_chain(start, finder(*chain, fifth)) == InheritanceError(
        "inheritance chain exceeds max depth 5 (chain: [a b c d e])"
    )


def test_a_child_sets_what_it_sets_and_inherits_the_rest():
    parent = runtime(
        "parent",
        None,
        entry(priority=1),
        disabled=True,
        modelSizeRange={"min": "1B", "max": "8B"},
        acceleratorRequirements={"acceleratorClasses": ["h100"]},
        protocolVersions=["openAI"],
    )
    child = runtime("child", "parent", disabled=False, modelSizeRange={"max": "70B"})
    merged = merge_spec(child, parent)
    assert (merged.name, merged.inherit_from) == ("child", "parent")
    assert merged.disabled is False  # an explicit false is set
    assert merged.entries == parent.entries
    assert merged.size_range == SizeRange("1B", "70B")
    assert merged.accelerator_classes == ("h100",)
    assert merged.protocol_versions == ("openAI",)


@pytest.mark.parametrize(
    "unset",
    [
        {"supportedModelFormats": []},
        {"protocolVersions": []},
        {"acceleratorRequirements": {"acceleratorClasses": []}},
        {"engineConfig": {"annotations": {"ome.io/deploymentMode": ""}}},
    ],
)
def test_empty_values_do_not_remove_what_the_parent_sets(unset):
    parent = runtime(
        "parent",
        None,
        entry(priority=1),
        protocolVersions=["openAI"],
        acceleratorRequirements={"acceleratorClasses": ["h100"]},
        engineConfig={"annotations": {"ome.io/deploymentMode": "MultiNode"}},
    )
    doc = runtime_doc("child", **unset)
    if "supportedModelFormats" not in unset:
        doc["spec"].pop("supportedModelFormats")
    child = loaded(doc)
    merged = merge_spec(child, parent)
    assert merged.entries == parent.entries
    assert merged.protocol_versions == ("openAI",)
    assert merged.accelerator_classes == ("h100",)
    assert merged.engine_mode_annotation == "MultiNode"


def test_a_childs_entries_replace_the_parents_whole():
    parent = runtime("parent", None, entry(priority=1), entry(priority=2))
    child = runtime("child", "parent", entry(priority=3))
    assert merge_spec(child, parent).entries == child.entries


def test_the_effective_spec_merges_root_first():
    root = runtime("root", None, entry(), disabled=True, modelSizeRange={"min": "1B"})
    middle = runtime("middle", "root", modelSizeRange={"max": "8B"}, disabled=False)
    leaf = runtime("leaf", "middle", modelSizeRange={"min": "2B"})
    effective = effective_runtime([leaf, middle, root])
    assert effective.name == "leaf"
    assert effective.size_range == SizeRange("2B", "8B")
    assert effective.disabled is False
    assert effective.entries == root.entries
