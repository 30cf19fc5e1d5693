"""After the runtime (rules §20): the entry, the accelerator class per component and what the
pods get, as pure functions over plain values, beside the selection rules."""

from .classes import (
    ACCELERATOR_CLASS,
    AcceleratorClass,
    ClassResource,
    Cost,
    Performance,
    PlacementDocumentError,
    classes_known,
    latest_classes,
)
from .components import ClassView
from .placement import RuntimeRead, choose_entry, place, predict_placement, read_selected_runtime
from .quantities import Quantity, QuantityError, parse_quantity
from .requests import AcceleratorRequest, ComponentRequest, Constraints, RuntimeExtras, Selector
from .results import (
    ClassLoss,
    ClassResources,
    ComponentPlacement,
    Placement,
    PlacementEntry,
    PlacementError,
    PlacementEvent,
)
from .wiring import (
    accelerator_request,
    placement_of,
    request_classes_known,
    runtime_extras,
)

__all__ = [
    "ACCELERATOR_CLASS",
    "AcceleratorClass",
    "AcceleratorRequest",
    "ClassLoss",
    "ClassResource",
    "ClassResources",
    "ClassView",
    "ComponentPlacement",
    "ComponentRequest",
    "Constraints",
    "Cost",
    "Performance",
    "Placement",
    "PlacementDocumentError",
    "PlacementEntry",
    "PlacementError",
    "PlacementEvent",
    "Quantity",
    "QuantityError",
    "RuntimeExtras",
    "RuntimeRead",
    "Selector",
    "accelerator_request",
    "choose_entry",
    "classes_known",
    "latest_classes",
    "parse_quantity",
    "place",
    "placement_of",
    "predict_placement",
    "read_selected_runtime",
    "request_classes_known",
    "runtime_extras",
]
