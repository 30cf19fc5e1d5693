"""What OME accepts of the accelerator fields but reads otherwise
(app/selection/admission/accelerator_notes.py, rules §20.7's infos), called on one object at a
time: a class's memory, a runtime's ignored requirements and unlisted ``acceleratorConfig``
keys, and the selectors of an InferenceService that never take part."""

from __future__ import annotations

import pytest

from app.selection.admission import INFO, Finding
from app.selection.admission.accelerator_notes import (
    class_notes,
    effective_list,
    runtime_accelerator_notes,
    service_accelerator_notes,
)
from app.selection.admission.runtimes import ParentFinder
from tests.builders import entry, isvc_doc, loaded, runtime_doc

SELECTOR_CONSTRAINTS = "spec.acceleratorSelector.constraints"
OVERRIDE_IGNORED = (
    "constraints in an acceleratorOverride have no effect; OME reads only "
    "spec.acceleratorSelector.constraints"
)
BEST_FIT_BUG = (
    "BestFit without spec.acceleratorSelector.constraints stops OME's controller when two or more "
    "classes qualify (a known OME bug)"
)


def accelerator(memory):
    capabilities = {} if memory is None else {"memoryGB": memory}
    return {
        "kind": "AcceleratorClass",
        "metadata": {"name": "gpu"},
        "spec": {"capabilities": capabilities},
    }


# --- classes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("memory", "raw", "gib"),
    [
        ("80G", "80G", 74),
        ("80", "80", 0),
        (80, "80", 0),
        ("1536Mi", "1536Mi", 1),
        (85899345921, "85899345921", 80),
        ("-80G", "-80G", -74),  # truncated toward zero, as Go divides
    ],
)
def test_memory_that_is_not_a_whole_number_of_gib(memory, raw, gib):
    assert class_notes("gpu", accelerator(memory)) == [
        Finding(
            INFO,
            "AcceleratorClass",
            None,
            "gpu",
            "spec.capabilities.memoryGB",
            "MemoryNotWholeGiB",
            f'memoryGB "{raw}" is read by OME as {gib} GiB by minMemory and maxMemory',
        )
    ]


@pytest.mark.parametrize("memory", [None, "80Gi", "1Ti", "0", 85899345920, "80 GB", "9" * 40])
def test_whole_gib_absent_or_refused_memory_says_nothing(memory):
    assert class_notes("gpu", accelerator(memory)) == []


# --- runtimes ----------------------------------------------------------------------------------


def runtime_manifest(name="rt", *entries, classes=None, requirements=None, **spec):
    accelerators = dict(requirements or {})
    if classes is not None:
        accelerators["acceleratorClasses"] = classes
    if accelerators:
        spec["acceleratorRequirements"] = accelerators
    return runtime_doc(name, *(entries or (entry(),)), **spec)


def notes(doc, listed):
    return runtime_accelerator_notes(loaded(doc), doc, listed)


def test_requirements_ome_never_reads_are_noted_in_the_crds_order():
    doc = runtime_manifest(requirements={"requiredFeatures": ["fp8"], "minMemory": 80})
    assert notes(doc, ()) == [
        Finding(
            INFO,
            "ClusterServingRuntime",
            None,
            "rt",
            f"spec.acceleratorRequirements.{name}",
            "AcceleratorRequirementsIgnored",
            f"OME ignores acceleratorRequirements.{name}; set constraints in the "
            "InferenceService's spec.acceleratorSelector.constraints",
        )
        for name in ("minMemory", "requiredFeatures")
    ]


def test_an_accelerator_config_key_no_listed_class_reaches_is_noted():
    configured = entry(acceleratorConfig={"nvidia-h100": {}, "nvidia-l40s": {"x": 1}, "a10": None})
    doc = runtime_manifest("rt", entry(), configured, classes=["nvidia-h100"])
    assert notes(doc, ("nvidia-h100",)) == [
        Finding(
            INFO,
            "ClusterServingRuntime",
            None,
            "rt",
            "spec.supportedModelFormats[1].acceleratorConfig",
            "AcceleratorConfigNotListed",
            "acceleratorConfig key nvidia-l40s is not a listed accelerator class, so OME applies "
            "it only to an InferenceService that names this runtime and that class",
        )
    ]


def test_without_a_list_or_on_a_disabled_runtime_no_key_is_noted():
    configured = entry(acceleratorConfig={"nvidia-l40s": {}})
    assert notes(runtime_manifest("rt", configured), ()) == []
    disabled = runtime_manifest("rt", configured, classes=["nvidia-h100"], disabled=True)
    assert notes(disabled, ("nvidia-h100",)) == []


def parents(*docs):
    runtimes = [loaded(doc) for doc in docs]
    return runtimes, ParentFinder(runtimes)


def inheriting(name, parent, **fields):
    doc = runtime_manifest(name, **fields)
    doc["metadata"]["annotations"] = {"ome.io/inherit-from": parent}
    return doc


def test_the_effective_list_is_the_runtimes_own_else_the_one_it_inherits():
    runtimes, finder = parents(
        runtime_manifest("base", classes=["nvidia-h100", "nvidia-h200"], disabled=True),
        inheriting("child", "base"),
        inheriting("own", "base", classes=["a10"]),
        inheriting("orphan", "ghost"),
    )
    base, child, own, orphan = runtimes
    assert effective_list(child, finder.for_runtime(child)) == ("nvidia-h100", "nvidia-h200")
    assert effective_list(own, finder.for_runtime(own)) == ("a10",)
    assert effective_list(orphan, finder.for_runtime(orphan)) == ()  # the chain does not resolve
    assert effective_list(child, None) == ()  # OME 1.2: no inheritance
    assert effective_list(base, None) == ("nvidia-h100", "nvidia-h200")


# --- InferenceServices -------------------------------------------------------------------------


def service(selector=None, engine=None, decoder=None):
    given = {"acceleratorSelector": selector, "engine": engine, "decoder": decoder}
    manifest = isvc_doc(
        model={"name": "llama"}, **{k: v for k, v in given.items() if v is not None}
    )
    return loaded(manifest)


def found(isvc):
    return [(f.field, f.code, f.message) for f in service_accelerator_notes(isvc)]


def test_an_inference_service_without_accelerator_fields_has_no_notes():
    assert found(service(engine={})) == []


def test_override_constraints_are_ignored_engine_first():
    override = {"acceleratorOverride": {"constraints": {}}}
    assert found(service(engine=override, decoder=override)) == [
        (
            "spec.engine.acceleratorOverride.constraints",
            "OverrideConstraintsIgnored",
            OVERRIDE_IGNORED,
        ),
        (
            "spec.decoder.acceleratorOverride.constraints",
            "OverrideConstraintsIgnored",
            OVERRIDE_IGNORED,
        ),
    ]


def test_a_component_the_service_does_not_set_has_no_notes():
    override = {"acceleratorOverride": {"constraints": {}}}
    assert found(service(selector={"policy": "Cheapest", "acceleratorClass": "a10"})) == []
    assert [field for field, _, _ in found(service(engine={}, decoder=override))] == [
        "spec.decoder.acceleratorOverride.constraints"
    ]


@pytest.mark.parametrize(
    ("selector", "engine", "policy_field", "policy", "name", "named_in"),
    [
        (
            {"policy": "Cheapest", "acceleratorClass": "nvidia-h100"},
            {},
            "spec.acceleratorSelector.policy",
            "Cheapest",
            "nvidia-h100",
            "spec.acceleratorSelector.acceleratorClass",
        ),
        (
            {"acceleratorClass": "nvidia-h100"},
            {"acceleratorOverride": {"policy": "MostCapable"}},
            "spec.engine.acceleratorOverride.policy",
            "MostCapable",
            "nvidia-h100",
            "spec.acceleratorSelector.acceleratorClass",
        ),
        (
            {"policy": "BestFit", "acceleratorClass": "nvidia-h100"},
            {"acceleratorOverride": {"acceleratorClass": "a10"}},
            "spec.acceleratorSelector.policy",
            "BestFit",
            "a10",
            "spec.engine.acceleratorOverride.acceleratorClass",
        ),
    ],
)
def test_a_policy_beside_a_named_class_is_shadowed(
    selector, engine, policy_field, policy, name, named_in
):
    assert found(service(selector, engine)) == [
        (
            policy_field,
            "PolicyShadowed",
            f"policy {policy} has no effect on the engine: it gets the class {name} named in "
            f"{named_in}",
        )
    ]


def test_an_empty_override_name_hides_the_selectors_and_lets_the_policy_act():
    selector = {"policy": "Cheapest", "acceleratorClass": "nvidia-h100"}
    assert found(service(selector, {"acceleratorOverride": {"acceleratorClass": ""}})) == []


@pytest.mark.parametrize(
    "selector", [{"policy": "BestFit"}, {"policy": "BestFit", "constraints": None}]
)
def test_best_fit_without_constraints_is_noted_once(selector):
    assert found(service(selector, engine={}, decoder={})) == [
        (SELECTOR_CONSTRAINTS, "BestFitWithoutConstraints", BEST_FIT_BUG)
    ]


def test_best_fit_with_constraints_or_for_a_named_class_is_fine():
    assert found(service({"policy": "BestFit", "constraints": {}}, engine={})) == []
    assert found(service(None, {"acceleratorOverride": {"policy": "BestFit"}})) == [
        (SELECTOR_CONSTRAINTS, "BestFitWithoutConstraints", BEST_FIT_BUG)
    ]
    named = {"acceleratorOverride": {"policy": "BestFit", "acceleratorClass": "a10"}}
    assert [code for _, code, _ in found(service(None, named))] == ["PolicyShadowed"]
