"""Runtime inheritance (``ome.io/inherit-from``) on the explicit path, OME 1.3 and later
(rules §7 step 2, OME's *Runtime inheritance* page).

A chain is walked child first; each parent is found by name alone, a ServingRuntime's parents
in its namespace first and then at cluster scope, a ClusterServingRuntime's at cluster scope.
The effective spec merges the chain root first, each child over its parent. Only the fields
selection reads are merged, and they are merged as OME merges the whole spec: objects key by
key, anything else replaced where the child sets it, where ``null``, ``[]``, ``{}`` and ``""``
count as not set (a child cannot remove what its parent sets).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from ..values import Runtime, SizeRange, go_list, go_quote

MAX_CHAIN = 5  # runtimes in one chain, the runtime itself included

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class InheritanceError:
    """A chain that does not resolve; ``message`` is OME's text."""

    message: str


def resolve_chain(
    start: Runtime, find_parent: Callable[[str], Runtime | None]
) -> list[Runtime] | InheritanceError:
    """The chain child first, or OME's error. ``find_parent`` looks a parent up by name with
    the start runtime's rule (rules §7: that rule holds for every later parent)."""
    chain = [start]
    seen = {start.name}
    current = start
    while current.inherit_from:
        parent_name = current.inherit_from
        names = [runtime.name for runtime in chain]
        # OME checks the depth before the cycle: a fifth runtime that names a parent is too deep
        # even when that parent is already in the chain.
        if len(chain) >= MAX_CHAIN:
            return InheritanceError(
                f"inheritance chain exceeds max depth {MAX_CHAIN} (chain: {go_list(names)})"
            )
        if parent_name in seen:
            return InheritanceError(f"inheritance cycle detected: {go_list([*names, parent_name])}")
        parent = find_parent(parent_name)
        if parent is None:
            return InheritanceError(
                f"inherit-from parent {go_quote(parent_name)} not found "
                f"(chain so far: {go_list(names)})"
            )
        chain.append(parent)
        seen.add(parent.name)
        current = parent
    return chain


def _is_set(value: object) -> bool:
    return value is not None and value != "" and value != () and value != {}


def _pick(child: T, parent: T) -> T:
    return child if _is_set(child) else parent


def _merged_range(child: SizeRange | None, parent: SizeRange | None) -> SizeRange | None:
    if child is None:
        return parent
    if parent is None:
        return child
    return SizeRange(_pick(child.min, parent.min), _pick(child.max, parent.max))


def merge_spec(child: Runtime, parent: Runtime) -> Runtime:
    """``child``'s spec laid over ``parent``'s: the child keeps its identity and annotation."""
    return replace(
        child,
        disabled=_pick(child.disabled, parent.disabled),
        # Lists are replaced whole: a child's supportedModelFormats replaces its parent's.
        entries=_pick(child.entries, parent.entries),
        size_range=_merged_range(child.size_range, parent.size_range),
        accelerator_classes=_pick(child.accelerator_classes, parent.accelerator_classes),
        engine_mode_annotation=_pick(child.engine_mode_annotation, parent.engine_mode_annotation),
        decoder_mode_annotation=_pick(
            child.decoder_mode_annotation, parent.decoder_mode_annotation
        ),
        protocol_versions=_pick(child.protocol_versions, parent.protocol_versions),
    )


def effective_runtime(chain: list[Runtime]) -> Runtime:
    """The effective spec of a resolved chain (child first), merged root first."""
    effective = chain[-1]
    for child in reversed(chain[:-1]):
        effective = merge_spec(child, effective)
    return effective
