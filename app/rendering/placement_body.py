"""A ``Placement`` as the ``placement`` body of rules §20.8 (the fields of §20.10 items 7-16);
the maps it echoes (``acceleratorConfig``, ``nodeSelector``, ``resources``) with their keys
sorted, as OME's Go writes them (rules §16)."""

from __future__ import annotations

from typing import Any

from app.selection.placement import (
    BEST_FIT_WITHOUT_CONSTRAINTS,
    ClassResources,
    ComponentPlacement,
    Placement,
    PlacementEntry,
    PlacementError,
)

from .encode import sorted_keys


def _entry(entry: PlacementEntry | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return {
        "index": entry.index,
        "name": entry.name,
        "score": entry.score,
        "definedIn": entry.defined_in,
    }


def _error(error: PlacementError | None) -> dict[str, Any] | None:
    if error is None:
        return None
    body: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.code == BEST_FIT_WITHOUT_CONSTRAINTS:  # rules §20.10 item 13: only with it
        body["ifFixed"] = error.if_fixed
    return body


def _resources(resources: ClassResources | None) -> dict[str, Any] | None:
    if resources is None:
        return None
    return {"limits": sorted_keys(resources.limits), "requests": sorted_keys(resources.requests)}


def component_body(component: ComponentPlacement | None) -> dict[str, Any] | None:
    if component is None:
        return None
    config = component.accelerator_config
    selector = component.node_selector
    return {
        "acceleratorClass": component.accelerator_class,
        "from": component.source,
        "policy": component.policy,
        "score": component.score,
        "known": component.known,
        "reason": component.reason,
        "others": [{"name": other.name, "reason": other.reason} for other in component.others],
        "acceleratorConfig": None if config is None else sorted_keys(config),
        "error": _error(component.error),
        "nodeSelector": None if selector is None else sorted_keys(selector),
        "resources": _resources(component.resources),
    }


def placement_body(placement: Placement | None) -> dict[str, Any] | None:
    if placement is None:
        return None
    event = placement.event
    return {
        "entry": _entry(placement.entry),
        "engine": component_body(placement.engine),
        "decoder": component_body(placement.decoder),
        "event": None if event is None else {"reason": event.reason, "message": event.message},
    }
