"""Answers that explain and predict (SPEC §19): for each row of a ranking, which rule of §5 put it
below the row above (``decidedBy``), and what would make it first (``toWin``, ``toWinNote``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .checks import CHECK_AUTOSELECT, RuntimeChecks, RuntimeRow
from .documents import Entry, Runtime
from .entries import entry_matches, entry_score
from .results import distance_order, name_scope_key

MAX_PRIORITY = 2**31 - 1  # the CRD types priority as int32


@dataclass(frozen=True, slots=True)
class RowAdvice:
    decided_by: str | None = None  # scope | score | distance | name; None on the first Yes row
    to_win: dict | None = None  # {"entry": i, "priority": p} or {"entry": i, "autoSelect": True}
    note: str | None = None


NO_ADVICE = RowAdvice()


def decided_by(above: RuntimeRow, row: RuntimeRow) -> str:
    """The first rule of §5 that puts ``row`` below ``above``."""
    if above.runtime.is_cluster != row.runtime.is_cluster:
        return "scope"
    if above.score != row.score:
        return "score"
    if (
        above.distance is not None
        and row.distance is not None
        and distance_order(above.distance, row.distance) != 0
    ):
        return "distance"
    return "name"


def _wins_a_tie(row: RuntimeRow, other: RuntimeRow) -> bool:
    """Whether ``row`` comes before ``other`` when their scores are equal (§5.3, §5.4)."""
    if row.distance is not None and other.distance is not None:
        order = distance_order(row.distance, other.distance)
        if order != 0:
            return order < 0
    return name_scope_key(row) < name_scope_key(other)


def best_entry(checks: RuntimeChecks, runtime: Runtime) -> tuple[int, Entry, int] | None:
    """(index, entry, score per unit of priority) of the ``autoSelect``-eligible entry whose
    score grows most with its priority; the first of equals."""
    best = None
    for index, entry in enumerate(runtime.entries):
        if entry.auto_select is False:
            continue
        unit = entry_score(checks.model, replace(entry, priority=1), checks.provider)
        if best is None or unit > best[2]:
            best = (index, entry, unit)
    return best


def to_win(checks: RuntimeChecks, row: RuntimeRow, rivals: list[RuntimeRow]) -> dict | None:
    """The smallest priority on the best entry that puts ``row`` before every rival of its
    scope, all else unchanged; None when no priority can (§19)."""
    found = best_entry(checks, row.runtime)
    if found is None or found[2] <= 0 or not rivals:
        return None
    index, _, unit = found
    top = max(rival.score for rival in rivals)
    needed = top + (1 if any(r.score == top and not _wins_a_tie(row, r) for r in rivals) else 0)
    priority = max(1, math.ceil(needed / unit))
    if priority > MAX_PRIORITY:
        return None
    return {"entry": index, "priority": priority}


def advise(
    checks: RuntimeChecks, rows: tuple[RuntimeRow, ...], explicit: str | None
) -> tuple[RowAdvice, ...]:
    """One ``RowAdvice`` per row. ``explicit``: the runtime the InferenceService names, if any."""
    qualifying = [row for row in rows if row.compatible]
    first_namespaced = next((r for r in qualifying if not r.runtime.is_cluster), None)
    advice = []
    previous: RuntimeRow | None = None
    for row in rows:
        if not row.compatible:
            advice.append(_autoselect_advice(checks, row))
            continue
        decided = None if previous is None else decided_by(previous, row)
        previous = row
        scope = [r for r in qualifying if r.runtime.is_cluster == row.runtime.is_cluster]
        if scope[0] is row:
            advice.append(RowAdvice(decided))
            continue
        win = to_win(checks, row, [r for r in scope if r is not row])
        note = None
        if explicit is not None:
            note = (
                f"spec.runtime names {explicit}: OME uses that runtime and selects none "
                "automatically"
            )
        elif row.runtime.is_cluster and first_namespaced is not None:
            ns = first_namespaced.runtime
            note = (
                f"ServingRuntime {ns.name} in {ns.namespace} qualifies and comes first whatever "
                "the score"
            )
        advice.append(RowAdvice(decided, win, note if win is not None else None))
    return tuple(advice)


def _autoselect_advice(checks: RuntimeChecks, row: RuntimeRow) -> RowAdvice:
    """A ``No`` row that fails only check 6: ``autoSelect: true`` on its first matching entry."""
    if row.failed_check != CHECK_AUTOSELECT:
        return NO_ADVICE
    for index, entry in enumerate(row.runtime.entries):
        if entry_matches(checks.model, entry, checks.provider):
            return RowAdvice(None, {"entry": index, "autoSelect": True})
    return NO_ADVICE
