"""OME's InferenceService webhook (rules §18, §20.7), in the order its code checks: the
object's own shape (``service_rules``), a model or a runtime, the revision pin, the model's
existence, then, for an InferenceService with an ``engine``, the resolution of its runtime.

The webhook stops at its first refusal; the refusals after it are what the next apply would
meet once the first is fixed, as far as they do not depend on it (the runtime is resolved only
for a model that exists).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from packaging.version import Version

from ..ranking import (
    CLUSTER_SERVING_RUNTIME,
    KIND_AND_INHERITANCE_SINCE,
    Question,
    Ranking,
    RuntimeSet,
    SelectionErrorCode,
    lookup_order,
    question_of,
    rank_runtimes,
)
from ..values import (
    InferenceService,
    Model,
    ModelLookup,
    RankRequest,
    Runtime,
    get,
    go_quote,
    model_not_found,
)
from .findings import Refusal
from .service_rules import (
    deployment_strategy_warnings,
    overlay_names,
    overlay_refusals,
    pvc_namespace_refusal,
    runtime_pin_refusal,
    shape_refusals,
)

MODEL_OR_RUNTIME = "at least one of spec.model or spec.runtime must be set"
Warning_ = tuple[str, "str | None", str]  # (code, field, text) of an admission warning


@dataclass(frozen=True, slots=True)
class SharedAnswers:
    """What InferenceServices that ask the same question share: the ranking, and the text of
    the refusal when selection finds no runtime (it can hold every runtime's reason: one copy
    per question, not one per InferenceService)."""

    rankings: dict[Question, Ranking] = field(default_factory=dict)
    refusals: dict[Question, str] = field(default_factory=dict)
    # The runtimes' facts every question shares, made on the first ranking.
    shared_runtimes: list[RuntimeSet] = field(default_factory=list)

    def runtime_set(self, runtimes: tuple[Runtime, ...]) -> RuntimeSet:
        if not self.shared_runtimes or self.shared_runtimes[0].runtimes is not runtimes:
            self.shared_runtimes[:] = [RuntimeSet(runtimes)]
        return self.shared_runtimes[0]


@dataclass(frozen=True, slots=True)
class ServiceContext:
    """The cluster an InferenceService is judged against."""

    models: ModelLookup
    runtimes: tuple[Runtime, ...]
    ome_version: str
    model_cache_provider: str | None
    answers: SharedAnswers = field(default_factory=SharedAnswers)
    # (kind, namespace or None, name) -> runtime: built once, for the runtimes named by
    # InferenceServices without a model
    by_key: dict[tuple[str, str | None, str], Runtime] = field(default_factory=dict)

    def runtime(self, kind: str, namespace: str | None, name: str) -> Runtime | None:
        if not self.by_key and self.runtimes:
            self.by_key.update(((r.kind, r.namespace, r.name), r) for r in self.runtimes)
        return self.by_key.get((kind, namespace, name))


@dataclass(slots=True)
class Verdict:
    refusals: list[Refusal] = field(default_factory=list)
    warnings: list[Warning_] = field(default_factory=list)


def service_verdict(
    isvc: InferenceService,
    manifest: Mapping[str, Any] | None,
    full_runner: bool,
    context: ServiceContext,
) -> Verdict:
    """What the webhook answers to a create of ``isvc`` (``manifest``: as applied, for the
    fields its document does not keep; None for a stored object, judged on its document)."""
    verdict = Verdict(shape_refusals(manifest) if manifest is not None else [])
    if manifest is not None and not verdict.refusals:
        # warnings met before the first refusal are printed with it
        for text in deployment_strategy_warnings(manifest):
            verdict.warnings.append(("DeploymentStrategyIgnored", None, text))
    if not isvc.model_name and not isvc.runtime_name:
        verdict.refusals.append(("ModelOrRuntimeRequired", "spec", MODEL_OR_RUNTIME))
        return verdict
    if manifest is not None:
        pin = runtime_pin_refusal(manifest, isvc)
        if pin is not None:
            verdict.refusals.append(pin)
    model = None
    if isvc.model_name:
        model = context.models.find(isvc.model_name, isvc.namespace)
        if model is None:
            verdict.refusals.append(_model_not_found(isvc))
            return verdict
        pvc = pvc_namespace_refusal(model, isvc)
        if pvc is not None:
            verdict.refusals.append(pvc)
        if manifest is not None:
            if not _overlays_found(isvc, manifest, context, verdict):
                return verdict
            verdict.refusals.extend(overlay_refusals(manifest))
    if isvc.has_engine:
        _resolve(isvc, manifest, full_runner, model, context, verdict)
    return verdict


def _overlays_found(
    isvc: InferenceService,
    manifest: Mapping[str, Any],
    context: ServiceContext,
    verdict: Verdict,
) -> bool:
    """Each overlay is a model found as the primary one is; False after the first that is not."""
    for name in overlay_names(manifest):
        overlay = context.models.find(name, isvc.namespace)
        if overlay is None:
            verdict.refusals.append(
                (
                    "OverlayNotFound",
                    "spec.model.overlays",
                    f"overlay {go_quote(name)} not found in namespace "
                    f"{go_quote(str(isvc.namespace))}: {model_not_found(name)}",
                )
            )
            return False
        pvc = pvc_namespace_refusal(overlay, isvc)
        if pvc is not None:
            code, _, text = pvc
            verdict.refusals.append(
                (code, "spec.model.overlays", f"overlay {go_quote(name)}: {text}")
            )
    return True


def _model_not_found(isvc: InferenceService) -> Refusal:
    return (
        SelectionErrorCode.MODEL_NOT_FOUND.value,
        "spec.model.name",
        f"referenced model {go_quote(str(isvc.model_name))} not found in namespace "
        f"{go_quote(str(isvc.namespace))}: ensure a BaseModel exists in this namespace or a "
        "ClusterBaseModel exists cluster-wide with this name",
    )


def asked_question(
    isvc: InferenceService, full_runner: bool, models: ModelLookup
) -> Question | None:
    """The question the webhook asks selection for this InferenceService, if any (to count
    the rankings a lint will compute before it starts)."""
    if not isvc.has_engine or not isvc.model_name:
        return None
    if not isvc.runtime_name and full_runner:
        return None
    model = models.find(isvc.model_name, isvc.namespace)
    if model is None or model.disabled:
        return None
    return question_of(model, isvc)


def _resolve(
    isvc: InferenceService,
    manifest: Mapping[str, Any] | None,
    full_runner: bool,
    model: Model | None,
    context: ServiceContext,
    verdict: Verdict,
) -> None:
    """The webhook's resolution of an InferenceService with an ``engine``."""
    if model is None and isinstance(get(manifest, "spec", "model"), Mapping):
        # spec.model is set, with an empty name: OME looks that name up, and fails
        if isvc.runtime_name or not full_runner:
            text = f"failed to resolve model {isvc.model_name or ''}: {model_not_found('')}"
            verdict.refusals.append(
                (SelectionErrorCode.MODEL_NOT_FOUND.value, "spec.model.name", text)
            )
        return
    if model is None:  # no model: a named runtime, which has to be available
        refusal = _runtime_only(isvc, manifest, context)
        if refusal is not None:
            verdict.refusals.append(refusal)
        return
    if not isvc.runtime_name and full_runner:
        return
    name = isvc.model_name
    if model.disabled:
        verdict.refusals.append(("ModelDisabled", "spec.model.name", f"model {name} is disabled"))
        return
    question = question_of(model, isvc)
    answers = context.answers
    ranking = answers.rankings.get(question)
    if ranking is None:
        ranking = answers.rankings[question] = rank_runtimes(
            RankRequest(
                model,
                context.runtimes,
                isvc,
                ome_version=context.ome_version,
                model_cache_provider=context.model_cache_provider,
            ),
            outcome_only=True,  # the webhook's answer, never the table
            shared=answers.runtime_set(context.runtimes),
        )
    error = ranking.error
    if isvc.runtime_name:
        if error is not None:
            message = error.message
            if error.code is not SelectionErrorCode.RUNTIME_INCOMPATIBLE:
                message = f"runtime {isvc.runtime_name} does not support model {name}: {message}"
            verdict.refusals.append((error.code.value, "spec.runtime.name", message))
            return
        advisory = [text for text in ranking.warnings if text.startswith("runtime ")]
        for text in advisory[: 0 if verdict.refusals else 1]:
            verdict.warnings.append(("ExplicitRuntimeAdvisory", "spec.runtime.name", text))
        return
    if error is not None or ranking.selected is None:
        code = (error.code if error is not None else SelectionErrorCode.NO_RUNTIME_FOUND).value
        shared = answers.refusals.get(question)
        if shared is None:
            reason = error.message if error is not None else ranking.message
            shared = answers.refusals[question] = (
                f"no supporting runtime found for model {name} and engine does not have "
                f"complete runner configuration: {reason}"
            )
        verdict.refusals.append((code, "spec.model.name", shared))
        return
    if not verdict.refusals:  # the webhook stops at its first refusal
        message = f"Runtime {ranking.selected.name} will be auto-selected for model {name}"
        verdict.warnings.append(("AutoSelected", None, message))


def _runtime_only(
    isvc: InferenceService, manifest: Mapping[str, Any] | None, context: ServiceContext
) -> Refusal | None:
    """An InferenceService without a model that names a runtime: refused when the runtime
    exists and is disabled (one that is not found, or with ``autoSync: false``, is admitted)."""
    runtime_ref = get(manifest, "spec", "runtime")
    if isinstance(runtime_ref, Mapping) and runtime_ref.get("autoSync") is False:
        return None
    name = isvc.runtime_name or ""
    modern = Version(context.ome_version) >= KIND_AND_INHERITANCE_SINCE
    for kind in lookup_order(isvc.runtime_kind, modern):
        where = None if kind == CLUSTER_SERVING_RUNTIME else isvc.namespace
        runtime = context.runtime(kind, where, name)
        if runtime is None:
            continue
        if not runtime.is_disabled:
            return None
        scope = "cluster-scoped" if runtime.is_cluster else "namespace-scoped"
        refusal = SelectionErrorCode.RUNTIME_DISABLED.value
        return (refusal, "spec.runtime.name", f"{scope} runtime {name} is disabled")
    return None
