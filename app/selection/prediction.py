"""The entry of the rules for one request (rules §15, §19, §20.8): the ranking OME's runtime
selector gives, each row's advice, and the placement OME makes on the selection. The ranking is
computed alone where nothing shows the rest (lint, impact, selections)."""

from __future__ import annotations

from dataclasses import dataclass

from .advice import RowAdvice, advise
from .placement import Placement, placement_of
from .ranking import Ranking, rank_runtimes
from .values import RankRequest


@dataclass(frozen=True, slots=True)
class Prediction:
    """What ``/v1/rank`` and ``/v1/select`` answer, before rendering."""

    ranking: Ranking
    advice: tuple[RowAdvice, ...] = ()  # rules §19: one per row; none for a model not Ready
    placement: Placement | None = None  # rules §20.8: None when nothing is selected


def rank_and_place(request: RankRequest) -> Prediction:
    """The ranking, its advice, then the placement on what it selects (nothing in the ranking
    changes)."""
    ranking = rank_runtimes(request)
    isvc = request.inference_service
    explicit = isvc.runtime_name if isvc is not None else None
    checks = ranking.checks  # None when OME refuses the model before any runtime is checked
    advice = () if checks is None else advise(checks, ranking.rows, explicit)
    return Prediction(ranking, advice, placement_of(request, ranking))
