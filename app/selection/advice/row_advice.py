"""Answers that explain and predict (rules §19): for each row of a ranking, which rule of §5 put it
below the row above (``decidedBy``), and what would make it first (``toWin``, ``toWinNote``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from ..ranking import (
    CHECK_AUTOSELECT,
    RuntimeChecks,
    RuntimeRow,
    compatible_score,
    distance_order,
    name_scope_key,
)
from ..values import Entry, Runtime, checked, quick_init


class PriorityToWin(TypedDict):
    """``toWin`` of a ``Yes`` row: the smallest priority on that entry that makes it first."""

    entry: int
    priority: int


class AutoSelectToWin(TypedDict):
    """``toWin`` of a ``No`` row that fails only on autoSelect: ``autoSelect: true`` there."""

    entry: int
    autoSelect: bool


MAX_PRIORITY = 2**31 - 1  # the CRD types priority as int32
ROWS_PER_CHECK = 32  # a row's advice is cheap: a deadline check every 32 (bench/README.md)


@quick_init
@dataclass(frozen=True, slots=True)
class RowAdvice:
    decided_by: str | None = None  # scope | score | distance | name; None on the first Yes row
    to_win: PriorityToWin | AutoSelectToWin | None = None
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
        unit = checks.entries.unit_score(entry)
        if best is None or unit > best[2]:
            best = (index, entry, unit)
    return best


def to_win(
    checks: RuntimeChecks, row: RuntimeRow, top: int, top_group: list[RuntimeRow]
) -> PriorityToWin | None:
    """The smallest priority on the best entry that puts ``row`` before every other qualifying
    runtime of its scope, all else unchanged; None when no priority can (§19). ``top`` is the
    scope's best score and ``top_group`` its rows with that score, in order (the first row
    first, so that the usual case is decided by one comparison)."""
    found = best_entry(checks, row.runtime)
    if found is None or found[2] <= 0:
        return None
    index, _, unit = found
    beaten_at_a_tie = all(r is row or _wins_a_tie(row, r) for r in top_group)
    needed = top if beaten_at_a_tie else top + 1
    priority = max(1, -(-needed // unit))  # integer ceiling: scores outgrow a float's 53 bits
    if priority > MAX_PRIORITY:
        return None
    return {"entry": index, "priority": priority}


def advise(
    checks: RuntimeChecks, rows: tuple[RuntimeRow, ...], explicit: str | None
) -> tuple[RowAdvice, ...]:
    """One ``RowAdvice`` per row. ``explicit``: the runtime the InferenceService names, if any.
    Linear in the rows (but for ties on the best score, which are compared one by one)."""
    scopes: dict[bool, list[RuntimeRow]] = {False: [], True: []}
    for row in rows:
        if row.compatible:
            scopes[row.runtime.is_cluster].append(row)
    tops = {
        cluster: [r for r in scope if r.score == scope[0].score]
        for cluster, scope in scopes.items()
        if scope
    }
    first_namespaced = scopes[False][0] if scopes[False] else None
    # The note of a row that a priority would make first: the same for every such row.
    note = None
    if explicit is not None:
        note = (
            f"spec.runtime names {explicit}: OME uses that runtime and selects none automatically"
        )
    elif first_namespaced is not None:
        ns = first_namespaced.runtime
        note = (
            f"ServingRuntime {ns.name} in {ns.namespace} qualifies and comes first whatever "
            "the score"
        )
    advice = []
    previous: RuntimeRow | None = None
    for row in checked(rows, every=ROWS_PER_CHECK):
        if not row.compatible:
            # Most No rows fail another check than 6: no advice, and no call to say so.
            failed_six = row.failed_check == CHECK_AUTOSELECT
            advice.append(_autoselect_advice(checks, row) if failed_six else NO_ADVICE)
            continue
        decided = None if previous is None else decided_by(previous, row)
        previous = row
        cluster = row.runtime.is_cluster
        scope = scopes[cluster]
        if scope[0] is row:
            advice.append(RowAdvice(decided))
            continue
        win = to_win(checks, row, compatible_score(scope[0]), tops[cluster])
        noted = win is not None and (explicit is not None or cluster)
        advice.append(RowAdvice(decided, win, note if noted else None))
    return tuple(advice)


def _autoselect_advice(checks: RuntimeChecks, row: RuntimeRow) -> RowAdvice:
    """A ``No`` row that fails only check 6: ``autoSelect: true`` on its first matching entry."""
    if row.failed_check != CHECK_AUTOSELECT:
        return NO_ADVICE
    for index, entry in enumerate(row.runtime.entries):
        if checks.entries.matches(entry):
            return RowAdvice(None, {"entry": index, "autoSelect": True})
    return NO_ADVICE
