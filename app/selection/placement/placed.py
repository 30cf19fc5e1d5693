"""What the placement answers (rules §20.8), as ranking/ranked.py is what a ranking answers: the
entry, each component's class and where it came from, why every other class lost, what the pods
get, errors and OME's event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# rules §20.8 codes, and the Warning event OME records for the first that stops it.
ACCELERATOR_CLASS_NOT_FOUND = "AcceleratorClassNotFound"
BEST_FIT_WITHOUT_CONSTRAINTS = "BestFitWithoutConstraints"
EVENT_REASON = "AcceleratorClassError"


@dataclass(frozen=True, slots=True)
class PlacementEntry:
    """rules §20.2: ``index`` in the list OME reads, the entry's ``name`` as written (None when
    absent), its score with p = 1, and ``defined_in``: the runtime of a §7 chain whose own spec
    holds that list, None when it is the selected runtime's own."""

    index: int
    name: str | None
    score: int
    defined_in: str | None = None


@dataclass(frozen=True, slots=True)
class ClassLoss:
    """Another listed class and why it lost (None: it lost to nothing)."""

    name: str
    reason: str | None


@dataclass(frozen=True, slots=True)
class PlacementError:
    """``if_fixed``: with ``BestFitWithoutConstraints`` only, the class OME code fixing that bug
    picks (None if that code would meet a > 12 tie)."""

    code: str
    message: str
    if_fixed: str | None = None


@dataclass(frozen=True, slots=True)
class ClassResources:
    """What the class's ``resources[]`` make the runner's requests and limits, by name."""

    limits: Mapping[str, str]
    requests: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ComponentPlacement:
    """One component (``engine`` or ``decoder``), rules §20.8 and §20.10 items 7-16."""

    component: str
    accelerator_class: str | None
    source: str | None  # the field that decided (§20.8 ``from``)
    policy: str | None = None
    score: float | None = None
    known: bool = True
    reason: str | None = None
    others: tuple[ClassLoss, ...] = ()
    accelerator_config: Mapping[str, Any] | None = None
    error: PlacementError | None = None
    node_selector: Mapping[str, str] | None = None
    resources: ClassResources | None = None


@dataclass(frozen=True, slots=True)
class PlacementEvent:
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Placement:
    entry: PlacementEntry | None
    engine: ComponentPlacement | None
    decoder: ComponentPlacement | None
    event: PlacementEvent | None = None
