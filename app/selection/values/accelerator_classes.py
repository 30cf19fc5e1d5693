"""AcceleratorClass objects (rules §20.1): the fields the placement reads, from a plain dict of
the document, with every quantity parsed exactly.

The schemas check the document's shape first; ``AcceleratorClass.from_mapping`` still refuses,
with ``PlacementDocumentError`` naming the field, what OME cannot read (a quantity outside the
CRD's pattern or beyond int64, rules §20.10 item 19), so the schemas can answer
``InvalidDocument`` with the field's path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .bounds import length_problem
from .json_values import NOT_JSON, is_json_value
from .quantities import Quantity, QuantityError, parse_quantity
from .request_objects import RepeatedObject

ACCELERATOR_CLASS = "AcceleratorClass"


class PlacementDocumentError(ValueError):
    """A document field OME (or its CRD) would refuse; ``field`` is its path in the document."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Performance:
    """``spec.capabilities.performance``: each None when absent."""

    fp32_tflops: int | None = None
    fp16_tflops: int | None = None
    int8_tops: int | None = None
    int4_tops: int | None = None


@dataclass(frozen=True, slots=True)
class Cost:
    """``spec.cost``; ``tier`` is "" when absent, as Go reads it."""

    spot_per_hour: Quantity | None = None
    per_hour: Quantity | None = None
    per_million_tokens: Quantity | None = None
    tier: str = ""


@dataclass(frozen=True, slots=True)
class ClassResource:
    """One item of ``spec.resources``: ``quantity`` as written (the CRD's default ``"1"``)."""

    name: str
    quantity: str


@dataclass(frozen=True, slots=True)
class AcceleratorClass:
    """The fields of rules §20.1. Strings OME reads as Go strings are "" when absent.
    ``kind`` and ``namespace`` (always None: a cluster-scoped kind) let a catalog key a class as
    it keys every other object."""

    kind: ClassVar[str] = ACCELERATOR_CLASS
    namespace: ClassVar[None] = None

    name: str
    vendor: str = ""
    family: str = ""
    memory_gb: Quantity | None = None
    compute_capability: str = ""
    memory_bandwidth_gbps: Quantity | None = None
    features: tuple[str, ...] = ()
    performance: Performance | None = None
    cost: Cost | None = None
    node_selector: Mapping[str, str] | None = None
    affinity: Mapping[str, Any] | None = None
    resources: tuple[ClassResource, ...] = ()

    @classmethod
    def from_mapping(cls, document: Mapping[str, Any]) -> AcceleratorClass:
        """The class of an ``AcceleratorClass`` document (``metadata.namespace`` is ignored:
        classes are cluster-scoped)."""
        metadata = _mapping(document.get("metadata"))
        name = metadata.get("name")
        if not isinstance(name, str) or not name:
            raise PlacementDocumentError("metadata.name", "must be a non-empty string")
        spec = _mapping(document.get("spec"))
        capabilities = _mapping(spec.get("capabilities"))
        discovery = _mapping(spec.get("discovery"))
        return cls(
            name=name,
            vendor=_string(spec, "vendor"),
            family=_string(spec, "family"),
            memory_gb=_quantity(capabilities, "memoryGB", "spec.capabilities"),
            compute_capability=_string(capabilities, "computeCapability"),
            memory_bandwidth_gbps=_quantity(
                capabilities, "memoryBandwidthGBps", "spec.capabilities"
            ),
            features=tuple(_strings(capabilities.get("features"))),
            performance=_performance(capabilities.get("performance")),
            cost=_cost(spec.get("cost")),
            node_selector=_optional_mapping(discovery.get("nodeSelector")),
            affinity=_affinity(discovery.get("affinity")),
            resources=_resources(spec.get("resources")),
        )


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _affinity(value: object) -> Mapping[str, Any] | None:
    """Kept whole for the pods (rules §20.4): JSON, as the API server holds it."""
    if isinstance(value, Mapping) and not is_json_value(value):
        raise PlacementDocumentError("spec.discovery.affinity", NOT_JSON)
    return _optional_mapping(value)


def _optional_mapping(value: object) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def _string(mapping: Mapping[str, Any], key: str) -> str:
    value = mapping.get(key)
    return value if isinstance(value, str) else ""


def _strings(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str)]


def _quantity(mapping: Mapping[str, Any], key: str, where: str) -> Quantity | None:
    value = mapping.get(key)
    if value is None:
        return None
    # rules §17: a quantity is kept as written and echoed to the pods: bounded like every
    # string the rules read (the schemas call ``from_mapping`` as they load).
    problem = length_problem(value) if isinstance(value, str) else None
    if problem is not None:
        raise PlacementDocumentError(f"{where}.{key}", problem)
    try:
        return parse_quantity(value)
    except QuantityError as error:
        raise PlacementDocumentError(f"{where}.{key}", str(error)) from None


def _int64(mapping: Mapping[str, Any], key: str, where: str) -> int | None:
    value = mapping.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not -(2**63) <= value < 2**63:
        raise PlacementDocumentError(f"{where}.{key}", "must be a 64-bit integer")
    return value


def _performance(value: object) -> Performance | None:
    if not isinstance(value, Mapping):
        return None
    where = "spec.capabilities.performance"
    return Performance(
        fp32_tflops=_int64(value, "fp32Tflops", where),
        fp16_tflops=_int64(value, "fp16Tflops", where),
        int8_tops=_int64(value, "int8Tops", where),
        int4_tops=_int64(value, "int4Tops", where),
    )


def _cost(value: object) -> Cost | None:
    if not isinstance(value, Mapping):
        return None
    return Cost(
        spot_per_hour=_quantity(value, "spotPerHour", "spec.cost"),
        per_hour=_quantity(value, "perHour", "spec.cost"),
        per_million_tokens=_quantity(value, "perMillionTokens", "spec.cost"),
        tier=_string(value, "tier"),
    )


def _resources(value: object) -> tuple[ClassResource, ...]:
    if not isinstance(value, list):
        return ()
    resources = []
    for index, item in enumerate(value):
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise PlacementDocumentError(f"spec.resources[{index}].name", "is required")
        quantity = _quantity(item, "quantity", f"spec.resources[{index}]")
        # The CRD's default: a resource without a quantity asks for one.
        resources.append(ClassResource(item["name"], "1" if quantity is None else quantity.raw))
    return tuple(resources)


def latest_classes(
    classes: Iterable[AcceleratorClass],
) -> tuple[dict[str, AcceleratorClass], tuple[RepeatedObject, ...]]:
    """rules §20.8: one class per name, the last one in the request (as ``kubectl apply -f``
    leaves the cluster), and the names given more than once, for the §2-style warning."""
    latest: dict[str, AcceleratorClass] = {}
    counts: dict[str, int] = {}
    for accelerator in classes:
        latest[accelerator.name] = accelerator
        counts[accelerator.name] = counts.get(accelerator.name, 0) + 1
    repeated = tuple(
        RepeatedObject(ACCELERATOR_CLASS, name, count)
        for name, count in counts.items()
        if count > 1
    )
    return latest, repeated


def classes_known(setting: bool | None, held: int) -> bool:
    """rules §20.8, §20.10 items 4 and 20: the request's (or cluster's) ``acceleratorClassesKnown``
    when given, else whether it holds at least one AcceleratorClass."""
    return held > 0 if setting is None else setting
