"""What a catalog write did to its InferenceServices (rules §17 "Selection history"): the
impact's comparison (rules §19, ``changed_rows``) of the catalogs before and after the write,
and the InferenceServices that only one side holds, each outcome in brief. Bounded as every
request is: work over the bound is not started, and work past its share of the deadline is
stopped; either way the answer says so (``truncated``) instead of failing the write."""

from __future__ import annotations

from typing import Any

from app.selection.questions import (
    OutcomeChange,
    OutcomeChanges,
    SelectionRow,
    planned_placements,
    planned_rankings,
    row_outcome,
    selections,
)
from app.selection.ranking import text_key
from app.selection.values import CatalogView, DeadlinePassed, sharing

from .impact_body import changed_rows
from .selections_body import selection_body

# Of the time the request has left when the history is worked out, the share it may take: the
# write's commit and answer keep the rest.
DEADLINE_SHARE = 0.5


def outcome_body(row: SelectionRow) -> dict[str, Any]:
    """``{runtime, scope, engineClass, decoderClass, outcome}``: the runtime and accelerator
    classes as ``GET …/selections`` gives them, and ``row_outcome``."""
    body = selection_body(row)
    runtime = body["runtime"]
    return {
        "runtime": None if runtime is None else runtime["name"],
        "scope": None if runtime is None else runtime["scope"],
        "engineClass": body["engineAcceleratorClass"],
        "decoderClass": body["decoderAcceleratorClass"],
        "outcome": row_outcome(row),
    }


def history_work(before: CatalogView, after: CatalogView) -> int:
    """The runtime checks the comparison makes at most, as the impact counts them."""
    return sum(
        planned_rankings(side) * len(side.runtimes) + planned_placements(side)
        for side in (before, after)
    )


def selection_history(
    before: CatalogView, after: CatalogView, *, max_runtime_checks: int, max_runtimes: int
) -> OutcomeChanges:
    """Every InferenceService whose outcome differs between ``before`` and ``after``, by
    namespace and name: as the impact compares them when both sides hold it, with ``before``
    (``after``) None when only ``after`` (``before``) does."""
    runtimes = max(len(before.runtimes), len(after.runtimes))
    if runtimes > max_runtimes:
        return OutcomeChanges(
            truncated=f"a ranking would read {runtimes} runtimes; this service allows at most "
            f"{max_runtimes} (OME_RANKER_MAX_RUNTIMES)"
        )
    work = history_work(before, after)
    if work > max_runtime_checks:
        return OutcomeChanges(
            truncated=f"working out the changes needs {work} runtime checks; this service "
            f"allows at most {max_runtime_checks} (OME_RANKER_MAX_RUNTIME_CHECKS)"
        )
    try:
        with sharing(DEADLINE_SHARE):
            rows_before, rows_after = selections(before), selections(after)
            _compared, pairs = changed_rows(rows_before, rows_after)
    except DeadlinePassed:
        return OutcomeChanges(
            truncated="working out the changes took longer than its share of the request's "
            "deadline (OME_RANKER_REQUEST_DEADLINE)"
        )
    found: dict[tuple[str, str], OutcomeChange] = {
        (row.namespace, row.name): OutcomeChange(
            row.namespace, row.name, outcome_body(old), outcome_body(row)
        )
        for old, row in pairs
    }
    held_before = {(row.namespace, row.name): row for row in rows_before}
    held_after = {(row.namespace, row.name): row for row in rows_after}
    for key, row in held_before.items():
        if key not in held_after:
            found[key] = OutcomeChange(*key, outcome_body(row), None)
    for key, row in held_after.items():
        if key not in held_before:
            found[key] = OutcomeChange(*key, None, outcome_body(row))
    order = sorted(found, key=lambda key: (text_key(key[0]), text_key(key[1])))
    return OutcomeChanges(tuple(found[key] for key in order))
