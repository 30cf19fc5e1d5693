"""The questions asked of one cluster's catalog (rules §17, §19), over a ``CatalogView``: every
InferenceService's outcome (``selections``), a row for each model no InferenceService names,
and how many rankings and placements those will cost, counted before they start."""

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
    "SelectionRow",
    "SharedAnswers",
    "asked_questions",
    "planned_placements",
    "planned_rankings",
    "selections",
    "unnamed_model_rows",
]
