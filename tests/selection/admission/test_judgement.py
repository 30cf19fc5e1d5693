"""``admit`` (app/selection/admission/judgement.py): every object of a cluster judged as ``kubectl
apply`` would judge it against the others (rules §13, §18, §20.7), in process: one error per
object with ``AlsoRefused`` infos after it, the API server's refusals before the webhooks', the
findings in their canonical order, and the rankings a lint will cost, counted first."""

from __future__ import annotations

from app.selection.admission import (
    ERROR,
    INFO,
    WARNING,
    Finding,
    admit,
    planned_admission_rankings,
)
from app.selection.admission.judgement import model_notes
from app.selection.values import CatalogView, object_key
from tests.builders import entry, isvc_doc, loaded, model_doc, runtime_doc

PRIORITY_CLASH = "same priority assigned for the model format vllm in the clusterservingruntimes"


def clashing(name):
    """A runtime whose entry clashes with every other such runtime's (the webhook's rule)."""
    item = entry(format_name=None, framework=None, architecture=None, priority=1, name="vllm")
    return runtime_doc(name, item, protocolVersions=["openAI"])


def cluster(*manifests, **fields):
    documents = [loaded(manifest) for manifest in manifests]
    view = CatalogView.of(documents, **fields)
    given = {object_key(d): m for d, m in zip(documents, manifests, strict=True)}
    return view, given


def judged(*manifests, **options):
    view, manifests_by_key = cluster(*manifests)
    return admit(view, manifests=manifests_by_key, **options)


def short(findings):
    return [(f.severity, f.kind, f.name, f.code) for f in findings]


def test_a_clash_refuses_each_runtime_naming_the_other_as_the_one_that_exists():
    admission = judged(clashing("rt-a"), clashing("rt-b"))
    assert not admission.admitted
    assert [(f.name, f.message) for f in admission.findings if f.severity == ERROR] == [
        ("rt-a", f"{PRIORITY_CLASH} rt-b and rt-a"),
        ("rt-b", f"{PRIORITY_CLASH} rt-a and rt-b"),
    ]


def test_a_cluster_that_applies_cleanly_is_admitted_with_its_warnings_and_infos():
    admission = judged(
        model_doc("llama"),
        runtime_doc("rt", entry()),
        runtime_doc("quiet", entry(auto_select=False)),
        isvc_doc("svc", model={"name": "llama"}, engine={}),
    )
    assert admission.admitted
    assert short(admission.findings) == [
        (WARNING, "InferenceService", "svc", "AutoSelected"),
        (INFO, "ClusterServingRuntime", "quiet", "NoAutoSelect"),
    ]
    assert admission.counts() == {"error": 0, "warning": 1, "info": 1}


def test_only_the_objects_checked_get_findings_but_all_are_the_cluster():
    view, manifests = cluster(clashing("rt-a"), clashing("rt-b"))
    checked = frozenset({("ClusterServingRuntime", "", "rt-b")})
    admission = admit(view, manifests=manifests, checked=checked)
    assert [(f.name, f.message) for f in admission.findings] == [
        ("rt-b", f"{PRIORITY_CLASH} rt-a and rt-b")
    ]


def test_the_api_servers_refusal_comes_first_and_the_webhooks_follow_it():
    view, manifests = cluster(clashing("rt-a"), clashing("rt-b"))
    key = ("ClusterServingRuntime", "", "rt-b")
    schema = [("Invalid", "spec.supportedModelFormats[0].priority", "the API server's text")]
    admission = admit(view, manifests=manifests, refused_by_schema={key: schema})
    mine = [f for f in admission.findings if f.name == "rt-b"]
    assert mine == [
        Finding(
            ERROR,
            "ClusterServingRuntime",
            None,
            "rt-b",
            "spec.supportedModelFormats[0].priority",
            "Invalid",
            "the API server's text",
        ),
        Finding(
            INFO,
            "ClusterServingRuntime",
            None,
            "rt-b",
            "spec.supportedModelFormats",
            "AlsoRefused",
            f"then: {PRIORITY_CLASH} rt-a and rt-b",
            1,
        ),
    ]
    assert mine[0].webhook is None  # the API server's own


def test_an_object_the_api_server_refuses_prints_no_webhook_warning():
    svc = isvc_doc("svc", model={"name": "llama"}, engine={})
    view, manifests = cluster(model_doc("llama"), runtime_doc("rt", entry()), svc)
    key = ("InferenceService", "demo", "svc")
    schema = {key: [("UnknownField", "spec.typo", 'unknown field "spec.typo"')]}
    admission = admit(view, manifests=manifests, refused_by_schema=schema)
    assert short(admission.findings) == [(ERROR, "InferenceService", "svc", "UnknownField")]


def test_a_refusal_of_an_object_that_does_not_load_is_passed_through_in_order():
    invalid = Finding(ERROR, "BaseModel", "demo", "broken", "spec", "Required", "Required value")
    admission = judged(clashing("rt-a"), invalid=[invalid])
    assert admission.findings[0] == invalid
    assert not admission.admitted


def test_a_models_size_notes():
    sized_runtime = runtime_doc("rt", entry(), size_range={"min": "1B"})
    admission = judged(
        model_doc("odd", size="7b"),
        model_doc("unsized"),
        model_doc("plain", size="8B"),
        sized_runtime,
    )
    assert [(f.name, f.code, f.message) for f in admission.findings] == [
        ("odd", "UnusualSize", '"7b" is read by OME as 0 parameters'),
        (
            "unsized",
            "NoParameterSize",
            "the model has no modelParameterSize, so no runtime's modelSizeRange excludes it or "
            "orders it: size ranges decide nothing for this model",
        ),
    ]


def test_a_model_that_is_not_ready_is_not_told_its_size_decides_nothing():
    """Only a Ready model (one with a format name) is ranked: one that is not gets no
    NoParameterSize note, nor does any model of a cluster without a sized runtime."""
    ready = loaded(model_doc("ready"))
    assert [f.code for f in model_notes(ready, sized_runtimes=True)] == ["NoParameterSize"]
    assert model_notes(ready, sized_runtimes=False) == []
    assert model_notes(loaded(model_doc("pending", format_name="")), sized_runtimes=True) == []
    odd = loaded(model_doc("odd", size="7b"))
    assert [f.code for f in model_notes(odd, sized_runtimes=False)] == ["UnusualSize"]


def test_without_a_sized_runtime_an_unsized_model_says_nothing():
    assert judged(model_doc("unsized"), runtime_doc("rt", entry())).findings == ()


def test_listed_classes_of_a_cluster_whose_classes_are_unknown():
    listed = runtime_doc("rt", entry(), acceleratorRequirements={"acceleratorClasses": ["a", "b"]})
    admission = judged(listed)
    assert [(f.field, f.code, f.message) for f in admission.findings] == [
        (
            "spec.acceleratorRequirements.acceleratorClasses",
            "AcceleratorClassesUnknown",
            "the request holds no AcceleratorClass, so whether OME's webhook accepts [a b] is "
            "unknown",
        )
    ]
    known = judged(listed, accelerator_classes=frozenset({"a"}))
    assert [(f.code, f.message) for f in known.findings] == [
        (
            "UnknownAcceleratorClass",
            "unknown accelerator classes referenced in AcceleratorRequirements: [b]",
        )
    ]
    disabled = runtime_doc(
        "rt", entry(), disabled=True, acceleratorRequirements={"acceleratorClasses": ["a"]}
    )
    assert judged(disabled).findings == ()


def test_applied_classes_are_judged_for_their_memory():
    gpu = {"kind": "AcceleratorClass", "spec": {"capabilities": {"memoryGB": "80G"}}}
    admission = judged(class_manifests={"gpu": gpu})
    assert short(admission.findings) == [(INFO, "AcceleratorClass", "gpu", "MemoryNotWholeGiB")]


def test_ome_1_2_skips_what_it_did_not_check():
    profile = runtime_doc("rt", entry())
    profile["metadata"]["annotations"] = {"ome.io/runtime-profile": "true"}
    view, manifests = cluster(profile, ome_version="1.2")
    assert admit(view, manifests=manifests).findings == ()
    view, manifests = cluster(profile)
    assert short(admit(view, manifests=manifests).findings) == [
        (ERROR, "ClusterServingRuntime", "rt", "RuntimeProfileNotDisabled")
    ]


def test_findings_come_errors_first_then_warnings_then_infos():
    admission = judged(
        model_doc("llama"),
        runtime_doc("rt", entry()),
        runtime_doc("quiet", entry(auto_select=False)),
        clashing("rt-a"),
        clashing("rt-b"),
        isvc_doc("svc", model={"name": "llama"}, engine={}),
    )
    severities = [f.severity for f in admission.findings]
    assert severities == sorted(severities, key=[ERROR, WARNING, INFO].index)
    assert severities.count(ERROR) == 2 and WARNING in severities and INFO in severities


# --- planned_admission_rankings -------------------------------------------------------------


def test_a_ranking_is_counted_per_distinct_question():
    view, _ = cluster(
        model_doc("llama"),
        model_doc("qwen", architecture="Qwen2ForCausalLM"),
        isvc_doc("a", model={"name": "llama"}, engine={}),
        isvc_doc("b", model={"name": "llama"}, engine={}),  # the same question as a
        isvc_doc("c", model={"name": "qwen"}, engine={}),
        isvc_doc("d", model={"name": "ghost"}, engine={}),  # no model: no ranking
        isvc_doc("e", model={"name": "llama"}),  # no engine: no ranking
    )
    assert planned_admission_rankings(view) == 2
    only_c = frozenset({("InferenceService", "demo", "c")})
    assert planned_admission_rankings(view, checked=only_c) == 1
    full = frozenset({("demo", "a"), ("demo", "b")})
    assert planned_admission_rankings(view, full_runners=full) == 1
