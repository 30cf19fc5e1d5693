"""After the runtime (rules §20): the entry, the accelerator class per component and what the
pods get, as pure functions over plain values, beside the selection rules."""

from .components import ClassView, requested_class, requested_policy
from .placement import RuntimeRead, place, read_selected_runtime
from .results import (
    ACCELERATOR_CLASS_NOT_FOUND,
    BEST_FIT_WITHOUT_CONSTRAINTS,
    ClassResources,
    ComponentPlacement,
    Placement,
    PlacementEntry,
    PlacementError,
)
from .wiring import accelerator_request, placement_of, runtime_extras

__all__ = [
    "ACCELERATOR_CLASS_NOT_FOUND",
    "BEST_FIT_WITHOUT_CONSTRAINTS",
    "ClassResources",
    "ClassView",
    "ComponentPlacement",
    "Placement",
    "PlacementEntry",
    "PlacementError",
    "RuntimeRead",
    "accelerator_request",
    "place",
    "placement_of",
    "read_selected_runtime",
    "requested_class",
    "requested_policy",
    "runtime_extras",
]
