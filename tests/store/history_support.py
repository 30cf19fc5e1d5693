"""Catalogs whose InferenceServices move between runtimes from one push to the next, and what the
impact (rules §19) says of each step: what the selection history of the pushes must equal."""

from __future__ import annotations

from functools import partial
from typing import Any

from app.rendering.impact_body import changes
from app.rendering.selection_history import selection_history
from app.selection.questions import selections
from app.selection.values import CatalogView
from app.store import StoredObject
from tests.store.objects import isvc, model, runtime

# A history worked out as the service works it out, with its default bounds.
HISTORY = partial(selection_history, max_runtime_checks=200_000, max_runtimes=10_000)


def fleet_step(step: int, services: int = 4) -> list[StoredObject]:
    """Step ``step`` of a sequence: runtime ``a`` always, ``b`` (weightier) on odd steps, so
    that every InferenceService moves at every step; one InferenceService more per step."""
    objects = [model("llama"), runtime("a", weight=1)]
    if step % 2:
        objects.append(runtime("b", weight=5))
    objects += [isvc(f"svc-{n}") for n in range(services + step)]
    return objects


def view_of(objects: list[StoredObject]) -> CatalogView:
    return CatalogView.of(item.document for item in objects)


def impact_between(before: list[StoredObject], after: list[StoredObject]) -> dict[tuple, Any]:
    """What the impact answers for each InferenceService both sides hold and that changes, and
    None for one that only one side holds, by (namespace, name): as runtime names."""
    rows_before, rows_after = selections(view_of(before)), selections(view_of(after))
    _compared, found = changes(rows_before, rows_after)

    def name(outcome: dict) -> str | None:
        return outcome["runtime"]["name"] if outcome["runtime"] else None

    moved: dict[tuple, Any] = {
        (change["namespace"], change["name"]): (name(change["before"]), name(change["after"]))
        for change in found
    }
    held_before = {(row.namespace, row.name): row for row in rows_before}
    held_after = {(row.namespace, row.name): row for row in rows_after}
    for key in held_before.keys() - held_after.keys():
        moved[key] = (held_before[key].selected.name if held_before[key].selected else None, "-")
    for key in held_after.keys() - held_before.keys():
        moved[key] = ("-", held_after[key].selected.name if held_after[key].selected else None)
    return moved


def history_as_moves(entries) -> dict[tuple, Any]:
    """Entries as ``impact_between`` gives them ("-" for a side that does not hold it)."""

    def name(outcome: dict | None) -> str | None:
        return "-" if outcome is None else outcome["runtime"]

    return {(e.namespace, e.name): (name(e.before), name(e.after)) for e in entries}
