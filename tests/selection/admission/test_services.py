"""OME's InferenceService webhook (app/selection/admission/services.py), called directly: the
refusals and warnings of one create, in the order the webhook's code meets them
(``isvc/inference_service_validation_test.go``; the texts OME's tests pin only in part are in
tests/admission/ome_cases/), and the question each asks of selection."""

from __future__ import annotations

import pytest

from app.selection.admission.services import (
    MODEL_OR_RUNTIME,
    ServiceContext,
    SharedAnswers,
    asked_question,
    service_verdict,
)
from app.selection.values import Model, ModelLookup, Runtime
from tests.builders import entry, isvc_doc, loaded, model_doc, runtime_doc, serving_runtime

LLAMA = model_doc("llama", namespace="demo")
RUNTIME = runtime_doc("rt", entry())
NO_MODEL = (
    'referenced model "{}" not found in namespace "{}": ensure a BaseModel exists in this '
    "namespace or a ClusterBaseModel exists cluster-wide with this name"
)


def context(*manifests, ome_version="1.3", provider=None, answers=None) -> ServiceContext:
    documents = [loaded(manifest) for manifest in manifests]
    return ServiceContext(
        ModelLookup(d for d in documents if isinstance(d, Model)),
        tuple(d for d in documents if isinstance(d, Runtime)),
        ome_version,
        provider,
        answers or SharedAnswers(),
    )


def verdict(manifest, *cluster, full_runner=False, applied=True, **fields):
    """What the webhook answers to a create of ``manifest`` (``applied``: as written; else a
    stored document, judged on its document alone)."""
    isvc = loaded(manifest)
    given = manifest if applied else None
    return service_verdict(isvc, given, full_runner, context(*cluster, **fields))


def svc(model="llama", runtime=None, engine=True, **spec):
    if model is not None:
        spec["model"] = {"name": model}
    if runtime is not None:
        spec["runtime"] = runtime if isinstance(runtime, dict) else {"name": runtime}
    if engine:
        spec["engine"] = {}
    return isvc_doc("svc", namespace="demo", **spec)


def test_one_of_a_model_or_a_runtime_is_required():
    found = verdict(isvc_doc("svc", engine={}))
    assert found.refusals == [("ModelOrRuntimeRequired", "spec", MODEL_OR_RUNTIME)]
    assert MODEL_OR_RUNTIME == "at least one of spec.model or spec.runtime must be set"


@pytest.mark.parametrize("engine", [True, False])
def test_a_missing_model_is_refused_engine_or_not(engine):
    found = verdict(svc("nonexistent-model", engine=engine), RUNTIME)
    assert found.refusals == [
        ("ModelNotFound", "spec.model.name", NO_MODEL.format("nonexistent-model", "demo"))
    ]


def test_a_base_model_of_another_namespace_is_not_found():
    elsewhere = model_doc("llama", namespace="other")
    assert verdict(svc(), elsewhere, RUNTIME).refusals == [
        ("ModelNotFound", "spec.model.name", NO_MODEL.format("llama", "demo"))
    ]


def test_a_cluster_model_is_found_from_any_namespace():
    shared = model_doc("llama", kind="ClusterBaseModel", namespace=None)
    assert verdict(svc(), shared, RUNTIME).warnings == [
        ("AutoSelected", None, "Runtime rt will be auto-selected for model llama")
    ]


def test_the_auto_selected_runtime_is_a_warning():
    found = verdict(svc(), LLAMA, RUNTIME)
    assert (found.refusals, found.warnings) == (
        [],
        [("AutoSelected", None, "Runtime rt will be auto-selected for model llama")],
    )


def test_no_supporting_runtime_is_refused_with_selections_reason():
    found = verdict(svc(), LLAMA)
    assert found.refusals == [
        (
            "NoRuntimeFound",
            "spec.model.name",
            "no supporting runtime found for model llama and engine does not have complete "
            "runner configuration: no runtime found to support model safetensors with format "
            "safetensors in namespace demo",
        )
    ]


def test_a_complete_runner_needs_no_runtime():
    found = verdict(svc(), LLAMA, full_runner=True)
    assert (found.refusals, found.warnings) == ([], [])


def test_without_an_engine_nothing_is_resolved():
    found = verdict(svc(engine=False), LLAMA)
    assert (found.refusals, found.warnings) == ([], [])


def test_a_disabled_model_is_refused():
    disabled = model_doc("llama", namespace="demo", disabled=True)
    assert verdict(svc(), disabled, RUNTIME).refusals == [
        ("ModelDisabled", "spec.model.name", "model llama is disabled")
    ]


@pytest.mark.parametrize(
    ("runtimes", "code", "text"),
    [
        ([], "RuntimeNotFound", "runtime rt not found in namespace demo or at cluster scope"),
        (
            [runtime_doc("rt", entry(), disabled=True)],
            "RuntimeDisabled",
            "cluster-scoped runtime rt is disabled",
        ),
    ],
)
def test_a_named_runtime_that_cannot_serve_is_refused_naming_the_model(runtimes, code, text):
    assert verdict(svc(runtime="rt"), LLAMA, *runtimes).refusals == [
        (code, "spec.runtime.name", f"runtime rt does not support model llama: {text}")
    ]


def test_a_sharded_model_on_a_named_runtime_needs_the_clusters_cache_provider():
    """Not downgraded to an advisory: the runtime cannot load the model at all. The text is
    selection's own, which names the runtime and the model already."""
    sharded = model_doc("llama", namespace="demo", distribution="Sharded")
    cached = runtime_doc("rt", entry(modelCacheProviders=["DragonFly"]))
    assert verdict(svc(runtime="rt"), sharded, cached).refusals == [
        (
            "RuntimeIncompatible",
            "spec.runtime.name",
            "runtime rt does not support model llama: runtime rt does not support model "
            "safetensors: model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0' "
            "not in supported formats: no model cache provider is configured for sharded model "
            "loading",
        )
    ]
    found = verdict(svc(runtime="rt"), sharded, cached, provider="DragonFly")
    assert (found.refusals, found.warnings) == ([], [])


def test_a_named_runtime_that_does_not_declare_the_model_is_only_an_advisory():
    onnx = runtime_doc("rt", entry(format_name="onnx"))
    found = verdict(svc(runtime="rt"), LLAMA, onnx)
    assert found.refusals == []
    assert found.warnings == [
        (
            "ExplicitRuntimeAdvisory",
            "spec.runtime.name",
            'runtime "rt" does not declare support for model "llama" (runtime rt does not '
            "support model safetensors: model format "
            "'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0' not in supported "
            "formats: format name mismatch (model=safetensors, runtime=onnx)); proceeding "
            "because the runtime was named explicitly",
        )
    ]


def test_the_advisory_is_not_printed_after_a_refusal():
    """The webhook stops at its first refusal: what it would warn of later is never said."""
    onnx = runtime_doc("rt", entry(format_name="onnx"))
    manifest = svc(runtime={"name": "rt", "revision": "cr-rt-00000000"})
    found = verdict(manifest, LLAMA, onnx)
    assert [code for code, _, _ in found.refusals] == ["InvalidRevisionPin"]
    assert found.warnings == []


def test_an_empty_model_name_fails_to_resolve():
    found = verdict(svc(""), LLAMA, RUNTIME)
    assert found.refusals == [("ModelOrRuntimeRequired", "spec", MODEL_OR_RUNTIME)]
    named = verdict(svc("", runtime="rt"), LLAMA, RUNTIME)
    assert named.refusals == [
        (
            "ModelNotFound",
            "spec.model.name",
            "failed to resolve model : No BaseModel or ClusterBaseModel with the name: ",
        )
    ]


@pytest.mark.parametrize(
    ("runtime", "text"),
    [
        (runtime_doc("rt", entry(), disabled=True), "cluster-scoped runtime rt is disabled"),
        (serving_runtime("rt", entry(), disabled=True), "namespace-scoped runtime rt is disabled"),
    ],
)
def test_a_disabled_runtime_named_without_a_model_is_refused(runtime, text):
    assert verdict(svc(None, runtime="rt"), runtime).refusals == [
        ("RuntimeDisabled", "spec.runtime.name", text)
    ]


@pytest.mark.parametrize(
    ("ref", "cluster"),
    [
        ({"name": "rt"}, []),  # not found: admitted
        ({"name": "rt"}, [runtime_doc("rt", entry())]),
        ({"name": "rt", "autoSync": False}, [runtime_doc("rt", entry(), disabled=True)]),
    ],
)
def test_a_runtime_named_without_a_model_that_is_admitted(ref, cluster):
    found = verdict(svc(None, runtime=ref), *cluster)
    assert (found.refusals, found.warnings) == ([], [])


def test_the_kind_decides_where_a_named_runtime_is_looked_up_first():
    """rules §7: from 1.3 an absent ``spec.runtime.kind`` looks at cluster scope first; before
    1.3 the kind is ignored and the namespace comes first."""
    cluster = runtime_doc("rt", entry())
    namespaced = serving_runtime("rt", entry(), disabled=True)
    assert verdict(svc(None, runtime="rt"), cluster, namespaced).refusals == []
    assert verdict(svc(None, runtime="rt"), cluster, namespaced, ome_version="1.2").refusals == [
        ("RuntimeDisabled", "spec.runtime.name", "namespace-scoped runtime rt is disabled")
    ]


def test_shape_refusals_come_first_and_silence_the_warnings_met_before_them():
    strategy = {"deploymentStrategy": {}}
    manifest = svc(deploymentMode="Serverless")
    manifest["spec"]["engine"] = strategy
    warned = verdict(manifest, LLAMA, RUNTIME)
    assert warned.refusals == []
    assert [code for code, _, _ in warned.warnings] == ["DeploymentStrategyIgnored", "AutoSelected"]
    manifest["metadata"]["name"] = "llama-3.1"  # a subdomain, not a label
    refused = verdict(manifest, LLAMA, RUNTIME)
    assert [code for code, _, _ in refused.refusals] == ["InvalidName"]
    assert refused.warnings == []


def test_a_stored_document_is_judged_without_its_manifest():
    manifest = svc()
    manifest["metadata"]["name"] = "llama-3.1"  # a subdomain, not a label
    found = verdict(manifest, LLAMA, RUNTIME, applied=False)
    assert found.refusals == []


def test_a_cluster_model_on_another_namespaces_claim_then_the_selection():
    shared = model_doc(
        "llama",
        kind="ClusterBaseModel",
        namespace=None,
        storage={"storageUri": "pvc://shared:models/llama"},
    )
    found = verdict(svc(), shared)
    assert [code for code, _, _ in found.refusals] == ["CrossNamespacePVC", "NoRuntimeFound"]


def overlaid(*names):
    manifest = svc()
    manifest["spec"]["model"]["overlays"] = [{"name": name} for name in names]
    return manifest


def test_an_overlay_is_found_as_the_primary_model_is_and_stops_the_webhook_when_not():
    found = verdict(overlaid("adapter", "ghost"), LLAMA, model_doc("adapter"))
    assert found.refusals == [
        (
            "OverlayNotFound",
            "spec.model.overlays",
            'overlay "ghost" not found in namespace "demo": No BaseModel or ClusterBaseModel '
            "with the name: ghost",
        )
    ]
    assert found.warnings == []


def test_found_overlays_have_their_own_shape_checked_then_the_runtime_is_resolved():
    found = verdict(overlaid("adapter", "adapter"), LLAMA, model_doc("adapter"))
    assert [code for code, _, _ in found.refusals] == ["InvalidOverlay", "NoRuntimeFound"]
    assert found.refusals[0][2] == 'overlay "adapter" is declared more than once'


def test_an_overlay_on_another_namespaces_claim_is_named():
    adapter = model_doc(
        "adapter",
        kind="ClusterBaseModel",
        namespace=None,
        storage={"storageUri": "pvc://shared:adapters/a"},
    )
    found = verdict(overlaid("adapter"), LLAMA, adapter, RUNTIME)
    code, field, text = found.refusals[0]
    assert (code, field) == ("CrossNamespacePVC", "spec.model.overlays")
    assert text.startswith(
        'overlay "adapter": ClusterBaseModel "llama" references PVC in namespace "shared", but '
        'InferenceService is in namespace "demo";'
    )


def test_services_asking_one_question_share_its_ranking_and_its_refusal():
    answers = SharedAnswers()
    first = service_verdict(loaded(svc()), None, False, context(LLAMA, answers=answers))
    again = service_verdict(loaded(svc()), None, False, context(LLAMA, answers=answers))
    assert len(answers.rankings) == 1 and len(answers.refusals) == 1
    assert first.refusals[0][2] is again.refusals[0][2]


@pytest.mark.parametrize(
    ("manifest", "full_runner", "asks"),
    [
        (svc(), False, True),
        (svc(runtime="rt"), True, True),
        (svc(), True, False),  # a complete runner without a runtime asks nothing
        (svc(engine=False), False, False),
        (svc("ghost"), False, False),
        (svc(None, runtime="rt"), False, False),
    ],
)
def test_the_question_a_service_asks_of_selection(manifest, full_runner, asks):
    models = ModelLookup([loaded(LLAMA)])
    question = asked_question(loaded(manifest), full_runner, models)
    assert (question is not None) == asks


def test_a_disabled_model_asks_nothing():
    models = ModelLookup([loaded(model_doc("llama", namespace="demo", disabled=True))])
    assert asked_question(loaded(svc()), False, models) is None


def test_two_services_of_one_model_ask_one_question():
    models = ModelLookup([loaded(LLAMA)])
    one = asked_question(loaded(svc()), False, models)
    other = isvc_doc("other", namespace="demo", model={"name": "llama"}, engine={})
    assert asked_question(loaded(other), False, models) == one
