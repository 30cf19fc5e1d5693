"""OME's ServingRuntime and ClusterServingRuntime webhooks (app/selection/admission/runtimes.py),
called directly: the refusals in the order the webhook meets them (OME's
``servingruntime_webhook_test.go``, ``inheritance_validation_test.go``,
``policy_ref_validation_test.go``, ``scaling_policy_validation_test.go``), and the notes on what
OME accepts of a runtime but reads otherwise (rules §13, §18, §20.7)."""

from __future__ import annotations

import pytest

from app.selection.admission import INFO, Finding
from app.selection.admission.runtimes import (
    ParentFinder,
    Peers,
    annotation,
    different_priorities,
    runtime_notes,
    runtime_refusals,
    same_priority,
    size_note,
)
from tests.builders import entry, loaded, runtime_doc, serving_runtime

SR, CSR = "ServingRuntime", "ClusterServingRuntime"
PROFILE = "ome.io/runtime-profile"
INHERIT = "ome.io/inherit-from"


def named(name="vllm", priority=1, auto_select=True, **fields):
    """An entry as OME's webhook compares them: a ``name`` and neither modelFormat nor
    modelFramework (either makes two entries never "the same format": see runtimes.py)."""
    return entry(
        format_name=None,
        framework=None,
        architecture=None,
        auto_select=auto_select,
        priority=priority,
        name=name,
        **fields,
    )


def manifest(name, *entries, namespace="test", annotations=None, **spec):
    spec.setdefault("protocolVersions", ["openAI"])
    if namespace is None:
        doc = runtime_doc(name, *entries, **spec)
    else:
        doc = serving_runtime(name, *entries, namespace=namespace, **spec)
    if annotations is not None:
        doc["metadata"]["annotations"] = annotations
    return doc


def runtime(name, *entries, **fields):
    return loaded(manifest(name, *entries, **fields))


def refusals(doc, *others, classes=None, modern=True):
    subject = loaded(doc)
    cluster = [subject, *(loaded(other) for other in others)]
    return runtime_refusals(subject, cluster, modern, manifest=doc, classes=classes)


def info(doc_or_runtime, field, code, message):
    rt = doc_or_runtime
    return Finding(INFO, rt.kind, rt.namespace, rt.name, field, code, message)


# --- within one runtime -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind_namespace", "word"),
    [("test", "servingruntime"), (None, "clusterservingruntime")],
)
def test_one_format_at_two_priorities_is_refused(kind_namespace, word):
    rt = runtime("rt-solo", named("vllm", 1), named("vllm", 2), namespace=kind_namespace)
    assert different_priorities(rt) == (
        f"different priorities assigned for the model format vllm under the {word} rt-solo"
    )


@pytest.mark.parametrize(
    "entries",
    [
        (named("vllm", 1), named("vllm", 1)),
        (named("vllm", 1), named("vllm", None)),
        (named("vllm", None), named("vllm", 2)),  # the first records no priority
        (named("vllm", 1), named("vllm", 2, auto_select=False)),
        (named("vllm", 1), named("VLLM", 2)),  # names compare exactly here
    ],
)
def test_what_the_priority_rule_within_a_runtime_lets_through(entries):
    assert different_priorities(runtime("rt", *entries)) is None


# --- against the runtimes that exist ------------------------------------------------------------


CLASH = (
    "same priority assigned for the model format vllm in the servingruntimes example-runtime-2 "
    "and example-runtime-1 in namespace test"
)


def test_the_same_format_at_the_same_priority_clashes_naming_the_existing_runtime_first():
    new = runtime("example-runtime-1", named(version="1"))
    existing = runtime("example-runtime-2", named(version="1"))
    assert same_priority(new, existing) == CLASH


def test_between_cluster_runtimes_the_text_names_no_namespace():
    new = runtime("rt-c", named("safetensors", version="1"), namespace=None)
    existing = runtime("rt-a", named("safetensors", version="1"), namespace=None)
    assert same_priority(new, existing) == (
        "same priority assigned for the model format safetensors in the clusterservingruntimes "
        "rt-a and rt-c"
    )


def test_names_compare_without_case():
    new = runtime("example-runtime-1", named("VLLM"))
    existing = runtime("example-runtime-2", named("vllm"))
    assert same_priority(new, existing) == (
        "same priority assigned for the model format VLLM in the servingruntimes "
        "example-runtime-2 and example-runtime-1 in namespace test"
    )


@pytest.mark.parametrize(
    ("new_fields", "existing_fields"),
    [
        ({}, {"disabled": True}),
        ({}, {"protocolVersions": ["grpc-v2"]}),
        ({"protocolVersions": []}, {"protocolVersions": []}),  # none set: none shared
        ({"modelSizeRange": {"min": "1B"}}, {}),
        ({"modelSizeRange": {"min": "1B"}}, {"modelSizeRange": {"min": "2B"}}),
    ],
)
def test_no_clash_without_an_enabled_runtime_sharing_a_protocol_and_the_size_range(
    new_fields, existing_fields
):
    new = runtime("example-runtime-1", named(), **new_fields)
    existing = runtime("example-runtime-2", named(), **existing_fields)
    assert same_priority(new, existing) is None


@pytest.mark.parametrize(
    "size_range", [None, {}, {"min": "10", "max": "100"}], ids=["absent", "empty", "both"]
)
def test_equal_size_ranges_clash(size_range):
    fields = {} if size_range is None else {"modelSizeRange": size_range}
    new = runtime("rt-new", named("safetensors"), **fields)
    assert same_priority(new, runtime("rt-existing", named("safetensors"), **fields)) == (
        "same priority assigned for the model format safetensors in the servingruntimes "
        "rt-existing and rt-new in namespace test"
    )


def test_an_empty_size_range_is_not_an_absent_one():
    """OME compares the pointers' targets: ``modelSizeRange: {}`` is a range, and not nil."""
    empty = runtime("rt-new", named("safetensors"), modelSizeRange={})
    absent = runtime("rt-existing", named("safetensors"))
    assert same_priority(empty, absent) is None
    assert same_priority(absent, empty) is None


@pytest.mark.parametrize(
    ("new_entry", "existing_entry"),
    [
        (named(version="1"), named(version="2")),
        (named(priority=1), named(priority=2)),
        (named(priority=None), named(priority=None)),
        (named(auto_select=False), named()),
        (named(auto_select=None), named()),
        (named(modelArchitecture="LlamaForCausalLM"), named(modelArchitecture="Other")),
        (named(quantization="fp8"), named()),
        # a modelFormat is a Go struct holding pointers: two are never equal
        (
            entry(name="vllm", priority=1, framework=None, architecture=None),
            entry(name="vllm", priority=1, framework=None, architecture=None),
        ),
    ],
)
def test_entries_that_are_not_the_same_format_with_the_same_priority(new_entry, existing_entry):
    new = runtime("example-runtime-1", new_entry)
    existing = runtime("example-runtime-2", existing_entry)
    assert same_priority(new, existing) is None


def test_a_runtime_is_never_compared_with_itself():
    rt = runtime("rt", named())
    assert same_priority(rt, runtime("rt", named())) is None


def test_peers_find_the_first_clashing_runtime_in_name_order():
    runtimes = [runtime(name, named()) for name in ("rt-d", "rt-b", "rt-c", "rt-a")]
    peers = Peers(runtimes)
    assert peers.first_clash(runtimes[0]) == (
        "same priority assigned for the model format vllm in the servingruntimes rt-a and rt-d "
        "in namespace test"
    )
    assert peers.first_clash(runtimes[3]).startswith(
        "same priority assigned for the model format vllm in the servingruntimes rt-b and rt-a"
    )


def test_peers_skip_runtimes_of_other_scopes_protocols_and_disabled_ones():
    subject = runtime("rt-z", named())
    others = [
        runtime("rt-a", named(), namespace="other"),
        runtime("rt-b", named(), namespace=None),
        runtime("rt-c", named(), protocolVersions=["grpc-v2"]),
        runtime("rt-d", named(), disabled=True),
        runtime("rt-e", named(priority=2)),
    ]
    assert Peers([subject, *others]).first_clash(subject) is None
    clashing = runtime("rt-y", named())
    assert Peers([subject, *others, clashing]).first_clash(subject) == (
        "same priority assigned for the model format vllm in the servingruntimes rt-y and rt-z "
        "in namespace test"
    )


def test_peers_of_a_wide_runtime_find_the_same_first_clash():
    """A runtime with more entries and protocol versions than ``Peers.PAIRS`` is compared per
    runtime rather than indexed by pairs: the answer is still the first in name order, whichever
    of its entries it shares."""
    protocols = [f"p{n}" for n in range(9)]
    subject = runtime("rt-z", *(named(f"format-{n}") for n in range(8)), protocolVersions=protocols)
    clashing = [
        runtime(f"rt-{letter}", named(f"format-{n}"), protocolVersions=["p0"])
        for n, letter in enumerate("jihgfedc")
    ]
    unrelated = runtime("rt-a", named("format-3"), protocolVersions=["other"])
    assert Peers([subject, unrelated, *clashing]).first_clash(subject) == (
        "same priority assigned for the model format format-7 in the servingruntimes rt-c and "
        "rt-z in namespace test"
    )


# --- the webhook's refusals, in its order -------------------------------------------------------


def test_a_profile_must_be_disabled():
    doc = manifest("rt", named(), annotations={PROFILE: "true"})
    assert refusals(doc) == [
        (
            "RuntimeProfileNotDisabled",
            "spec.disabled",
            'runtimes carrying ome.io/runtime-profile="true" must also set spec.disabled: true',
        )
    ]
    assert refusals(manifest("rt", named(), annotations={PROFILE: "true"}, disabled=True)) == []
    assert refusals(doc, modern=False) == []  # OME 1.2 has no runtime profiles


@pytest.mark.parametrize(
    ("cluster", "text"),
    [
        ([], 'inherit-from parent "ghost" not found (chain so far: [rt])'),
        (
            [manifest("ghost", named(), namespace="other")],
            'inherit-from parent "ghost" not found (chain so far: [rt])',
        ),
    ],
)
def test_a_parent_that_cannot_be_found_is_refused(cluster, text):
    doc = manifest("rt", named(), annotations={INHERIT: "ghost"})
    assert refusals(doc, *cluster) == [
        ("InheritanceError", "metadata.annotations[ome.io/inherit-from]", text)
    ]


def test_a_cycle_and_a_chain_too_deep_are_refused():
    a = manifest("a", named(), annotations={INHERIT: "b"}, disabled=True)
    b = manifest("b", named(), annotations={INHERIT: "a"}, disabled=True)
    assert refusals(a, b) == [
        (
            "InheritanceError",
            "metadata.annotations[ome.io/inherit-from]",
            "inheritance cycle detected: [a b a]",
        )
    ]
    chain = [
        manifest(name, named(), annotations={INHERIT: parent}, disabled=True)
        for name, parent in (("n5", "n4"), ("n4", "n3"), ("n3", "n2"), ("n2", "n1"))
    ]
    leaf = manifest("leaf", named(), annotations={INHERIT: "n5"}, disabled=True)
    root = manifest("n1", named(), disabled=True)
    assert refusals(leaf, *chain, root) == [
        (
            "InheritanceError",
            "metadata.annotations[ome.io/inherit-from]",
            "inheritance chain exceeds max depth 5 (chain: [leaf n5 n4 n3 n2])",
        )
    ]


def test_a_parent_is_found_in_the_namespace_then_at_cluster_scope():
    child = runtime("rt", named(), annotations={INHERIT: "base"})
    local = runtime("base", named(priority=2))
    shared = runtime("base", named(priority=3), namespace=None)
    assert ParentFinder([child, local, shared]).for_runtime(child)("base") is local
    assert ParentFinder([child, shared]).for_runtime(child)("base") is shared
    cluster_child = runtime("rt", named(), namespace=None)
    assert ParentFinder([local, shared]).for_runtime(cluster_child)("base") is shared
    assert ParentFinder([local]).for_runtime(cluster_child)("base") is None


@pytest.mark.parametrize("config", ["engineConfig", "decoderConfig", "routerConfig"])
def test_a_policy_ref_is_refused_on_a_runtime_disabled_or_not(config):
    text = (
        f"{config}: autoscalerPolicyRef is not supported on serving runtimes; policy refs "
        "attach on the InferenceService only"
    )
    for disabled in (False, True):
        doc = manifest("rt", named(), disabled=disabled, **{config: {"autoscalerPolicyRef": {}}})
        assert refusals(doc) == [
            ("AutoscalerPolicyRefNotSupported", f"spec.{config}.autoscalerPolicyRef", text)
        ]


def test_only_the_first_configs_policy_ref_is_refused():
    doc = manifest(
        "rt",
        named(),
        decoderConfig={"autoscalerPolicyRef": {}},
        routerConfig={"autoscalerPolicyRef": {}},
    )
    assert [field for _, field, _ in refusals(doc)] == ["spec.decoderConfig.autoscalerPolicyRef"]


def test_an_unimplemented_scaling_mode_is_refused_on_a_disabled_runtime_too():
    doc = manifest("rt", named(), disabled=True, scalingPolicy={"mode": "Proportional"})
    assert refusals(doc) == [
        (
            "ScalingModeNotImplemented",
            "spec.scalingPolicy.mode",
            'spec.scalingPolicy.mode "Proportional" is accepted by the API but not implemented: '
            'no controller applies it, so the policy would silently behave like "Independent"; '
            'use "Independent" or omit the policy (ScalingModeNotImplemented)',
        )
    ]


def test_a_disabled_runtime_is_admitted_without_the_other_checks():
    doc = manifest(
        "rt",
        named("vllm", 1),
        named("vllm", 2),
        disabled=True,
        engineConfig={"autoscaler": {"class": "knative"}},
        acceleratorRequirements={"acceleratorClasses": ["ghost"]},
    )
    assert refusals(doc, manifest("other", named()), classes=frozenset()) == []


def test_the_first_bad_autoscaler_block_of_the_configs_is_refused():
    doc = manifest(
        "rt",
        named(),
        decoderConfig={"autoscaler": {"class": "KEDA", "keda": {}}},
        routerConfig={"autoscaler": {"class": "knative"}},
    )
    assert refusals(doc) == [
        (
            "InvalidAutoscaler",
            "spec.decoderConfig.autoscaler",
            "decoderConfig: KedaTriggersRequired: class=keda requires at least 1 trigger",
        )
    ]


@pytest.mark.parametrize(
    ("listed", "text"),
    [
        (["unknown-accelerator"], "[unknown-accelerator]"),
        (["nvidia-h100-80gb", "invalid-class"], "[invalid-class]"),
        (["invalid-class-1", "invalid-class-2"], "[invalid-class-1 invalid-class-2]"),
    ],
)
def test_classes_the_cluster_lacks_are_listed_as_go_prints_a_slice(listed, text):
    doc = manifest("rt-acc", named(), acceleratorRequirements={"acceleratorClasses": listed})
    classes = frozenset({"nvidia-h100-80gb", "nvidia-a100-80gb"})
    assert refusals(doc, classes=classes) == [
        (
            "UnknownAcceleratorClass",
            "spec.acceleratorRequirements.acceleratorClasses",
            f"unknown accelerator classes referenced in AcceleratorRequirements: {text}",
        )
    ]
    assert refusals(doc, classes=None) == []  # the cluster's classes are not known


def test_every_refusal_in_the_webhooks_order():
    """What the webhook meets first, then each one the next apply would meet."""
    doc = manifest(
        "rt",
        named("vllm", 1),
        named("vllm", 2),
        annotations={PROFILE: "true", INHERIT: "ghost"},
        engineConfig={"autoscalerPolicyRef": {}, "autoscaler": {"class": "knative"}},
        scalingPolicy={"mode": "Pinned"},
        acceleratorRequirements={"acceleratorClasses": ["ghost"]},
    )
    clashing = manifest("other", named("vllm", 1))
    assert [code for code, _, _ in refusals(doc, clashing, classes=frozenset())] == [
        "RuntimeProfileNotDisabled",
        "InheritanceError",
        "AutoscalerPolicyRefNotSupported",
        "ScalingModeNotImplemented",
        "InvalidAutoscaler",
        "UnknownAcceleratorClass",
        "DifferentPriorities",
        "SamePriority",
    ]


def test_ome_1_2_checks_only_what_it_had():
    doc = manifest(
        "rt",
        named("vllm", 1),
        named("vllm", 2),
        annotations={INHERIT: "ghost"},
        engineConfig={"autoscalerPolicyRef": {}, "autoscaler": {"class": "knative"}},
    )
    assert [code for code, _, _ in refusals(doc, modern=False)] == ["DifferentPriorities"]


def test_an_annotation_as_written():
    doc = manifest("rt", named(), annotations={PROFILE: "True"})
    assert annotation(doc, PROFILE) == "True"
    assert annotation(manifest("rt", named()), PROFILE) is None
    assert annotation(None, PROFILE) is None


# --- the notes -----------------------------------------------------------------------------------


def test_a_runtime_that_auto_selects_nothing_is_noted():
    rt = runtime("rt", named(auto_select=False), named(auto_select=None))
    assert runtime_notes(rt) == [
        info(
            rt,
            "spec.supportedModelFormats",
            "NoAutoSelect",
            "no supportedModelFormats[] entry has autoSelect: true, so OME never auto-selects it",
        )
    ]
    assert runtime_notes(runtime("rt", named(auto_select=False), disabled=True)) == []


def test_an_inheriting_runtime_that_auto_selects_is_noted():
    rt = runtime("rt", named(), annotations={INHERIT: "base"})
    assert runtime_notes(rt) == [
        info(
            rt,
            "metadata.annotations[ome.io/inherit-from]",
            "InheritedNotAutoSelected",
            "inherits from base and sets autoSelect: true, but automatic selection reads only "
            "this runtime's own spec, not what it inherits",
        )
    ]


@pytest.mark.parametrize("marker", ["True", "false", ""])
def test_a_profile_marker_other_than_true_is_noted(marker):
    doc = manifest("rt", named(), annotations={PROFILE: marker})
    rt = loaded(doc)
    assert runtime_notes(rt, manifest=doc) == [
        info(
            rt,
            "metadata.annotations[ome.io/runtime-profile]",
            "ProfileMarkerNotTrue",
            f'ome.io/runtime-profile is "{marker}"; OME\'s webhook acts only on "true"',
        )
    ]
    assert runtime_notes(rt, modern=False, manifest=doc) == []


def test_sizes_ome_reads_otherwise_and_an_empty_range_are_noted():
    rt = runtime("rt", named(), modelSizeRange={"min": "70b", "max": "8B"})
    assert runtime_notes(rt) == [
        info(
            rt,
            "spec.modelSizeRange.min",
            "UnusualSize",
            '"70b" is read by OME as 0 parameters',
        )
    ]
    inverted = runtime("rt", named(), modelSizeRange={"min": "70B", "max": "8B"})
    assert runtime_notes(inverted) == [
        info(
            inverted,
            "spec.modelSizeRange",
            "EmptySizeRange",
            "min 70B is above max 8B: no model size fits",
        )
    ]


@pytest.mark.parametrize(
    ("raw", "read"),
    [("7b", "0"), ("0", "0"), ("0x1p4M", "16000000"), ("nan", "NaN"), ("-1B", "-1000000000")],
)
def test_a_size_note_says_what_ome_reads(raw, read):
    assert size_note(SR, "demo", "rt", "spec.modelSizeRange.max", raw) == Finding(
        INFO,
        SR,
        "demo",
        "rt",
        "spec.modelSizeRange.max",
        "UnusualSize",
        f'"{raw}" is read by OME as {read} parameters',
    )


@pytest.mark.parametrize("raw", ["7B", "1.5B", "70", "1T"])
def test_plain_sizes_say_nothing(raw):
    assert size_note(SR, "demo", "rt", "spec.modelSizeRange.max", raw) is None


def test_an_unknown_deployment_mode_annotation_is_noted():
    annotations = {"annotations": {"ome.io/deploymentMode": "Turbo"}}
    rt = runtime("rt", named(), decoderConfig=annotations)
    assert runtime_notes(rt) == [
        info(
            rt,
            "spec.decoderConfig.annotations[ome.io/deploymentMode]",
            "UnknownDeploymentMode",
            '"Turbo" is not a deployment mode OME knows: the annotation is ignored',
        )
    ]
    known = {"annotations": {"ome.io/deploymentMode": "MultiNode"}}
    assert runtime_notes(runtime("rt", named(), engineConfig=known)) == []


def test_versions_and_operators_ome_reads_otherwise_are_noted_per_entry():
    odd = entry(operator="Above", framework_version="v1..2")
    greater = entry(operator="GreaterThanOrEqual", format_version="1.2")
    rt = runtime("rt", named(), odd, greater)
    assert runtime_notes(rt) == [
        info(
            rt,
            "spec.supportedModelFormats[1].modelFormat.operator",
            "UnknownOperator",
            'operator "Above" is not Equal, GreaterThan or GreaterThanOrEqual: OME matches the '
            "versions as Equal",
        ),
        info(
            rt,
            "spec.supportedModelFormats[1].modelFramework.version",
            "UnparsableVersion",
            'version "v1..2" does not parse as OME reads versions: this entry never matches a '
            "model that sets a modelFramework version",
        ),
        info(
            rt,
            "spec.supportedModelFormats[2].modelFormat.operator",
            "RuntimeVersionOnTheLeft",
            "GreaterThanOrEqual compares this entry's version 1.2 with the model's, the entry's "
            "on the left: it accepts models whose modelFormat version is at most 1.2 (with the "
            "same precision and prefix), not from it",
        ),
    ]


def test_greater_than_reads_below():
    rt = runtime("rt", entry(operator="GreaterThan", format_version="2"))
    [note] = runtime_notes(rt)
    assert note.message.endswith(
        "it accepts models whose modelFormat version is below 2 (with the same precision and "
        "prefix), not from it"
    )


def test_a_disabled_runtime_is_noted_on_its_values_but_not_on_auto_select():
    rt = runtime("rt", entry(operator="Above", auto_select=False), disabled=True)
    assert [note.code for note in runtime_notes(rt)] == ["UnknownOperator"]
