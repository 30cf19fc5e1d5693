"""The InferenceService webhook's checks of an object's own shape (rules §18 "Parity"), read
from the manifest as applied, each with OME's text, in the order OME's code runs them on a
create. Checks of fields lint does not model (traffic, rollout, placement, lifecycle, migration
requests) are not made: see the README's account of lint.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..values import InferenceService, Model, get, go_quote, parse_go_int
from .findings import Refusal
from .storage_uris import PVC, parse_pvc

COMPONENTS = ("engine", "decoder", "router")
NAME = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
AUTOSCALER_CLASS = "ome.io/autoscalerClass"
METRICS = "ome.io/metrics"
TARGET_UTILIZATION = "ome.io/targetUtilizationPercentage"
DEPLOYMENT_MODE = "ome.io/deploymentMode"
OME_NATIVE = "OMENative"
INDEPENDENT = "Independent"
UNIMPLEMENTED_SCALING = ("Proportional", "Pinned")
CLASSES = ("HPA", "KEDA", "External", "None")
METRIC_TYPES = {
    "Resource": "resource",
    "Pods": "pods",
    "Object": "object",
    "External": "external",
    "ContainerResource": "containerResource",
}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def components(spec: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The components an InferenceService declares, in OME's order (null is not declared)."""
    for name in COMPONENTS:
        component = get(spec, name)
        if isinstance(component, Mapping):
            yield name, component


def _annotations(manifest: Mapping[str, Any]) -> Mapping[str, Any]:
    found = get(manifest, "metadata", "annotations")
    return found if isinstance(found, Mapping) else {}


# --- the checks, in OME's order ---------------------------------------------------------------


LEGACY_FIELDS = (
    ("scaleTarget", "hpa.metrics[0].resource.target.averageUtilization"),
    ("scaleMetric", "hpa.metrics[0].resource.name"),
)


def _legacy_autoscaler_fields(manifest: Mapping[str, Any]) -> str | None:
    """The fields OME's newest types deleted: its webhook reads the request as applied."""
    spec = get(manifest, "spec")
    for component in (*COMPONENTS, "engineConfig", "decoderConfig", "routerConfig"):
        for field, replacement in LEGACY_FIELDS:
            if get(spec, component, field) is not None:
                return (
                    f"LegacyAutoscalerFieldsRejected: spec.{component}.{field} is no longer "
                    f"supported. Use spec.{component}.autoscaler.{replacement} instead."
                )
    return None


def _scaling_policy(manifest: Mapping[str, Any]) -> str | None:
    return scaling_policy(get(manifest, "spec", "scalingPolicy", "mode"))


def scaling_policy(mode: Any) -> str | None:
    """OME's refusal of a scaling policy mode (InferenceServices and runtimes alike)."""
    if mode in UNIMPLEMENTED_SCALING:
        return (
            f"spec.scalingPolicy.mode {go_quote(mode)} is accepted by the API but not "
            "implemented: no controller applies it, so the policy would silently behave like "
            f'"{INDEPENDENT}"; use "{INDEPENDENT}" or omit the policy (ScalingModeNotImplemented)'
        )
    if isinstance(mode, str) and mode not in ("", INDEPENDENT):
        return (
            f"spec.scalingPolicy.mode {go_quote(mode)} is not one of "
            "Independent|Proportional|Pinned"
        )
    return None


def _name(manifest: Mapping[str, Any]) -> str | None:
    name = get(manifest, "metadata", "name")
    if isinstance(name, str) and NAME.fullmatch(name):
        return None
    return (
        f"invalid InferenceService name {go_quote(str(name or ''))}, must match "
        f"{go_quote(NAME.pattern)}"
    )


def _autoscaler_annotations(manifest: Mapping[str, Any]) -> str | None:
    annotations = _annotations(manifest)
    if AUTOSCALER_CLASS not in annotations:
        return None
    value = annotations[AUTOSCALER_CLASS]
    if value not in ("hpa", "keda", "external"):
        return f"[{value}] is not a supported autoscaler class type"
    if value == "hpa" and METRICS in annotations:
        metric = annotations[METRICS]
        if metric not in ("cpu", "memory"):
            return f"[{metric}] is not a supported metric"
    return None


def _autoscaler_blocks(manifest: Mapping[str, Any]) -> str | None:
    for name, component in components(get(manifest, "spec")):
        text = autoscaler_block(component.get("autoscaler"), component.get("minReplicas"))
        if text is not None:
            return f"{name}: {text}"
    return None


def autoscaler_block(autoscaler: Any, min_replicas: Any) -> str | None:
    """OME's shape check of one component's ``autoscaler`` block (shared with runtimes)."""
    if not isinstance(autoscaler, Mapping):
        return None
    kind = autoscaler.get("class")
    if kind not in CLASSES:
        shown = go_quote(kind if isinstance(kind, str) else "")
        return (
            f"AutoscalerClassUnknown: autoscaler.class {shown} is not one of HPA|KEDA|External|None"
        )
    if kind == "KEDA":
        keda = autoscaler.get("keda")
        if not isinstance(keda, Mapping) or not keda.get("triggers"):
            return "KedaTriggersRequired: class=keda requires at least 1 trigger"
        idle = keda.get("idleReplicaCount")
        if _is_int(idle) and _is_int(min_replicas) and idle >= min_replicas:
            return (
                "KedaIdleBelowMin: keda.idleReplicaCount must be < minReplicas (got "
                f"idleReplicaCount={idle}, minReplicas={min_replicas})"
            )
    if kind == "HPA":
        metrics = get(autoscaler, "hpa", "metrics")
        for index, metric in enumerate(metrics if isinstance(metrics, list) else ()):
            text = _hpa_metric(index, metric)
            if text is not None:
                return f"HPAMetricMalformed: {text}"
    return None


def _hpa_metric(index: int, metric: Any) -> str | None:
    kind = get(metric, "type")
    where = f"hpa.metrics[{index}]"
    if not kind:
        return (
            f"{where}.type is empty; must be one of Resource|Pods|Object|External|ContainerResource"
        )
    field = METRIC_TYPES.get(kind) if isinstance(kind, str) else None
    if field is None:
        return (
            f"{where}.type {go_quote(str(kind))} is not one of "
            "Resource|Pods|Object|External|ContainerResource"
        )
    if get(metric, field) is None:
        return f"{where}.type={kind} but {where}.{field} is nil"
    return None


def _annotation_conflict(manifest: Mapping[str, Any]) -> str | None:
    if AUTOSCALER_CLASS not in _annotations(manifest):
        return None
    for name, component in components(get(manifest, "spec")):
        if component.get("autoscaler") is not None:
            return (
                f"AutoscalerAnnotationConflict: {AUTOSCALER_CLASS} annotation is present "
                f"together with spec.{name}.autoscaler; remove the annotation — per-Component "
                "autoscaler block wins"
            )
    return None


def _policy_refs(manifest: Mapping[str, Any]) -> str | None:
    """OME's tests and a cluster without the AutoscalerPolicy CRD: any ref is refused."""
    for name, component in components(get(manifest, "spec")):
        ref = component.get("autoscalerPolicyRef")
        if isinstance(ref, Mapping):
            target = ref.get("name")
            return (
                f"AutoscalerPolicyFeatureDisabled: spec.{name}.autoscalerPolicyRef references "
                f"{go_quote(target if isinstance(target, str) else '')} but the AutoscalerPolicy "
                "feature is not enabled on this cluster; remove the ref or enable the feature"
            )
    return None


def _target_utilization(manifest: Mapping[str, Any]) -> str | None:
    annotations = _annotations(manifest)
    if TARGET_UTILIZATION not in annotations:
        return None
    value = annotations[TARGET_UTILIZATION]
    percentage = parse_go_int(value) if isinstance(value, str) else None  # strconv.Atoi
    if percentage is not None and 1 <= percentage <= 100:
        return None
    return "the target utilization percentage should be a [1-100] integer"


def _decoder_needs_engine(manifest: Mapping[str, Any]) -> str | None:
    spec = get(manifest, "spec")
    if isinstance(get(spec, "decoder"), Mapping) and not isinstance(get(spec, "engine"), Mapping):
        return "decoder cannot be specified without engine"
    return None


def _leader_worker(manifest: Mapping[str, Any]) -> str | None:
    spec = get(manifest, "spec")
    for name in ("engine", "decoder"):
        component = get(spec, name)
        if not isinstance(component, Mapping):
            continue
        leader = isinstance(component.get("leader"), Mapping)
        worker = isinstance(component.get("worker"), Mapping)
        if leader and not worker:
            return (
                f"InvalidLeaderWorkerPairing: {name}.leader is set but {name}.worker is not; "
                "multi-pod configurations require both (LeaderRequiresWorker)"
            )
        if worker and not leader:
            return (
                f"InvalidLeaderWorkerPairing: {name}.worker is set but {name}.leader is not; "
                "multi-pod configurations require both (WorkerRequiresLeader)"
            )
        size = get(component, "worker", "size")
        if leader and worker and not (_is_int(size) and size > 0):
            return (
                f"InvalidLeaderWorkerPairing: {name}.worker is set but worker.size is not a "
                "positive integer; multi-pod configurations require worker.size > 0 "
                "(WorkerSizeMustBePositive)"
            )
    return None


def _lean_runner(manifest: Mapping[str, Any]) -> str | None:
    spec = get(manifest, "spec")
    if get(spec, "model", "name") or get(spec, "runtime", "name"):
        return None
    for name in ("engine", "decoder"):
        component = get(spec, name)
        if not isinstance(component, Mapping):
            continue
        if not (
            isinstance(component.get("leader"), Mapping)
            and isinstance(component.get("worker"), Mapping)
        ):
            continue
        leader = get(component, "leader", "runner", "image")
        worker = get(component, "worker", "runner", "image")
        leader = leader if isinstance(leader, str) else ""
        worker = worker if isinstance(worker, str) else ""
        if not leader or not worker:
            return (
                f"MultiPodLeanModelNeedsRunner: {name} is multi-pod with no spec.model and no "
                f"spec.runtime, but {name}.leader.runner.image ({go_quote(leader)}) or "
                f"{name}.worker.runner.image ({go_quote(worker)}) is empty; multi-pod lean specs "
                "must declare both runner images"
            )
    return None


def _mode(spec: Any, component: Any) -> str:
    own = get(component, "annotations", DEPLOYMENT_MODE)
    if isinstance(own, str) and own:
        return own
    mode = get(spec, "deploymentMode")
    return mode if isinstance(mode, str) else ""


def _deployment_modes(manifest: Mapping[str, Any]) -> str | None:
    spec = get(manifest, "spec")
    engine, decoder = get(spec, "engine"), get(spec, "decoder")
    if not isinstance(engine, Mapping) or not isinstance(decoder, Mapping):
        return None
    first, second = _mode(spec, engine), _mode(spec, decoder)
    if OME_NATIVE in (first, second) and first != second:
        return (
            f"InvalidDeploymentModeCombination: engine deploymentMode={go_quote(first)} does not "
            f"match decoder deploymentMode={go_quote(second)}; when either is OMENative, both "
            "must use the same value"
        )
    return None


def _scale_to_zero(manifest: Mapping[str, Any]) -> str | None:
    keda = _annotations(manifest).get(AUTOSCALER_CLASS) == "keda"
    for name, component in components(get(manifest, "spec")):
        minimum = component.get("minReplicas")
        if not (_is_int(minimum) and minimum == 0):
            continue
        if keda or get(component, "autoscaler", "class") == "KEDA":
            continue
        return (
            f"InvalidScaleToZero: {name}.minReplicas=0 requires KEDA autoscaling (set "
            f"spec.{name}.autoscaler.class=KEDA or the {AUTOSCALER_CLASS}=keda annotation); "
            "Serverless mode no longer auto-promotes scale-to-zero"
        )
    return None


def _replica_bounds(manifest: Mapping[str, Any]) -> str | None:
    for name, component in components(get(manifest, "spec")):
        low, high = component.get("minReplicas"), component.get("maxReplicas")
        high = high if _is_int(high) and high != 0 else None  # 0 is unset
        low = low if _is_int(low) else None
        if low is not None and low < 0:
            return f"spec.{name}.minReplicas must be >= 0"
        if high is not None and high < 1:
            return f"spec.{name}.maxReplicas must be >= 1"
        if low is not None and high is not None and low > high:
            return f"spec.{name}.minReplicas ({low}) must be <= maxReplicas ({high})"
    return None


def _budget_ok(value: Any) -> bool:
    if _is_int(value):
        return bool(value >= 0)
    if isinstance(value, str) and value.endswith("%"):
        # OME: digits only, then strconv.Atoi, whose range error refuses it too.
        digits = value[:-1]
        percentage = parse_go_int(digits) if digits.isdigit() else None
        return percentage is not None and percentage <= 100
    return False


def _disruption_budgets(manifest: Mapping[str, Any]) -> str | None:
    for name, component in components(get(manifest, "spec")):
        where = f"spec.{name}"
        low, high = component.get("minAvailable"), component.get("maxUnavailable")
        if low is not None and high is not None:
            return f"{where}.minAvailable and {where}.maxUnavailable cannot both be set"
        for field, value in (("minAvailable", low), ("maxUnavailable", high)):
            if value is not None and not _budget_ok(value):
                return (
                    f"{where}.{field} must be a non-negative integer or a percentage from 0% "
                    "to 100%"
                )
    return None


def _endpoint_override(manifest: Mapping[str, Any]) -> str | None:
    """No translator OME ships implements it (OME's tests wire none)."""
    if get(manifest, "spec", "traffic", "endpointOverride", "type") == "Metadata":
        return (
            "spec.traffic.endpointOverride.type=Metadata is reserved and not implemented by the "
            "active translator (ReservedEndpointOverrideType)"
        )
    return None


def deployment_strategy_warnings(manifest: Mapping[str, Any]) -> list[str]:
    """``deploymentStrategy`` is honoured by RawDeployment only."""
    spec = get(manifest, "spec")
    mode = _annotations(manifest).get(DEPLOYMENT_MODE)
    if not isinstance(mode, str) or not mode:
        mode = get(spec, "deploymentMode")
    if not isinstance(mode, str) or mode in ("", "RawDeployment"):
        return []
    return [
        f"{name}.deploymentStrategy is set but deploymentMode is {go_quote(mode)}; "
        "deploymentStrategy applies only to RawDeployment and is ignored here — use "
        f"{name}.lifecycle.updateStrategy.rollingUpdate for rollout pacing"
        for name, component in components(spec)
        if component.get("deploymentStrategy") is not None
    ]


def overlay_refusals(manifest: Mapping[str, Any]) -> list[Refusal]:
    """The overlays' own shape (after their models were found)."""
    primary = get(manifest, "spec", "model", "name")
    overlays = get(manifest, "spec", "model", "overlays")
    seen: set[str] = set()
    env: dict[str, str] = {}
    field = "spec.model.overlays"
    for overlay in overlays if isinstance(overlays, list) else ():
        name = get(overlay, "name")
        name = name if isinstance(name, str) else ""
        if not name:
            return [("InvalidOverlay", field, "overlay name cannot be empty")]
        if name == primary:
            return [
                (
                    "InvalidOverlay",
                    field,
                    f"overlay {go_quote(name)} must not reference the primary model of the same "
                    "kind/apiGroup",
                )
            ]
        if name in seen:
            return [
                ("InvalidOverlay", field, f"overlay {go_quote(name)} is declared more than once")
            ]
        seen.add(name)
        variable = "OVERLAY_" + name.upper().replace("-", "_") + "_MODEL_PATH"
        if variable in env:
            return [
                (
                    "InvalidOverlay",
                    field,
                    f"overlays {go_quote(env[variable])} and {go_quote(name)} both sanitize to "
                    f"env var {variable}; rename one (hyphens and underscores collapse to the "
                    "same form)",
                )
            ]
        env[variable] = name
    return []


def overlay_names(manifest: Mapping[str, Any]) -> list[str]:
    overlays = get(manifest, "spec", "model", "overlays")
    names = []
    for overlay in overlays if isinstance(overlays, list) else ():
        name = get(overlay, "name")
        names.append(name if isinstance(name, str) else "")
    return names


# (code, field, check) in the order of OME's ValidateCreate and validateInferenceService.
SHAPE_CHECKS: tuple[tuple[str, str | None, Callable[[Mapping[str, Any]], str | None]], ...] = (
    ("LegacyAutoscalerFieldsRejected", "spec", _legacy_autoscaler_fields),
    ("ScalingModeNotImplemented", "spec.scalingPolicy.mode", _scaling_policy),
    ("InvalidName", "metadata.name", _name),
    ("InvalidAutoscaler", "metadata.annotations", _autoscaler_annotations),
    ("InvalidAutoscaler", "spec", _autoscaler_blocks),
    ("AutoscalerAnnotationConflict", "metadata.annotations", _annotation_conflict),
    ("AutoscalerPolicyFeatureDisabled", "spec", _policy_refs),
    (
        "InvalidTargetUtilization",
        f"metadata.annotations[{TARGET_UTILIZATION}]",
        _target_utilization,
    ),
    ("DecoderWithoutEngine", "spec.decoder", _decoder_needs_engine),
    ("InvalidLeaderWorkerPairing", "spec", _leader_worker),
    ("MultiPodLeanModelNeedsRunner", "spec", _lean_runner),
    ("InvalidDeploymentModeCombination", "spec", _deployment_modes),
    ("InvalidScaleToZero", "spec", _scale_to_zero),
    ("InvalidReplicaBounds", "spec", _replica_bounds),
    ("InvalidDisruptionBudget", "spec", _disruption_budgets),
    ("ReservedEndpointOverrideType", "spec.traffic.endpointOverride.type", _endpoint_override),
)


def shape_refusals(manifest: Mapping[str, Any]) -> list[Refusal]:
    """Every shape check the manifest fails, in OME's order."""
    found: list[Refusal] = []
    for code, field, check in SHAPE_CHECKS:
        text = check(manifest)
        if text is not None:
            found.append((code, field, text))
    return found


def runtime_pin_refusal(manifest: Mapping[str, Any], isvc: InferenceService) -> Refusal | None:
    """A revision pin needs ``autoSync: false`` and a revision name of the named runtime."""
    ref = get(manifest, "spec", "runtime")
    revision = get(ref, "revision")
    if not isinstance(revision, str) or not revision:
        return None
    field = "spec.runtime.revision"
    if get(ref, "autoSync") is not False:
        return (
            "InvalidRevisionPin",
            field,
            "spec.runtime.revision requires spec.runtime.autoSync=false; AutoSync=true would "
            "silently ignore the pin",
        )
    name = get(ref, "name")
    name = name if isinstance(name, str) else ""
    if get(ref, "kind") == "ServingRuntime":
        kind, prefix = "ServingRuntime", f"r-{isvc.namespace}-{name}-"
    else:
        kind, prefix = "ClusterServingRuntime", f"cr-{name}-"
    suffix = revision.removeprefix(prefix)
    if revision.startswith(prefix) and re.fullmatch(r"[0-9a-f]{8}", suffix):
        return None
    return (
        "InvalidRevisionPin",
        field,
        f"spec.runtime.revision {go_quote(revision)} does not match the expected naming "
        f"convention for runtime {go_quote(name)} ({kind}); expected the form "
        f"{prefix}<8 lowercase hex chars>",
    )


def pvc_namespace_refusal(model: Model, isvc: InferenceService) -> Refusal | None:
    """A ClusterBaseModel on a PVC of another namespace: pods cannot mount it. OME names the
    InferenceService's ``spec.model.name`` in the text, for an overlay too."""
    if not model.is_cluster or model.storage_uri is None:
        return None
    if not model.storage_uri.startswith(PVC):
        return None
    parsed = parse_pvc(model.storage_uri)
    if isinstance(parsed, str) or not parsed[0] or parsed[0] == isvc.namespace:
        return None
    where = parsed[0]
    return (
        "CrossNamespacePVC",
        "spec.model.name",
        f"ClusterBaseModel {go_quote(str(isvc.model_name))} references PVC in namespace "
        f"{go_quote(where)}, but InferenceService is in namespace "
        f"{go_quote(str(isvc.namespace))}; Kubernetes does not allow pods to mount PVCs from "
        "another namespace. Either move the InferenceService "
        f"to namespace {go_quote(where)} or replicate the PVC into namespace "
        f"{go_quote(str(isvc.namespace))}.",
    )
