"""What the InferenceService asks of the accelerator classes (rules §20.1, §20.3), and what a
runtime document holds beside the fields of ``documents.Runtime`` (its entries' names as
written and their ``acceleratorConfig``): the extra inputs of the placement, each built from a
plain dict of the document."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .accelerator_classes import PlacementDocumentError
from .bounds import length_problem

BEST_FIT = "BestFit"
CHEAPEST = "Cheapest"
MOST_CAPABLE = "MostCapable"
FIRST_AVAILABLE = "FirstAvailable"
POLICIES = (BEST_FIT, CHEAPEST, MOST_CAPABLE, FIRST_AVAILABLE)  # the CRD's enum

ENGINE = "engine"
DECODER = "decoder"


@dataclass(frozen=True, slots=True)
class Constraints:
    """``spec.acceleratorSelector.constraints``; each None when absent. A list absent or null
    and an empty list behave alike everywhere OME reads them (it tests their length)."""

    min_memory: int | None = None
    max_memory: int | None = None
    min_compute_tflops: int | None = None
    min_architecture_version: str | None = None
    required_features: tuple[str, ...] = ()
    excluded_classes: tuple[str, ...] = ()
    architecture_families: tuple[str, ...] = ()
    preferred_precisions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Selector:
    """``spec.acceleratorSelector`` or a component's ``acceleratorOverride``. ``policy`` is None
    when absent; ``accelerator_class`` keeps a set ``""`` (it hides the selector's name)."""

    accelerator_class: str | None = None
    policy: str | None = None
    constraints: Constraints | None = None


@dataclass(frozen=True, slots=True)
class ComponentRequest:
    """``spec.engine`` or ``spec.decoder`` of an InferenceService that sets it."""

    override: Selector | None = None
    # rules §20.4: the runner sets resources (limits or requests set, or claims non-empty), so
    # the class's resources do not reach it.
    runner_sets_resources: bool = False


@dataclass(frozen=True, slots=True)
class AcceleratorRequest:
    """The accelerator fields of one InferenceService; a component is None when it is not set
    (then it does not exist, whatever the runtime's engineConfig or decoderConfig)."""

    selector: Selector | None = None
    engine: ComponentRequest | None = None
    decoder: ComponentRequest | None = None

    @classmethod
    def from_mapping(cls, document: Mapping[str, Any]) -> AcceleratorRequest:
        spec = _mapping(document.get("spec"))
        return cls(
            selector=_selector(spec.get("acceleratorSelector"), "spec.acceleratorSelector"),
            engine=_component(spec.get(ENGINE), ENGINE),
            decoder=_component(spec.get(DECODER), DECODER),
        )

    def component(self, name: str) -> ComponentRequest | None:
        return self.engine if name == ENGINE else self.decoder


@dataclass(frozen=True, slots=True)
class RuntimeExtras:
    """Per entry of a runtime's own ``spec.supportedModelFormats``: its ``name`` as written (None
    when absent) and its ``acceleratorConfig`` map (None when absent)."""

    entry_names: tuple[str | None, ...] = ()
    accelerator_configs: tuple[Mapping[str, Any] | None, ...] = ()

    @classmethod
    def from_mapping(cls, document: Mapping[str, Any]) -> RuntimeExtras:
        entries = _mapping(document.get("spec")).get("supportedModelFormats")
        items = [_mapping(item) for item in entries] if isinstance(entries, list) else []
        return cls(
            entry_names=tuple(_optional_string(item.get("name")) for item in items),
            accelerator_configs=tuple(
                _optional_mapping(item.get("acceleratorConfig")) for item in items
            ),
        )

    def name(self, index: int) -> str | None:
        return self.entry_names[index] if index < len(self.entry_names) else None

    def accelerator_config(self, index: int) -> Mapping[str, Any] | None:
        configs = self.accelerator_configs
        return configs[index] if index < len(configs) else None


NO_EXTRAS = RuntimeExtras()


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _optional_mapping(value: object) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def _optional_string(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _bounded(value: str, where: str) -> str:
    """rules §17 "Safe to share": a string the placement compares is bounded like every string
    the rules read, refused at its field (the schemas call ``from_mapping`` as they load)."""
    problem = length_problem(value)
    if problem is not None:
        raise PlacementDocumentError(where, problem)
    return value


def _bounded_string(mapping: Mapping[str, Any], key: str, where: str) -> str | None:
    value = _optional_string(mapping.get(key))
    return None if value is None else _bounded(value, f"{where}.{key}")


def _bounded_strings(mapping: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = mapping.get(key)
    if not isinstance(value, list):
        return ()
    return tuple(
        _bounded(item, f"{where}.{key}[{index}]")
        for index, item in enumerate(value)
        if isinstance(item, str)
    )


def _selector(value: object, where: str) -> Selector | None:
    if not isinstance(value, Mapping):
        return None
    policy = value.get("policy")
    if policy is not None and policy not in POLICIES:
        raise PlacementDocumentError(f"{where}.policy", f"must be one of {', '.join(POLICIES)}")
    return Selector(
        accelerator_class=_bounded_string(value, "acceleratorClass", where),
        policy=policy,
        constraints=_constraints(value.get("constraints"), f"{where}.constraints"),
    )


def _count(value: Mapping[str, Any], key: str, where: str) -> int | None:
    """rules §20.10 item 19: ``minMemory``, ``maxMemory``, ``minComputePerformanceTFLOPS``
    are int64 ≥ 0."""
    number = value.get(key)
    if number is None:
        return None
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < 2**63:
        raise PlacementDocumentError(f"{where}.{key}", "must be an integer from 0 to 2^63-1")
    return number


def _constraints(value: object, where: str) -> Constraints | None:
    if not isinstance(value, Mapping):
        return None
    return Constraints(
        min_memory=_count(value, "minMemory", where),
        max_memory=_count(value, "maxMemory", where),
        min_compute_tflops=_count(value, "minComputePerformanceTFLOPS", where),
        min_architecture_version=_bounded_string(value, "minArchitectureVersion", where),
        required_features=_bounded_strings(value, "requiredFeatures", where),
        excluded_classes=_bounded_strings(value, "excludedClasses", where),
        architecture_families=_bounded_strings(value, "architectureFamilies", where),
        preferred_precisions=_bounded_strings(value, "preferredPrecisions", where),
    )


def _runner_sets_resources(runner: object) -> bool:
    """OME's ``isResourcesUnspecified`` negated: ``limits`` or ``requests`` set (even ``{}``),
    or ``claims`` non-empty."""
    resources = _mapping(_mapping(runner).get("resources"))
    return (
        resources.get("limits") is not None
        or resources.get("requests") is not None
        or bool(resources.get("claims"))
    )


def _component(value: object, name: str) -> ComponentRequest | None:
    if not isinstance(value, Mapping):
        return None
    return ComponentRequest(
        override=_selector(value.get("acceleratorOverride"), f"spec.{name}.acceleratorOverride"),
        runner_sets_resources=_runner_sets_resources(value.get("runner")),
    )
