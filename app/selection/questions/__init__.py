"""The questions asked of one cluster's catalog (rules §17, §19), over a ``CatalogView``: every
InferenceService's outcome (``selections``), a row for each model no InferenceService names,
how many rankings and placements those will cost, counted before they start, and what a change
did to the outcomes (``OutcomeChanges``)."""

from .outcome_changes import (
    EXPLICIT,
    NO_RUNTIME,
    SELECTED,
    OutcomeChange,
    OutcomeChanges,
    row_outcome,
)
from .outcomes import (
    SelectionRow,
    asked_questions,
    planned_placements,
    planned_rankings,
    selections,
    unnamed_model_rows,
)
from .shared import SharedAnswers

__all__ = [
    "EXPLICIT",
    "NO_RUNTIME",
    "SELECTED",
    "OutcomeChange",
    "OutcomeChanges",
    "SelectionRow",
    "SharedAnswers",
    "asked_questions",
    "planned_placements",
    "planned_rankings",
    "row_outcome",
    "selections",
    "unnamed_model_rows",
]
