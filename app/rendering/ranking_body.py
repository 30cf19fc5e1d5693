"""A ``Prediction`` as the bodies of rules §15: the JSON (and YAML) body, the explain table."""

from __future__ import annotations

import math
from typing import Any

from app.selection.advice import NO_ADVICE, RowAdvice, WayOut, exclusion_summary, way_outs
from app.selection.prediction import Prediction
from app.selection.ranking import IgnoredObject, Ranking, RuntimeRow

from .encode import text_table
from .placement_body import placement_body

TABLE_COLUMNS = ("RUNTIME", "SCOPE", "COMPATIBLE", "PRIORITY", "WEIGHT", "REASON")


def _distance(value: float | None) -> float | None:
    # rules §9: a non-finite distance is reported as null.
    return value if value is not None and math.isfinite(value) else None


def way_out_body(out: WayOut | None) -> list[dict[str, Any]] | None:
    """A ``No`` row's changes: ``{check, entry, field, change}`` each, a list as a list."""
    if out is None or out.changes is None:
        return None
    return [
        {
            "check": change.check,
            "entry": change.entry,
            "field": change.field,
            "change": list(change.value) if isinstance(change.value, tuple) else change.value,
        }
        for change in out.changes
    ]


def row_body(
    row: RuntimeRow, advice: RowAdvice = NO_ADVICE, out: WayOut | None = None
) -> dict[str, Any]:
    return {
        "name": row.name,
        "scope": row.scope,
        "compatible": row.compatible,
        "priority": row.priority,
        "weight": row.weight,
        "score": row.score,
        "distance": _distance(row.distance),
        "reason": row.reason,
        "decidedBy": advice.decided_by,
        "toWin": advice.to_win,
        "toWinNote": advice.note,
        "wayOut": way_out_body(out),
        "wayOutNote": None if out is None else out.note,
    }


def _no_advice(ranking: Ranking) -> tuple[RowAdvice, ...]:
    return (NO_ADVICE,) * len(ranking.rows)


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
    outs = way_outs(ranking)
    return {
        "model": {"name": model.name, "kind": model.kind, "namespace": model_namespace},
        "namespace": ranking.namespace,
        "omeVersion": ranking.ome_version,
        "selected": selected_body(ranking),
        "message": ranking.message,
        "summary": exclusion_summary(ranking.rows, outs),
        "runtimes": [
            row_body(row, advice, out)
            for row, advice, out in zip(
                ranking.rows, prediction.advice or _no_advice(ranking), outs, strict=True
            )
        ],
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
