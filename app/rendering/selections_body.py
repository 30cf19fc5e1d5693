"""Every InferenceService's outcome (rules §17 ``selections``, §19 many at once) as rows, and the
objects of a stream that no rule reads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.selection.placement import ComponentPlacement
from app.selection.questions import SelectionRow

from .encode import text_table

SELECTION_COLUMNS = ("NAMESPACE", "INFERENCESERVICE", "MODEL", "RUNTIME", "SCOPE", "MESSAGE")


def _class_of(component: ComponentPlacement | None) -> str | None:
    """rules §20.10 item 8: the class the component's pods get; None when none or unknown."""
    if component is None or not component.known:
        return None
    return component.accelerator_class


def selection_body(row: SelectionRow) -> dict[str, Any]:
    selected = row.selected
    placement = row.placement
    return {
        "namespace": row.namespace,
        "name": row.name or None,  # none: a model that no InferenceService names
        "model": row.model,
        "runtime": None
        if selected is None
        else {"name": selected.name, "scope": selected.scope, "explicit": selected.explicit},
        "message": row.message,
        "error": None if row.error is None else row.error.value,
        "engineAcceleratorClass": None if placement is None else _class_of(placement.engine),
        "decoderAcceleratorClass": None if placement is None else _class_of(placement.decoder),
    }


def selections_body(rows: list[SelectionRow], extra: dict[str, Any]) -> dict[str, Any]:
    return {**extra, "count": len(rows), "selections": [selection_body(row) for row in rows]}


def selections_table(rows: list[SelectionRow]) -> str:
    """The explain table's layout, ``-`` for none."""
    return text_table(
        [SELECTION_COLUMNS]
        + [
            (
                row.namespace,
                row.name or "-",
                row.model or "-",
                row.selected.name if row.selected else "-",
                row.selected.scope if row.selected else "-",
                row.message,
            )
            for row in rows
        ]
    )


def message_bytes(rows: Iterable[SelectionRow]) -> int:
    """What the rows' messages weigh: each can list every runtime's reason."""
    return sum(len(row.message) for row in rows)
