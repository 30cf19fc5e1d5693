"""A ``Prediction`` as the bodies of rules §15: the JSON (and YAML) body, the explain table. The
rules worked out the advice (§19) the JSON body shows; this module only formats it."""

from __future__ import annotations

import math
from typing import Any

from app.selection.prediction import Prediction
from app.selection.ranking import IgnoredObject, Ranking

from .encode import text_table
from .placement_body import placement_body

TABLE_COLUMNS = ("RUNTIME", "SCOPE", "COMPATIBLE", "PRIORITY", "WEIGHT", "REASON")


def _rows_body(prediction: Prediction) -> list[dict[str, Any]]:
    """Each row with its advice and, for a ``No`` row, its way out (``{check, entry, field,
    change}`` each change; null, with ``wayOutNote`` saying why, when no change to the runtime
    alone makes it qualify). (Written out, a row's fields read without a call each: the rows
    are most of an answer.)"""
    advice = prediction.explained()
    bodies = []
    isfinite = math.isfinite
    for row, shown, out in zip(prediction.ranking.rows, advice.rows, advice.ways_out, strict=True):
        runtime, distance = row.runtime, row.distance
        if distance is not None and not isfinite(distance):
            distance = None  # rules §9: a non-finite distance is reported as null
        way_out = note = None
        if out is not None:
            changes, note = out.changes, out.note
            if changes is not None:
                way_out = [
                    {
                        "check": c.check,
                        "entry": c.entry,
                        "field": c.field,
                        "change": list(c.value) if isinstance(c.value, tuple) else c.value,
                    }
                    for c in changes
                ]
        bodies.append(
            {
                "name": runtime.name,
                "scope": runtime.scope,
                "compatible": row.compatible,
                "priority": row.priority,
                "weight": row.weight,
                "score": row.score,
                "distance": distance,
                "reason": row.reason,
                "decidedBy": shown.decided_by,
                "toWin": shown.to_win,
                "toWinNote": shown.note,
                "wayOut": way_out,
                "wayOutNote": note,
            }
        )
    return bodies


def selected_body(ranking: Ranking) -> dict[str, Any] | None:
    chosen = ranking.selected
    if chosen is None:
        return None
    return {
        "name": chosen.name,
        "scope": chosen.scope,
        "score": chosen.score,
        "explicit": chosen.explicit,
    }


def ranking_body(prediction: Prediction) -> dict[str, Any]:
    ranking = prediction.ranking
    model = ranking.model
    model_namespace = None if model.is_cluster else model.namespace or ranking.namespace
    return {
        "model": {"name": model.name, "kind": model.kind, "namespace": model_namespace},
        "namespace": ranking.namespace,
        "omeVersion": ranking.ome_version,
        "selected": selected_body(ranking),
        "message": ranking.message,
        "summary": prediction.explained().summary,
        "runtimes": _rows_body(prediction),
        "ignored": [_ignored(item) for item in ranking.ignored],
        "warnings": list(ranking.warnings),
        "notes": list(ranking.notes),
        "placement": placement_body(prediction.placement),  # rules §20.8
    }


def _ignored(item: IgnoredObject) -> dict[str, Any]:
    return {
        "kind": item.kind,
        "name": item.name,
        "scope": item.scope,
        "namespace": item.namespace,
        "reason": item.reason,
    }


def select_body(prediction: Prediction) -> dict[str, Any]:
    """The selection; and ``ignored`` when the request held objects kubectl would not map
    (rules §18: never dropped silently), only those."""
    ranking = prediction.ranking
    body: dict[str, Any] = {
        "selected": selected_body(ranking),
        "message": ranking.message,
        "warnings": list(ranking.warnings),
        "placement": placement_body(prediction.placement),  # rules §20.8
    }
    unmapped = [_ignored(item) for item in ranking.ignored if item.unmapped]
    if unmapped:
        body["ignored"] = unmapped
    return body


def excluded_reasons(ranking: Ranking) -> dict[str, str]:
    """rules §15: name → reason of the runtimes OME's no-runtime text lists."""
    return dict(ranking.excluded())


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if value is True:
        return "Yes"
    if value is False:
        return "No"
    return str(value)


def explain_table(ranking: Ranking) -> str:
    """The table ``kubectl ome runtime explain`` prints."""
    return text_table(
        [TABLE_COLUMNS]
        + [
            tuple(
                _cell(value)
                for value in (
                    row.name,
                    row.scope,
                    row.compatible,
                    row.priority,
                    row.weight,
                    row.reason,
                )
            )
            for row in ranking.rows
        ]
    )
