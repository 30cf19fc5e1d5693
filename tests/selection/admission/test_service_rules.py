"""The InferenceService webhook's checks of an object's own shape
(app/selection/admission/service_rules.py), each on a manifest as applied, in OME's words
(``isvc/inference_service_validation_test.go``, ``scaling_policy_validation_test.go``, and
tests/admission/ome_cases/REFERENCE.md for the texts the Go tests pin only in part)."""

from __future__ import annotations

import pytest

from app.selection.admission.service_rules import (
    autoscaler_block,
    components,
    deployment_strategy_warnings,
    overlay_names,
    overlay_refusals,
    pvc_namespace_refusal,
    runtime_pin_refusal,
    scaling_policy,
    shape_refusals,
)
from tests.builders import isvc_doc, loaded, model_doc

AUTOSCALER_CLASS = "ome.io/autoscalerClass"
NOT_IMPLEMENTED = (
    'spec.scalingPolicy.mode "{}" is accepted by the API but not implemented: no controller '
    'applies it, so the policy would silently behave like "Independent"; use "Independent" or '
    "omit the policy (ScalingModeNotImplemented)"
)


def service(name="svc", annotations=None, **spec):
    spec.setdefault("model", {"name": "llama"})
    return isvc_doc(name, annotations=annotations, **spec)


def codes(manifest) -> list[str]:
    return [code for code, _, _ in shape_refusals(manifest)]


def test_a_plain_inference_service_has_the_shape_ome_wants():
    assert shape_refusals(service(engine={"minReplicas": 1, "maxReplicas": 2})) == []


# --- the checks one by one, in OME's order --------------------------------------------------


@pytest.mark.parametrize(
    ("component", "field", "replacement"),
    [
        ("engine", "scaleTarget", "hpa.metrics[0].resource.target.averageUtilization"),
        ("routerConfig", "scaleMetric", "hpa.metrics[0].resource.name"),
    ],
)
def test_legacy_autoscaler_fields_name_their_replacement(component, field, replacement):
    manifest = service(**{component: {field: 50}})
    assert shape_refusals(manifest) == [
        (
            "LegacyAutoscalerFieldsRejected",
            "spec",
            f"LegacyAutoscalerFieldsRejected: spec.{component}.{field} is no longer supported. "
            f"Use spec.{component}.autoscaler.{replacement} instead.",
        )
    ]


@pytest.mark.parametrize("mode", ["Proportional", "Pinned"])
def test_an_unimplemented_scaling_mode_is_refused(mode):
    assert shape_refusals(service(scalingPolicy={"mode": mode})) == [
        ("ScalingModeNotImplemented", "spec.scalingPolicy.mode", NOT_IMPLEMENTED.format(mode))
    ]


@pytest.mark.parametrize("mode", [None, "", "Independent", 3])
def test_independent_or_no_scaling_mode_is_fine(mode):
    assert scaling_policy(mode) is None


def test_an_unknown_scaling_mode_lists_the_modes():
    assert scaling_policy("Lockstep") == (
        'spec.scalingPolicy.mode "Lockstep" is not one of Independent|Proportional|Pinned'
    )


@pytest.mark.parametrize("name", ["Test-ISVC", "invalid@name", "9lives", "trailing-", ""])
def test_a_name_must_be_a_dns_1035_label(name):
    assert shape_refusals(service(name)) == [
        (
            "InvalidName",
            "metadata.name",
            f'invalid InferenceService name "{name}", must match "[a-z]([-a-z0-9]*[a-z0-9])?"',
        )
    ]


@pytest.mark.parametrize(
    ("annotations", "text"),
    [
        (
            {AUTOSCALER_CLASS: "invalid-class"},
            "[invalid-class] is not a supported autoscaler class type",
        ),
        (
            {AUTOSCALER_CLASS: "hpa", "ome.io/metrics": "invalid-metric"},
            "[invalid-metric] is not a supported metric",
        ),
    ],
)
def test_the_autoscaler_annotations_name_what_is_not_supported(annotations, text):
    assert shape_refusals(service(annotations=annotations)) == [
        ("InvalidAutoscaler", "metadata.annotations", text)
    ]


@pytest.mark.parametrize(
    "annotations",
    [
        {AUTOSCALER_CLASS: "hpa", "ome.io/metrics": "memory"},
        {AUTOSCALER_CLASS: "keda", "ome.io/metrics": "anything"},  # KEDA reads no metric
        {"ome.io/metrics": "anything"},  # no class: not checked
    ],
)
def test_supported_autoscaler_annotations(annotations):
    assert shape_refusals(service(annotations=annotations)) == []


def test_an_autoscaler_block_is_refused_with_its_components_name():
    manifest = service(engine={"minReplicas": 1}, decoder={"autoscaler": {"class": "knative"}})
    assert shape_refusals(manifest) == [
        (
            "InvalidAutoscaler",
            "spec",
            'decoder: AutoscalerClassUnknown: autoscaler.class "knative" is not one of '
            "HPA|KEDA|External|None",
        )
    ]


@pytest.mark.parametrize(
    ("autoscaler", "min_replicas", "text"),
    [
        (
            {},
            None,
            'AutoscalerClassUnknown: autoscaler.class "" is not one of HPA|KEDA|External|None',
        ),
        (
            {"class": 7},
            None,
            'AutoscalerClassUnknown: autoscaler.class "" is not one of HPA|KEDA|External|None',
        ),
        ({"class": "KEDA"}, None, "KedaTriggersRequired: class=keda requires at least 1 trigger"),
        (
            {"class": "KEDA", "keda": {"triggers": []}},
            None,
            "KedaTriggersRequired: class=keda requires at least 1 trigger",
        ),
        (
            {"class": "KEDA", "keda": {"triggers": [{"type": "cpu"}], "idleReplicaCount": 2}},
            2,
            "KedaIdleBelowMin: keda.idleReplicaCount must be < minReplicas (got "
            "idleReplicaCount=2, minReplicas=2)",
        ),
        (
            {"class": "HPA", "hpa": {"metrics": [{"type": "Resource", "resource": {}}, {}]}},
            None,
            "HPAMetricMalformed: hpa.metrics[1].type is empty; must be one of "
            "Resource|Pods|Object|External|ContainerResource",
        ),
        (
            {"class": "HPA", "hpa": {"metrics": [{"type": "Pods"}]}},
            None,
            "HPAMetricMalformed: hpa.metrics[0].type=Pods but hpa.metrics[0].pods is nil",
        ),
        (
            {"class": "HPA", "hpa": {"metrics": [{"type": "ContainerResource"}]}},
            None,
            "HPAMetricMalformed: hpa.metrics[0].type=ContainerResource but "
            "hpa.metrics[0].containerResource is nil",
        ),
        (
            {"class": "HPA", "hpa": {"metrics": [{"type": "Custom"}]}},
            None,
            'HPAMetricMalformed: hpa.metrics[0].type "Custom" is not one of '
            "Resource|Pods|Object|External|ContainerResource",
        ),
    ],
)
def test_an_autoscaler_blocks_shape(autoscaler, min_replicas, text):
    assert autoscaler_block(autoscaler, min_replicas) == text


@pytest.mark.parametrize(
    ("autoscaler", "min_replicas"),
    [
        (None, 1),
        ({"class": "None"}, 1),
        ({"class": "External"}, 0),
        ({"class": "KEDA", "keda": {"triggers": [{}], "idleReplicaCount": 0}}, 1),
        ({"class": "KEDA", "keda": {"triggers": [{}], "idleReplicaCount": 3}}, None),
        ({"class": "HPA", "hpa": {"metrics": [{"type": "External", "external": {}}]}}, 1),
        ({"class": "HPA"}, 1),
    ],
)
def test_autoscaler_blocks_ome_accepts(autoscaler, min_replicas):
    assert autoscaler_block(autoscaler, min_replicas) is None


def test_the_annotation_and_a_block_together_are_a_conflict():
    manifest = service(
        annotations={AUTOSCALER_CLASS: "hpa"},
        engine={"autoscaler": {"class": "HPA"}},
    )
    assert shape_refusals(manifest) == [
        (
            "AutoscalerAnnotationConflict",
            "metadata.annotations",
            "AutoscalerAnnotationConflict: ome.io/autoscalerClass annotation is present together "
            "with spec.engine.autoscaler; remove the annotation — per-Component autoscaler block "
            "wins",
        )
    ]


def test_a_policy_ref_is_refused_while_the_feature_is_off():
    manifest = service(engine={"autoscalerPolicyRef": {"name": "burst"}})
    assert shape_refusals(manifest) == [
        (
            "AutoscalerPolicyFeatureDisabled",
            "spec",
            'AutoscalerPolicyFeatureDisabled: spec.engine.autoscalerPolicyRef references "burst" '
            "but the AutoscalerPolicy feature is not enabled on this cluster; remove the ref or "
            "enable the feature",
        )
    ]


@pytest.mark.parametrize("value", ["0", "101", "fifty", "1" * 30, 50])
def test_the_target_utilization_is_an_integer_from_1_to_100(value):
    annotations = {"ome.io/targetUtilizationPercentage": value}
    assert shape_refusals(service(annotations=annotations)) == [
        (
            "InvalidTargetUtilization",
            "metadata.annotations[ome.io/targetUtilizationPercentage]",
            "the target utilization percentage should be a [1-100] integer",
        )
    ]


@pytest.mark.parametrize("value", ["1", "100", "+50", "007"])
def test_target_utilizations_strconv_atoi_reads(value):
    annotations = {"ome.io/targetUtilizationPercentage": value}
    assert shape_refusals(service(annotations=annotations)) == []


def test_a_decoder_needs_an_engine():
    assert shape_refusals(service(decoder={"minReplicas": 1})) == [
        ("DecoderWithoutEngine", "spec.decoder", "decoder cannot be specified without engine")
    ]


@pytest.mark.parametrize(
    ("engine", "text"),
    [
        (
            {"leader": {}},
            "InvalidLeaderWorkerPairing: engine.leader is set but engine.worker is not; "
            "multi-pod configurations require both (LeaderRequiresWorker)",
        ),
        (
            {"worker": {"size": 1}},
            "InvalidLeaderWorkerPairing: engine.worker is set but engine.leader is not; "
            "multi-pod configurations require both (WorkerRequiresLeader)",
        ),
        (
            {"leader": {}, "worker": {"size": 0}},
            "InvalidLeaderWorkerPairing: engine.worker is set but worker.size is not a positive "
            "integer; multi-pod configurations require worker.size > 0 "
            "(WorkerSizeMustBePositive)",
        ),
    ],
)
def test_a_leader_and_a_worker_come_together(engine, text):
    assert shape_refusals(service(engine=engine)) == [("InvalidLeaderWorkerPairing", "spec", text)]


def test_a_lean_multi_pod_spec_declares_both_runner_images():
    lean = {"leader": {"runner": {"image": "ome/sglang"}}, "worker": {"size": 2}}
    manifest = isvc_doc("svc", engine=lean)
    assert shape_refusals(manifest) == [
        (
            "MultiPodLeanModelNeedsRunner",
            "spec",
            "MultiPodLeanModelNeedsRunner: engine is multi-pod with no spec.model and no "
            'spec.runtime, but engine.leader.runner.image ("ome/sglang") or '
            'engine.worker.runner.image ("") is empty; multi-pod lean specs must declare both '
            "runner images",
        )
    ]
    # With a model, the images come from the runtime: nothing to declare.
    assert shape_refusals(service(engine=lean)) == []


@pytest.mark.parametrize(
    ("spec", "first", "second"),
    [
        (
            {"engine": {"annotations": {"ome.io/deploymentMode": "OMENative"}}, "decoder": {}},
            "OMENative",
            "",
        ),
        (
            {
                "deploymentMode": "OMENative",
                "engine": {},
                "decoder": {"annotations": {"ome.io/deploymentMode": "MultiNode"}},
            },
            "OMENative",
            "MultiNode",
        ),
    ],
)
def test_omenative_is_all_or_nothing_between_engine_and_decoder(spec, first, second):
    assert shape_refusals(service(**spec)) == [
        (
            "InvalidDeploymentModeCombination",
            "spec",
            f'InvalidDeploymentModeCombination: engine deploymentMode="{first}" does not match '
            f'decoder deploymentMode="{second}"; when either is OMENative, both must use the '
            "same value",
        )
    ]


def test_both_omenative_through_the_spec_is_fine():
    assert shape_refusals(service(deploymentMode="OMENative", engine={}, decoder={})) == []


def test_scale_to_zero_needs_keda():
    assert shape_refusals(service(engine={"minReplicas": 0})) == [
        (
            "InvalidScaleToZero",
            "spec",
            "InvalidScaleToZero: engine.minReplicas=0 requires KEDA autoscaling (set "
            "spec.engine.autoscaler.class=KEDA or the ome.io/autoscalerClass=keda annotation); "
            "Serverless mode no longer auto-promotes scale-to-zero",
        )
    ]
    keda = {"class": "KEDA", "keda": {"triggers": [{"type": "cpu"}]}}
    assert shape_refusals(service(engine={"minReplicas": 0, "autoscaler": keda})) == []
    by_annotation = service(annotations={AUTOSCALER_CLASS: "keda"}, engine={"minReplicas": 0})
    assert shape_refusals(by_annotation) == []


@pytest.mark.parametrize(
    ("component", "bounds", "text"),
    [
        ("engine", {"minReplicas": -1}, "spec.engine.minReplicas must be >= 0"),
        ("router", {"maxReplicas": -1}, "spec.router.maxReplicas must be >= 1"),
        (
            "decoder",
            {"minReplicas": 4, "maxReplicas": 3},
            "spec.decoder.minReplicas (4) must be <= maxReplicas (3)",
        ),
    ],
)
def test_replica_bounds(component, bounds, text):
    spec = {"engine": {}, component: bounds}
    assert shape_refusals(service(**spec)) == [("InvalidReplicaBounds", "spec", text)]


def test_a_max_replicas_of_zero_is_unset_and_equal_bounds_are_fine():
    assert shape_refusals(service(engine={"minReplicas": 5, "maxReplicas": 0})) == []
    assert shape_refusals(service(engine={"minReplicas": 2, "maxReplicas": 2})) == []


@pytest.mark.parametrize(
    ("budget", "text"),
    [
        (
            {"minAvailable": 1, "maxUnavailable": 1},
            "spec.engine.minAvailable and spec.engine.maxUnavailable cannot both be set",
        ),
        (
            {"minAvailable": "101%"},
            "spec.engine.minAvailable must be a non-negative integer or a percentage from 0% to "
            "100%",
        ),
        (
            {"maxUnavailable": -1},
            "spec.engine.maxUnavailable must be a non-negative integer or a percentage from 0% "
            "to 100%",
        ),
        (
            {"maxUnavailable": "-5%"},
            "spec.engine.maxUnavailable must be a non-negative integer or a percentage from 0% "
            "to 100%",
        ),
        (
            {"minAvailable": "9" * 30 + "%"},  # strconv.Atoi's range error
            "spec.engine.minAvailable must be a non-negative integer or a percentage from 0% to "
            "100%",
        ),
    ],
)
def test_disruption_budgets(budget, text):
    assert shape_refusals(service(engine=budget)) == [("InvalidDisruptionBudget", "spec", text)]


@pytest.mark.parametrize("value", [0, 3, "0%", "100%", "050%"])
def test_disruption_budgets_ome_accepts(value):
    assert shape_refusals(service(engine={"minAvailable": value})) == []


def test_a_metadata_endpoint_override_is_reserved():
    manifest = service(traffic={"endpointOverride": {"type": "Metadata"}})
    assert shape_refusals(manifest) == [
        (
            "ReservedEndpointOverrideType",
            "spec.traffic.endpointOverride.type",
            "spec.traffic.endpointOverride.type=Metadata is reserved and not implemented by the "
            "active translator (ReservedEndpointOverrideType)",
        )
    ]


def test_every_failing_check_is_listed_in_omes_order():
    """What the webhook meets first, then what the next apply would meet once that is fixed."""
    manifest = service(
        "Bad_Name",
        annotations={"ome.io/targetUtilizationPercentage": "0"},
        scalingPolicy={"mode": "Pinned"},
        engine={"scaleTarget": 1, "minReplicas": 3, "maxReplicas": 1},
        decoder={"leader": {}},
        traffic={"endpointOverride": {"type": "Metadata"}},
    )
    assert codes(manifest) == [
        "LegacyAutoscalerFieldsRejected",
        "ScalingModeNotImplemented",
        "InvalidName",
        "InvalidTargetUtilization",
        "InvalidLeaderWorkerPairing",
        "InvalidReplicaBounds",
        "ReservedEndpointOverrideType",
    ]


# --- the helpers the webhook's later steps use ------------------------------------------------


def test_components_are_the_declared_ones_in_omes_order():
    spec = {"router": {}, "decoder": None, "engine": {"minReplicas": 1}, "extra": {}}
    assert [name for name, _ in components(spec)] == ["engine", "router"]
    assert list(components(None)) == []


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (
            service(
                annotations={"ome.io/deploymentMode": "Serverless"},
                engine={"deploymentStrategy": {}},
                router={"deploymentStrategy": {}},
            ),
            ["engine", "router"],
        ),
        (
            service(deploymentMode="MultiNode", decoder={"deploymentStrategy": {}}, engine={}),
            ["decoder"],
        ),
        (service(deploymentMode="RawDeployment", engine={"deploymentStrategy": {}}), []),
        (service(engine={"deploymentStrategy": {}}), []),
    ],
)
def test_a_deployment_strategy_is_warned_about_outside_raw_deployment(manifest, expected):
    mode = "Serverless" if "annotations" in manifest["metadata"] else "MultiNode"
    assert deployment_strategy_warnings(manifest) == [
        f'{name}.deploymentStrategy is set but deploymentMode is "{mode}"; deploymentStrategy '
        "applies only to RawDeployment and is ignored here — use "
        f"{name}.lifecycle.updateStrategy.rollingUpdate for rollout pacing"
        for name in expected
    ]


def overlaid(*names, primary="primary"):
    return service(model={"name": primary, "overlays": [{"name": n} for n in names]})


@pytest.mark.parametrize(
    ("names", "text"),
    [
        (("foo", ""), "overlay name cannot be empty"),
        (
            ("primary",),
            'overlay "primary" must not reference the primary model of the same kind/apiGroup',
        ),
        (("foo-pvc", "bar", "foo-pvc"), 'overlay "foo-pvc" is declared more than once'),
        (
            ("foo-bar", "foo_bar"),
            'overlays "foo-bar" and "foo_bar" both sanitize to env var OVERLAY_FOO_BAR_MODEL_PATH; '
            "rename one (hyphens and underscores collapse to the same form)",
        ),
    ],
)
def test_overlays_are_refused_at_their_first_problem(names, text):
    assert overlay_refusals(overlaid(*names)) == [("InvalidOverlay", "spec.model.overlays", text)]


def test_distinct_overlays_and_their_names():
    manifest = overlaid("foo", "bar")
    assert overlay_refusals(manifest) == []
    assert overlay_names(manifest) == ["foo", "bar"]
    assert overlay_names(service(model={"name": "x", "overlays": [{"name": 3}, {}]})) == ["", ""]
    assert overlay_names(service()) == []


def pinned(revision, *, auto_sync=False, kind=None, name="srt-llama-pd", namespace="team-a"):
    runtime = {"name": name, "revision": revision}
    if auto_sync is not None:
        runtime["autoSync"] = auto_sync
    if kind is not None:
        runtime["kind"] = kind
    manifest = isvc_doc("svc", namespace=namespace, model={"name": "llama"}, runtime=runtime)
    return runtime_pin_refusal(manifest, loaded(manifest))


@pytest.mark.parametrize("auto_sync", [True, None])
def test_a_revision_pin_needs_auto_sync_off(auto_sync):
    assert pinned("cr-srt-llama-pd-abc12345", auto_sync=auto_sync) == (
        "InvalidRevisionPin",
        "spec.runtime.revision",
        "spec.runtime.revision requires spec.runtime.autoSync=false; AutoSync=true would "
        "silently ignore the pin",
    )


@pytest.mark.parametrize(
    ("revision", "kind", "form"),
    [
        (
            "cr-srt-other-abc12345",
            None,
            "ClusterServingRuntime); expected the form cr-srt-llama-pd-",
        ),
        ("cr-srt-llama-pd-XYZ", None, "ClusterServingRuntime); expected the form cr-srt-llama-pd-"),
        (
            "cr-srt-llama-pd-abc123456",
            None,
            "ClusterServingRuntime); expected the form cr-srt-llama-pd-",
        ),
        (
            "r-team-b-srt-llama-pd-abc12345",
            "ServingRuntime",
            "ServingRuntime); expected the form r-team-a-srt-llama-pd-",
        ),
    ],
)
def test_a_revision_pin_names_a_revision_of_its_runtime(revision, kind, form):
    assert pinned(revision, kind=kind) == (
        "InvalidRevisionPin",
        "spec.runtime.revision",
        f'spec.runtime.revision "{revision}" does not match the expected naming convention for '
        f'runtime "srt-llama-pd" ({form}<8 lowercase hex chars>',
    )


@pytest.mark.parametrize(
    ("revision", "kind"),
    [
        ("cr-srt-llama-pd-0123abcd", None),
        ("r-team-a-srt-llama-pd-0123abcd", "ServingRuntime"),
        ("", None),
    ],
)
def test_a_revision_of_the_named_runtime_or_no_pin_is_fine(revision, kind):
    assert pinned(revision, kind=kind) is None


def cluster_model(uri):
    return loaded(
        model_doc(
            "shared-llama", kind="ClusterBaseModel", namespace=None, storage={"storageUri": uri}
        )
    )


def test_a_cluster_model_on_a_claim_of_another_namespace_cannot_be_mounted():
    isvc = loaded(isvc_doc("svc", namespace="team-foo", model={"name": "shared-llama"}))
    assert pvc_namespace_refusal(cluster_model("pvc://shared:models/llama"), isvc) == (
        "CrossNamespacePVC",
        "spec.model.name",
        'ClusterBaseModel "shared-llama" references PVC in namespace "shared", but '
        'InferenceService is in namespace "team-foo"; Kubernetes does not allow pods to mount '
        'PVCs from another namespace. Either move the InferenceService to namespace "shared" or '
        'replicate the PVC into namespace "team-foo".',
    )


@pytest.mark.parametrize(
    ("model", "namespace"),
    [
        (cluster_model("pvc://shared:models/llama"), "shared"),
        (cluster_model("pvc://models/llama"), "team-foo"),  # the model's own error
        (cluster_model("pvc://"), "team-foo"),
        (
            loaded(
                model_doc("shared-llama", namespace="team-foo", storage={"storageUri": "pvc://m/x"})
            ),
            "team-foo",
        ),
        (cluster_model("hf://meta/llama"), "team-foo"),
    ],
)
def test_a_claim_the_inference_service_can_mount_or_none_at_all(model, namespace):
    isvc = loaded(isvc_doc("svc", namespace=namespace, model={"name": "shared-llama"}))
    assert pvc_namespace_refusal(model, isvc) is None
