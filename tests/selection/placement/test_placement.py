"""The placement end to end, from a request body (rules §20.2-§20.5, §20.8-§20.10): the worked
example of §20.9 byte for byte, names over policies, errors and events, versions, the entry."""

import json

import pytest

from app.rendering.placement_body import placement_body
from tests.builders import entry, model_doc, runtime_doc, serving_runtime
from tests.selection.placement.builders import (
    H100,
    H200,
    MODEL,
    RUNTIME,
    body_of,
    class_doc,
    h100,
    h200,
    page_isvc,
    page_runtime,
    predict_body,
)

NOT_FOUND_A100 = (
    "Failed to get accelerator class for engine: accelerator class nvidia-a100 not found at "
    "cluster scope"
)
ENTRY = '"entry": {"index": 0, "name": null, "score": 2, "definedIn": null}'
H100_SELECTOR = '"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}'
H200_SELECTOR = '"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H200"}'


def engine_json(**fields) -> str:
    """The placement JSON of the page's named runtime with ``spec.acceleratorSelector``."""
    placement = predict_body(body_of(page_isvc(acceleratorSelector=fields)))
    return json.dumps(placement_body(placement))


# rules §20.9, row by row, as the JSON the API will answer (§20.8, §20.10 item 7).
WORKED_EXAMPLE = [
    (
        {"policy": "BestFit", "constraints": {"minMemory": 80}},
        "{" + ENTRY + ', "engine": {"acceleratorClass": "nvidia-h100", '
        '"from": "spec.acceleratorSelector.policy", "policy": "BestFit", "score": 1.0, '
        '"known": true, "reason": null, '
        '"others": [{"name": "nvidia-h200", "reason": "score 0.6971631205673758 < 1.0"}], '
        '"acceleratorConfig": null, "error": null, ' + H100_SELECTOR + ', "resources": null}, '
        '"decoder": null, "event": null}',
    ),
    (
        {"policy": "Cheapest"},
        "{" + ENTRY + ', "engine": {"acceleratorClass": "nvidia-h100", '
        '"from": "spec.acceleratorSelector.policy", "policy": "Cheapest", "score": null, '
        '"known": true, "reason": null, '
        '"others": [{"name": "nvidia-h200", "reason": "perHour 12 > perHour 10"}], '
        '"acceleratorConfig": null, "error": null, ' + H100_SELECTOR + ', "resources": null}, '
        '"decoder": null, "event": null}',
    ),
    (
        {"policy": "MostCapable"},
        "{" + ENTRY + ', "engine": {"acceleratorClass": "nvidia-h200", '
        '"from": "spec.acceleratorSelector.policy", "policy": "MostCapable", "score": 1.0, '
        '"known": true, "reason": null, '
        '"others": [{"name": "nvidia-h100", "reason": "score 0.6930629432624114 < 1.0"}], '
        '"acceleratorConfig": null, "error": null, ' + H200_SELECTOR + ', "resources": null}, '
        '"decoder": null, "event": null}',
    ),
    (
        {"policy": "FirstAvailable"},
        "{" + ENTRY + ', "engine": {"acceleratorClass": "nvidia-h100", '
        '"from": "spec.acceleratorSelector.policy", "policy": "FirstAvailable", "score": null, '
        '"known": true, "reason": null, '
        '"others": [{"name": "nvidia-h200", "reason": "listed after nvidia-h100"}], '
        '"acceleratorConfig": null, "error": null, ' + H100_SELECTOR + ', "resources": null}, '
        '"decoder": null, "event": null}',
    ),
    (
        {"policy": "BestFit"},
        "{" + ENTRY + ', "engine": {"acceleratorClass": null, '
        '"from": "spec.acceleratorSelector.policy", "policy": "BestFit", "score": null, '
        '"known": true, "reason": null, '
        '"others": [{"name": "nvidia-h100", "reason": null}, '
        '{"name": "nvidia-h200", "reason": null}], "acceleratorConfig": null, '
        '"error": {"code": "BestFitWithoutConstraints", '
        '"message": "invalid memory address or nil pointer dereference", '
        '"ifFixed": "nvidia-h100"}, "nodeSelector": null, "resources": null}, '
        '"decoder": null, "event": null}',
    ),
    (
        {"acceleratorClass": "nvidia-a100"},
        "{" + ENTRY + ', "engine": {"acceleratorClass": null, '
        '"from": "spec.acceleratorSelector.acceleratorClass", "policy": null, "score": null, '
        '"known": true, "reason": null, "others": [], "acceleratorConfig": null, '
        '"error": {"code": "AcceleratorClassNotFound", "message": "' + NOT_FOUND_A100 + '"}, '
        '"nodeSelector": null, "resources": null}, "decoder": null, '
        '"event": {"reason": "AcceleratorClassError", "message": "' + NOT_FOUND_A100 + '"}}',
    ),
]


@pytest.mark.parametrize(("selector", "expected"), WORKED_EXAMPLE)
def test_worked_example_byte_for_byte(selector, expected):
    assert engine_json(**selector) == expected


L40S_CONFIG = {
    "tensorParallelismOverride": {"tensorParallelSize": 4, "pipelineParallelSize": 2},
    "runtimeArgsOverride": ["--mem-frac=0.85"],
}


def test_the_entrys_accelerator_config_for_the_class():
    config = {"nvidia-l40s": {**L40S_CONFIG, "dataParallelSize": 2}, "nvidia-L40S": {"x": 1}}
    runtime = page_runtime(
        ["nvidia-l40s"], entry(architecture=None, auto_select=False, acceleratorConfig=config)
    )
    isvc = page_isvc(acceleratorSelector={"acceleratorClass": "nvidia-l40s"})
    placement = predict_body(body_of(isvc, runtime), [class_doc("nvidia-l40s")])
    assert placement is not None and placement.engine is not None
    # rules §20.10 item 16: dataParallelSize has no effect on the pods, so it is left out.
    assert json.dumps(placement.engine.accelerator_config) == json.dumps(L40S_CONFIG)


@pytest.mark.parametrize("value", [None, "missing"])
def test_no_accelerator_config_for_a_null_or_missing_key(value):
    config = {} if value == "missing" else {H100: None}
    runtime = page_runtime([H100], entry(architecture=None, acceleratorConfig=config))
    placement = predict_body(
        body_of(page_isvc(acceleratorSelector={"acceleratorClass": H100}), runtime)
    )
    assert placement is not None and placement.engine is not None
    assert placement.engine.accelerator_class == H100
    assert placement.engine.accelerator_config is None


# --- where the name or the policy comes from (rules §20.3.1) -----------------------------------


def engine_of(isvc: dict, runtime: dict | None = None, classes=None, known=None):
    body = body_of(isvc, runtime or page_runtime([H100, H200]))
    placement = predict_body(body, classes, known)
    assert placement is not None
    return placement


def test_an_overrides_name_wins_over_the_selectors_policy():
    isvc = page_isvc(
        acceleratorSelector={"policy": "Cheapest"},
        engine={"acceleratorOverride": {"acceleratorClass": H200}},
    )
    engine = engine_of(isvc).engine
    assert engine is not None
    assert (engine.accelerator_class, engine.source, engine.policy, engine.others) == (
        H200,
        "spec.engine.acceleratorOverride.acceleratorClass",
        None,
        (),
    )


def test_the_selectors_name_wins_over_an_overrides_policy():
    isvc = page_isvc(
        acceleratorSelector={"acceleratorClass": H200},
        engine={"acceleratorOverride": {"policy": "Cheapest"}},
    )
    engine = engine_of(isvc).engine
    assert engine is not None
    assert (engine.accelerator_class, engine.source) == (
        H200,
        "spec.acceleratorSelector.acceleratorClass",
    )


def test_an_overrides_policy_wins_over_the_selectors():
    isvc = page_isvc(
        acceleratorSelector={"policy": "MostCapable"},
        engine={"acceleratorOverride": {"policy": "Cheapest", "constraints": {"minMemory": 100}}},
    )
    engine = engine_of(isvc).engine
    assert engine is not None
    # The override's constraints are never read: Cheapest still sees both classes.
    assert (engine.accelerator_class, engine.source, engine.policy) == (
        H100,
        "spec.engine.acceleratorOverride.policy",
        "Cheapest",
    )


def test_an_empty_override_name_hides_the_selectors_name():
    isvc = page_isvc(
        acceleratorSelector={"acceleratorClass": H200},
        engine={"acceleratorOverride": {"acceleratorClass": ""}},
    )
    engine = engine_of(isvc).engine
    assert engine is not None
    assert (engine.accelerator_class, engine.source, engine.reason) == (
        None,
        None,
        "no class name and no policy",
    )


def test_a_name_need_not_be_listed_and_skips_the_constraints():
    isvc = page_isvc(
        acceleratorSelector={"acceleratorClass": H200, "constraints": {"maxMemory": 1}},
    )
    engine = engine_of(isvc, page_runtime([H100])).engine
    assert engine is not None and engine.accelerator_class == H200


@pytest.mark.parametrize("classes", [None, []])
def test_no_listed_classes_gives_no_class_even_for_a_name(classes):
    isvc = page_isvc(acceleratorSelector={"acceleratorClass": H100})
    engine = engine_of(isvc, page_runtime(classes)).engine
    assert engine is not None
    assert (engine.accelerator_class, engine.source, engine.reason) == (
        None,
        None,
        "the runtime lists no accelerator classes",
    )


def test_the_annotation_never_gives_a_class():
    isvc = page_isvc()
    isvc["metadata"]["annotations"] = {"ome.io/accelerator-class": H100}
    engine = engine_of(isvc).engine
    assert engine is not None and engine.reason == "no class name and no policy"


def test_constraints_that_exclude_everything():
    isvc = page_isvc(
        acceleratorSelector={"policy": "FirstAvailable", "constraints": {"minMemory": 200}}
    )
    engine = engine_of(isvc).engine
    assert engine is not None
    assert (engine.accelerator_class, engine.reason) == (None, "no class passes the constraints")
    assert [(o.name, o.reason) for o in engine.others] == [
        (H100, "memory 80GB < required 200GB"),
        (H200, "memory 141GB < required 200GB"),
    ]
    assert engine_of(isvc).event is None


# --- errors and events (rules §20.5) -----------------------------------------------------------


def test_the_engine_fails_first_and_the_decoder_has_no_event():
    isvc = page_isvc(
        engine={"acceleratorOverride": {"acceleratorClass": "nvidia-a100"}},
        decoder={"acceleratorOverride": {"acceleratorClass": "nvidia-b200"}},
    )
    placement = engine_of(isvc)
    assert placement.engine is not None and placement.decoder is not None
    assert placement.decoder.error is not None  # each component reports its own error
    assert placement.event is not None and placement.event.message == NOT_FOUND_A100


def test_a_decoder_failure_records_the_decoders_event():
    isvc = page_isvc(
        acceleratorSelector={"policy": "Cheapest"},
        decoder={"acceleratorOverride": {"acceleratorClass": "nvidia-b200"}},
    )
    placement = engine_of(isvc)
    assert placement.engine is not None and placement.engine.accelerator_class == H100
    assert placement.event is not None
    assert placement.event.message == (
        "Failed to get accelerator class for decoder: accelerator class nvidia-b200 not found at "
        "cluster scope"
    )


def test_the_best_fit_failure_stops_before_the_decoder_and_records_nothing():
    isvc = page_isvc(
        acceleratorSelector={"policy": "BestFit"},
        decoder={"acceleratorOverride": {"acceleratorClass": "nvidia-b200"}},
    )
    placement = engine_of(isvc)
    assert placement.engine is not None and placement.engine.error is not None
    assert placement.decoder is not None and placement.decoder.error is not None
    assert placement.event is None


def test_a_component_the_service_does_not_set_does_not_exist():
    isvc = page_isvc(acceleratorSelector={"policy": "Cheapest"})
    del isvc["spec"]["engine"]
    isvc["spec"]["decoder"] = {}
    placement = engine_of(isvc)
    assert placement.engine is None
    assert placement.decoder is not None and placement.decoder.accelerator_class == H100


# --- classes unknown (rules §20.8, §20.10 items 4, 11, 12, 20) ---------------------------------


def test_a_policy_with_unknown_classes_is_unknown():
    engine = engine_of(
        page_isvc(acceleratorSelector={"policy": "FirstAvailable"}), classes=[]
    ).engine
    assert engine is not None
    assert (engine.accelerator_class, engine.known, engine.reason) == (
        None,
        False,
        "unknown: the request holds no AcceleratorClass objects",
    )
    assert [(o.name, o.reason) for o in engine.others] == [(H100, None), (H200, None)]


def test_a_name_with_unknown_classes_is_kept_unverified():
    runtime = page_runtime([H100], entry(architecture=None, acceleratorConfig={"x": L40S_CONFIG}))
    isvc = page_isvc(acceleratorSelector={"acceleratorClass": "x"})
    placement = engine_of(isvc, runtime, classes=[h100()], known=False)
    engine = placement.engine
    assert engine is not None
    assert (engine.accelerator_class, engine.known, engine.error) == ("x", False, None)
    assert engine.accelerator_config == L40S_CONFIG
    assert (engine.node_selector, engine.resources) == (None, None)
    assert placement.event is None


def test_known_classes_may_be_none_at_all():
    isvc = page_isvc(acceleratorSelector={"acceleratorClass": H100})
    engine = engine_of(isvc, classes=[], known=True).engine
    assert engine is not None and engine.error is not None and engine.known


# --- versions (rules §20.3.2, §20.6) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "pick", "reason", "missing"),
    [
        ("1.3", H200, None, "not found"),
        (
            "1.2.2",
            None,
            "failed to fetch AcceleratorClass nvidia-a100: accelerator class "
            "nvidia-a100 not found at cluster scope",
            "not found",
        ),
    ],
)
def test_a_missing_listed_class_under_a_policy(version, pick, reason, missing):
    runtime = page_runtime(["nvidia-a100", H200, "nvidia-b200", H200])
    body = body_of(page_isvc(acceleratorSelector={"policy": "FirstAvailable"}), runtime)
    body["omeVersion"] = version
    placement = predict_body(body)
    assert placement is not None and placement.engine is not None
    engine = placement.engine
    assert (engine.accelerator_class, engine.reason, engine.error) == (pick, reason, None)
    others = {o.name: o.reason for o in engine.others}
    assert others["nvidia-a100"] == others["nvidia-b200"] == missing
    assert len(engine.others) == (2 if pick else 3)  # duplicates dropped
    assert placement.event is None


def test_every_listed_class_missing_is_an_empty_pool():
    runtime = page_runtime(["nvidia-a100"])
    placement = predict_body(
        body_of(page_isvc(acceleratorSelector={"policy": "Cheapest"}), runtime)
    )
    assert placement is not None and placement.engine is not None
    assert placement.engine.reason == "no class passes the constraints"


def inheriting_runtimes() -> list[dict]:
    parent = runtime_doc(
        "base",
        entry(architecture=None, auto_select=False, acceleratorConfig={H100: L40S_CONFIG}),
        acceleratorRequirements={"acceleratorClasses": [H100]},
    )
    child = runtime_doc("child", entry(architecture=None, format_name="onnx"))
    child["spec"]["supportedModelFormats"] = []
    child["metadata"]["annotations"] = {"ome.io/inherit-from": "base"}
    return [child, parent]


def test_a_named_runtime_reads_its_chains_effective_spec():
    isvc = page_isvc("child", acceleratorSelector={"acceleratorClass": H100})
    placement = predict_body(body_of(isvc, *inheriting_runtimes()))
    assert placement is not None and placement.entry is not None and placement.engine is not None
    assert (placement.entry.index, placement.entry.defined_in) == (0, "base")
    assert placement.engine.accelerator_config == L40S_CONFIG


def test_before_1_3_a_named_runtime_reads_its_own_spec():
    isvc = page_isvc("child", acceleratorSelector={"acceleratorClass": H100})
    body = body_of(isvc, *inheriting_runtimes(), omeVersion="1.2.2")
    placement = predict_body(body)
    assert placement is not None and placement.engine is not None
    assert placement.entry is None
    assert placement.engine.reason == "the runtime lists no accelerator classes"


# --- the entry (rules §20.2) -------------------------------------------------------------------


def test_the_entry_ignores_priority_and_entries_without_auto_select_true():
    runtime = runtime_doc(
        "auto",
        entry(architecture=None, auto_select=None, priority=9, weight=5),  # scores the runtime
        entry(architecture=None, auto_select=True, priority=1, name="low"),
        entry(architecture=None, auto_select=True, priority=7, name="tied"),
    )
    placement = predict_body(body_of(None, runtime))
    assert placement is not None
    assert (placement.engine, placement.decoder, placement.event) == (None, None, None)
    assert placement.entry is not None
    assert (placement.entry.index, placement.entry.name, placement.entry.score) == (1, "low", 2)


def test_a_named_runtime_reads_every_entry():
    runtime = page_runtime(None, entry(architecture=None, auto_select=None, weight=3))
    placement = predict_body(body_of(page_isvc(), runtime))
    assert placement is not None and placement.entry is not None
    assert (placement.entry.index, placement.entry.score) == (0, 4)


def test_an_auto_selected_runtime_can_have_no_entry():
    runtime = runtime_doc(
        "auto",
        entry(architecture=None, auto_select=None),
        entry(format_name="onnx", auto_select=True),
    )
    placement = predict_body(body_of(None, runtime))
    assert placement is not None and placement.entry is None


def test_a_sharded_models_entry_needs_the_cache_provider():
    model = model_doc(MODEL, kind="ClusterBaseModel", namespace=None, architecture=None)
    model["spec"]["distribution"] = "Sharded"
    runtime = page_runtime(None, entry(architecture=None, modelCacheProviders=["pvc"]))
    body = body_of(page_isvc(), runtime, model=model, modelCacheProvider="other")
    assert predict_body(body) is None  # OME refuses it: RuntimeIncompatible (§7)
    body["modelCacheProvider"] = "pvc"
    placement = predict_body(body)
    assert placement is not None and placement.entry is not None


# --- no placement ------------------------------------------------------------------------------


def test_no_placement_without_a_selection_or_on_an_error():
    assert predict_body(body_of(page_isvc("missing"))) is None  # RuntimeNotFound
    assert predict_body(body_of(page_isvc(None))) is None  # autoSelect false: nothing selected
    model = model_doc(MODEL, kind="ClusterBaseModel", namespace=None)
    del model["spec"]["modelFormat"]
    assert predict_body(body_of(page_isvc(), model=model)) is None  # ModelNotReady


def test_an_auto_selected_namespaced_runtime_of_the_same_name():
    cluster = runtime_doc(RUNTIME, entry(architecture=None))
    namespaced = serving_runtime(
        RUNTIME,
        entry(architecture=None),
        namespace="llama-demo",
        acceleratorRequirements={"acceleratorClasses": [H200]},
    )
    isvc = page_isvc(None, acceleratorSelector={"policy": "FirstAvailable"})
    placement = predict_body(body_of(isvc, cluster, namespaced))
    assert placement is not None and placement.engine is not None
    assert placement.engine.accelerator_class == H200


# --- what the pods get (rules §20.4, §20.10 item 15) -------------------------------------------


def test_resources_and_node_selector_of_the_class():
    gpu = class_doc(
        "gpu",
        node_selector={"b": "2", "a": "1"},
        resources=[{"name": "nvidia.com/gpu", "quantity": 2}, {"name": "rdma/ib"}],
    )
    isvc = page_isvc(acceleratorSelector={"acceleratorClass": "gpu"})
    engine = engine_of(isvc, page_runtime(["gpu"]), classes=[gpu]).engine
    assert engine is not None and engine.resources is not None
    assert list(engine.node_selector or {}) == ["a", "b"]
    assert (
        engine.resources.limits
        == engine.resources.requests
        == {
            "nvidia.com/gpu": "2",
            "rdma/ib": "1",
        }
    )
    isvc["spec"]["engine"] = {"runner": {"resources": {"limits": {}}}}
    engine = engine_of(isvc, page_runtime(["gpu"]), classes=[gpu]).engine
    assert engine is not None and engine.resources is None
    isvc["spec"]["engine"] = {"runner": {"resources": {"claims": [{"name": "rdma"}]}}}
    engine = engine_of(isvc, page_runtime(["gpu"]), classes=[gpu]).engine
    assert engine is not None and engine.resources is None
    # OME's isResourcesUnspecified: no limits, no requests and no claims.
    for unspecified in ({}, {"limits": None, "claims": []}):
        isvc["spec"]["engine"] = {"runner": {"resources": unspecified}}
        engine = engine_of(isvc, page_runtime(["gpu"]), classes=[gpu]).engine
        assert engine is not None and engine.resources is not None


def test_the_last_class_of_a_name_is_used():
    later = class_doc(H100, memory="1Gi")
    isvc = page_isvc(acceleratorSelector={"policy": "BestFit", "constraints": {"minMemory": 80}})
    engine = engine_of(isvc, classes=[h100(), h200(), later]).engine
    assert engine is not None and engine.accelerator_class == H200
