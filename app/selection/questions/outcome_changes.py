"""What a change of a catalog did to its InferenceServices' outcomes (rules §17 "Selection
history"): for each InferenceService whose outcome changed, its outcome in brief before and
after, and a row's outcome in one word. Pure values; the comparison itself is the impact's
(rules §19), made where ``/v1/select``'s answers are (app/rendering/selection_history.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .outcomes import SelectionRow

# An InferenceService's outcome in one word: exactly one of these (rules §17.1, §21).
SELECTED, EXPLICIT, NO_RUNTIME = "selected", "explicit", "noRuntime"


def row_outcome(row: SelectionRow) -> str:
    """``explicit`` when the runtime its ``spec.runtime.name`` names is used, ``selected`` when
    OME chose one, ``noRuntime`` when it gets none (whatever the reason)."""
    if row.selected is None:
        return NO_RUNTIME
    return EXPLICIT if row.selected.explicit else SELECTED


@dataclass(frozen=True, slots=True)
class OutcomeChange:
    """One InferenceService whose outcome a change moved: ``before`` None when the change adds
    it, ``after`` None when it removes it; each a JSON object
    ``{runtime, scope, engineClass, decoderClass, outcome}``."""

    namespace: str
    name: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class OutcomeChanges:
    """Every InferenceService a change moved, by namespace and name; or, when they could not be
    worked out within the request's bounds, none and ``truncated`` saying why."""

    changes: tuple[OutcomeChange, ...] = ()
    truncated: str | None = None
