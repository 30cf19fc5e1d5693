"""The class of one component (rules §20.3.1-§20.3.2) and what its pods get from it (§20.4)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..values import (
    BEST_FIT,
    CHEAPEST,
    MOST_CAPABLE,
    AcceleratorClass,
    AcceleratorRequest,
    Constraints,
    Selector,
    checked,
)
from .filters import ConstraintFilter
from .placed import (
    ACCELERATOR_CLASS_NOT_FOUND,
    BEST_FIT_WITHOUT_CONSTRAINTS,
    ClassLoss,
    ClassResources,
    ComponentPlacement,
    PlacementError,
)
from .policies import (
    CLASSES_PER_CHECK,
    PolicyPick,
    best_fit,
    cheapest,
    first_available,
    most_capable,
)

NO_LISTED_CLASSES = "the runtime lists no accelerator classes"
NO_NAME_NO_POLICY = "no class name and no policy"
NO_CLASS_PASSES = "no class passes the constraints"
CLASSES_UNKNOWN = "unknown: the request holds no AcceleratorClass objects"
NOT_FOUND = "not found"
# rules §20.5: what OME's controller logs when BestFit meets no constraints and 2+ classes.
NIL_DEREFERENCE = "invalid memory address or nil pointer dereference"
# rules §20.10 item 16: acceleratorConfig fields that change nothing on the pods.
NO_EFFECT_FIELDS = frozenset({"dataParallelSize", "minMemoryPerBillionParams"})


@dataclass(frozen=True, slots=True)
class ClassView:
    """The cluster's AcceleratorClasses as the request knows them (rules §20.8): ``known``
    False means none can be verified, whatever ``classes`` holds."""

    classes: Mapping[str, AcceleratorClass]
    known: bool


def not_found(name: str) -> str:
    return f"accelerator class {name} not found at cluster scope"


def listed_classes(names: Iterable[str] | None) -> list[str]:
    """The runtime's list, each name at its first place only."""
    return list(dict.fromkeys(names or ()))


def accelerator_config(config: Mapping[str, Any] | None, name: str) -> Mapping[str, Any] | None:
    """rules §20.2, §20.10 item 16: the entry's value under the class's exact name, minus the
    fields with no effect; None when there is no such key or its value is null."""
    if config is None:
        return None
    value = config.get(name)
    if not isinstance(value, Mapping):
        return None
    return {key: item for key, item in value.items() if key not in NO_EFFECT_FIELDS}


def _by_key(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    # Kubernetes prints maps in key order (byte-wise: for UTF-8 the order of the code points, so
    # ``sorted``'s, which a lone surrogate does not break); a later value for a key replaces an
    # earlier one.
    merged = dict(pairs)
    return {key: merged[key] for key in sorted(merged)}


def _pods(
    accelerator: AcceleratorClass, runner_sets_resources: bool
) -> tuple[Mapping[str, str] | None, ClassResources | None]:
    """rules §20.10 item 15: the class's node selector, and its resources unless the runner
    sets its own."""
    selector = None
    if accelerator.node_selector is not None:
        selector = _by_key(
            (str(key), str(value)) for key, value in accelerator.node_selector.items()
        )
    resources = None
    if accelerator.resources and not runner_sets_resources:
        amounts = _by_key((item.name, item.quantity) for item in accelerator.resources)
        resources = ClassResources(limits=amounts, requests=dict(amounts))
    return selector, resources


@dataclass(frozen=True, slots=True)
class ComponentContext:
    """What every component of one placement shares."""

    request: AcceleratorRequest
    listed: Sequence[str]
    view: ClassView
    missing_aborts: bool  # OME 1.2.2: a missing listed class makes a policy pick nothing
    config: Callable[[str], Mapping[str, Any] | None]  # acceleratorConfig for a class name


def place_component(context: ComponentContext, component: str) -> ComponentPlacement:
    """rules §20.3.1 for ``component`` (``engine`` or ``decoder``), which the InferenceService
    sets."""
    if not context.listed:
        return ComponentPlacement(component, None, None, reason=NO_LISTED_CLASSES)
    selector = context.request.selector
    requested = context.request.component(component)
    override = requested.override if requested is not None else None
    name, source = requested_class(component, override, selector)
    if name:
        return _named(context, component, name, source)
    policy, source = requested_policy(component, override, selector)
    if policy is None:
        return ComponentPlacement(component, None, None, reason=NO_NAME_NO_POLICY)
    constraints = selector.constraints if selector is not None else None
    return _by_policy(context, component, policy, source, constraints)


def requested_class(
    component: str, override: Selector | None, selector: Selector | None
) -> tuple[str | None, str | None]:
    """rules §20.3.1 step 2: the class name a component asks for and the field that names it:
    its override's (a set "" hides the InferenceService's), else the InferenceService's."""
    if override is not None and override.accelerator_class is not None:
        return override.accelerator_class, f"spec.{component}.acceleratorOverride.acceleratorClass"
    if selector is not None and selector.accelerator_class is not None:
        return selector.accelerator_class, "spec.acceleratorSelector.acceleratorClass"
    return None, None


def requested_policy(
    component: str, override: Selector | None, selector: Selector | None
) -> tuple[str | None, str | None]:
    """rules §20.3.1 step 3: the policy a component reads and its field: its override's, else
    the InferenceService's."""
    if override is not None and override.policy:
        return override.policy, f"spec.{component}.acceleratorOverride.policy"
    if selector is not None and selector.policy:
        return selector.policy, "spec.acceleratorSelector.policy"
    return None, None


def _runner_sets_resources(context: ComponentContext, component: str) -> bool:
    requested = context.request.component(component)
    return requested is not None and requested.runner_sets_resources


def _with_class(
    context: ComponentContext, component: str, accelerator: AcceleratorClass, **fields: Any
) -> ComponentPlacement:
    selector, resources = _pods(accelerator, _runner_sets_resources(context, component))
    return ComponentPlacement(
        component,
        accelerator.name,
        accelerator_config=context.config(accelerator.name),
        node_selector=selector,
        resources=resources,
        **fields,
    )


def _named(
    context: ComponentContext, component: str, name: str, source: str | None
) -> ComponentPlacement:
    """Step 2: the named class, listed or not, whatever the constraints."""
    if not context.view.known:
        return ComponentPlacement(
            component,
            name,
            source,
            known=False,
            reason=CLASSES_UNKNOWN,
            accelerator_config=context.config(name),
        )
    accelerator = context.view.classes.get(name)
    if accelerator is None:
        message = f"Failed to get accelerator class for {component}: {not_found(name)}"
        error = PlacementError(ACCELERATOR_CLASS_NOT_FOUND, message)
        return ComponentPlacement(component, None, source, error=error)
    return _with_class(context, component, accelerator, source=source)


def _by_policy(
    context: ComponentContext,
    component: str,
    policy: str,
    source: str | None,
    constraints: Constraints | None,
) -> ComponentPlacement:
    """Step 4: the policy's pick from the pool filtered by the InferenceService's constraints."""
    fields: dict[str, Any] = {"source": source, "policy": policy}
    listed = context.listed
    if not context.view.known:
        others = tuple(ClassLoss(name, None) for name in listed)
        return ComponentPlacement(
            component, None, known=False, reason=CLASSES_UNKNOWN, others=others, **fields
        )
    classes = context.view.classes
    reasons: dict[str, str | None] = {}
    pool = []
    for name in checked(listed, every=CLASSES_PER_CHECK):
        accelerator = classes.get(name)
        if accelerator is None:
            reasons[name] = NOT_FOUND
        else:
            pool.append(accelerator)
    missing = [name for name in listed if reasons.get(name) == NOT_FOUND]
    if missing and context.missing_aborts:
        reason = f"failed to fetch AcceleratorClass {missing[0]}: {not_found(missing[0])}"
        return _outcome(context, component, PolicyPick(None, reason=reason), reasons, fields)
    filtered = []
    judge = ConstraintFilter(constraints)
    for accelerator in checked(pool, every=CLASSES_PER_CHECK):
        failure = judge.failure(accelerator)
        if failure is None:
            filtered.append(accelerator)
        else:
            reasons[accelerator.name] = failure
    if not filtered:
        return _outcome(
            context, component, PolicyPick(None, reason=NO_CLASS_PASSES), reasons, fields
        )
    if len(filtered) == 1:  # one class: every policy gives it, unscored
        return _outcome(context, component, PolicyPick(filtered[0].name), reasons, fields)
    if policy == BEST_FIT and constraints is None:
        fixed = best_fit(filtered, Constraints()).pick
        fields["error"] = PlacementError(BEST_FIT_WITHOUT_CONSTRAINTS, NIL_DEREFERENCE, fixed)
        return _outcome(context, component, PolicyPick(None), reasons, fields)
    if policy == BEST_FIT:
        pick = best_fit(filtered, constraints or Constraints())
    elif policy == CHEAPEST:
        pick = cheapest(filtered)
    elif policy == MOST_CAPABLE:
        pick = most_capable(filtered, constraints)
    else:
        pick = first_available(filtered)
    return _outcome(context, component, pick, reasons, fields)


def _outcome(
    context: ComponentContext,
    component: str,
    pick: PolicyPick,
    reasons: dict[str, str | None],
    fields: dict[str, Any],
) -> ComponentPlacement:
    """rules §20.10 item 10: every other listed class in list order, with the first reason it
    met (not found, a constraint, or the policy's)."""
    others = tuple(
        ClassLoss(name, reasons[name] if name in reasons else pick.losses.get(name))
        for name in context.listed
        if name != pick.pick
    )
    if pick.pick is None:
        return ComponentPlacement(
            component, None, known=pick.known, reason=pick.reason, others=others, **fields
        )
    accelerator = context.view.classes[pick.pick]
    return _with_class(context, component, accelerator, score=pick.score, others=others, **fields)
