"""The placement of a validated request (rules §20.8): its inputs read from the ``RankRequest``
(classes, the known flag, the InferenceService's accelerator fields, each runtime's entries)."""

from __future__ import annotations

from ..ranking import Ranking
from ..values import (
    AcceleratorRequest,
    ComponentRequest,
    InferenceService,
    RankRequest,
    Runtime,
    RuntimeExtras,
    classes_known,
)
from .placed import Placement
from .selected import predict_placement


def runtime_extras(runtime: Runtime) -> RuntimeExtras:
    """Each entry's ``name`` (an empty name reads as absent) and ``acceleratorConfig``."""
    return RuntimeExtras(
        entry_names=tuple(entry.name or None for entry in runtime.entries),
        accelerator_configs=tuple(entry.accelerator_config for entry in runtime.entries),
    )


def accelerator_request(isvc: InferenceService) -> AcceleratorRequest:
    """The InferenceService's accelerator fields; a document stored before they were read has
    its components only (no selector, no override)."""
    if isvc.accelerators is not None:
        return isvc.accelerators
    return AcceleratorRequest(
        engine=ComponentRequest() if isvc.has_engine else None,
        decoder=ComponentRequest() if isvc.has_decoder else None,
    )


def request_classes_known(request: RankRequest) -> bool:
    """rules §20.8, §20.10 items 4 and 20."""
    return classes_known(request.accelerator_classes_known, len(request.accelerator_classes))


def placement_of(request: RankRequest, ranking: Ranking) -> Placement | None:
    """The placement OME makes on the selection of ``ranking``, a ranking of ``request``."""
    isvc = request.inference_service
    return predict_placement(
        request,
        ranking,
        None if isvc is None else accelerator_request(isvc),
        {accelerator.name: accelerator for accelerator in request.accelerator_classes},
        request_classes_known(request),
        runtime_extras,
    )
