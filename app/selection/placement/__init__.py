"""After the runtime (rules §20; OME's ``pkg/acceleratorclassselector`` and the controller that
applies the entry): the entry, the accelerator class per component and what the pods get, on
the runtime a ranking selects."""

from .components import ClassView, requested_class, requested_policy
from .inputs import accelerator_request, placement_of, runtime_extras
from .placed import (
    ACCELERATOR_CLASS_NOT_FOUND,
    BEST_FIT_WITHOUT_CONSTRAINTS,
    ClassResources,
    ComponentPlacement,
    Placement,
    PlacementEntry,
    PlacementError,
)
from .selected import RuntimeRead, place, read_selected_runtime

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
