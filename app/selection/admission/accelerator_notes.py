"""What OME accepts of the accelerator fields but reads otherwise (rules §20.7's infos): a class's
memory that is not a whole number of GiB, a runtime's acceleratorRequirements beside its class
list and acceleratorConfig keys no listed class reaches, and an InferenceService's constraints
and policies that never take part in its components' classes (§20.3.1).

Each rule reads one object (and, for a runtime that inherits its list, its chain of at most five
runtimes), so the whole is linear in the input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..placement import BEST_FIT_WITHOUT_CONSTRAINTS, requested_class, requested_policy
from ..ranking import InheritanceError, effective_runtime, resolve_chain
from ..values import (
    ACCELERATOR_CLASS,
    BEST_FIT,
    DECODER,
    ENGINE,
    GIB,
    InferenceService,
    QuantityError,
    Runtime,
    Selector,
    get,
    go_quote,
    parse_quantity,
)
from .findings import INFO, Finding

# rules §20.7: the fields of a runtime's acceleratorRequirements that OME never reads, in the
# CRD's order.
IGNORED_REQUIREMENTS = (
    "minMemory",
    "minComputePerformanceTFLOPS",
    "minArchitectureVersion",
    "requiredFeatures",
    "preferredPrecisions",
)
SELECTOR_CONSTRAINTS = "spec.acceleratorSelector.constraints"


def class_notes(name: str, manifest: Mapping[str, Any]) -> list[Finding]:
    """``MemoryNotWholeGiB``: ``memoryGB`` whose integer value (bytes) is not a multiple of
    2^30, so ``minMemory`` and ``maxMemory`` compare a truncated number of GiB with what the
    author likely meant (rules §20.1: ``80G`` is 74, ``80`` is 0). A value the CRD's pattern
    refuses, or beyond int64, says nothing here: the first is the API server's error."""
    raw = get(manifest, "spec", "capabilities", "memoryGB")
    if raw is None:
        return []
    try:
        memory = parse_quantity(raw)
    except QuantityError:
        return []
    if memory.integer_value % GIB == 0:
        return []
    return [
        Finding(
            INFO,
            ACCELERATOR_CLASS,
            None,
            name,
            "spec.capabilities.memoryGB",
            "MemoryNotWholeGiB",
            f"memoryGB {go_quote(memory.raw)} is read by OME as {memory.whole_gib} GiB by "
            "minMemory and maxMemory",
        )
    ]


def effective_list(
    runtime: Runtime, find_parent: Callable[[str], Runtime | None] | None
) -> tuple[str, ...]:
    """The classes an InferenceService that names ``runtime`` finds listed (rules §20: the
    effective spec, §7): its own list, else, from OME 1.3 (``find_parent`` given), the one
    its chain lays under it; () when there is none or the chain does not resolve."""
    own = runtime.accelerator_classes or ()
    if own or find_parent is None or not runtime.inherit_from:
        return own
    chain = resolve_chain(runtime, find_parent)
    if isinstance(chain, InheritanceError):
        return ()
    return effective_runtime(chain).accelerator_classes or ()


def _runtime_info(runtime: Runtime, field: str, code: str, message: str) -> Finding:
    return Finding(INFO, runtime.kind, runtime.namespace, runtime.name, field, code, message)


def runtime_accelerator_notes(
    runtime: Runtime, manifest: Mapping[str, Any] | None, listed: tuple[str, ...]
) -> list[Finding]:
    """``AcceleratorRequirementsIgnored`` for each of ``IGNORED_REQUIREMENTS`` the manifest
    sets, and ``AcceleratorConfigNotListed`` for each key of an entry's ``acceleratorConfig``
    (with a value) that ``listed`` (``effective_list``) lacks. Only a class reaches an entry's
    ``acceleratorConfig`` (rules §20.2): an auto-selected runtime's components get only classes
    of its own list (§10, §20.3), so another key applies only when an InferenceService names
    both the runtime and the class. Without any list no key ever applies (§20.3 step 1), and a
    disabled runtime's entries apply only through the runtimes that inherit them, with their
    lists: neither says anything here."""
    found = []
    requirements = get(manifest, "spec", "acceleratorRequirements")
    for name in IGNORED_REQUIREMENTS:
        if get(requirements, name) is not None:
            found.append(
                _runtime_info(
                    runtime,
                    f"spec.acceleratorRequirements.{name}",
                    "AcceleratorRequirementsIgnored",
                    f"OME ignores acceleratorRequirements.{name}; set constraints in the "
                    "InferenceService's spec.acceleratorSelector.constraints",
                )
            )
    if runtime.is_disabled or not listed:
        return found
    known = frozenset(listed)
    for index, entry in enumerate(runtime.entries):
        for key, value in (entry.accelerator_config or {}).items():
            if value is None or key in known:
                continue
            found.append(
                _runtime_info(
                    runtime,
                    f"spec.supportedModelFormats[{index}].acceleratorConfig",
                    "AcceleratorConfigNotListed",
                    f"acceleratorConfig key {key} is not a listed accelerator class, so OME "
                    "applies it only to an InferenceService that names this runtime and that "
                    "class",
                )
            )
    return found


def _service_info(isvc: InferenceService, field: str, code: str, message: str) -> Finding:
    return Finding(INFO, "InferenceService", isvc.namespace, isvc.name, field, code, message)


def service_accelerator_notes(isvc: InferenceService) -> list[Finding]:
    """For each component the InferenceService sets, engine first (rules §20.3.1):
    ``OverrideConstraintsIgnored`` when its override sets ``constraints`` (``{}`` included),
    ``PolicyShadowed`` when it names a class (step 2) and a policy is set on it or on the
    InferenceService (the policy step 3 would read: the override's, else the selector's), and
    ``BestFitWithoutConstraints``, once, when a component without a name reads ``BestFit``
    while the selector's ``constraints`` are absent or null (``{}`` is constraints)."""
    request = isvc.accelerators
    if request is None:
        return []
    selector = request.selector
    found = []
    unconstrained = False
    for component in (ENGINE, DECODER):
        asked = request.component(component)
        if asked is None:
            continue  # rules §20: a component the InferenceService does not set does not exist
        override = asked.override
        if override is not None and override.constraints is not None:
            found.append(
                _service_info(
                    isvc,
                    f"spec.{component}.acceleratorOverride.constraints",
                    "OverrideConstraintsIgnored",
                    "constraints in an acceleratorOverride have no effect; OME reads only "
                    f"{SELECTOR_CONSTRAINTS}",
                )
            )
        policy, policy_field = requested_policy(component, override, selector)
        if policy is None or policy_field is None:
            continue
        name, name_field = requested_class(component, override, selector)
        if name:
            found.append(
                _service_info(
                    isvc,
                    policy_field,
                    "PolicyShadowed",
                    f"policy {policy} has no effect on the {component}: it gets the class "
                    f"{name} named in {name_field}",
                )
            )
        elif policy == BEST_FIT and _constraints_absent(selector):
            unconstrained = True
    if unconstrained:
        found.append(
            _service_info(
                isvc,
                SELECTOR_CONSTRAINTS,
                BEST_FIT_WITHOUT_CONSTRAINTS,
                f"BestFit without {SELECTOR_CONSTRAINTS} stops OME's controller when two or more "
                "classes qualify (a known OME bug)",
            )
        )
    return found


def _constraints_absent(selector: Selector | None) -> bool:
    return selector is None or selector.constraints is None
