"""The entry of the rules for one request (rules §15, §19, §20.8): the ranking OME's runtime
selector gives, the placement OME makes on the selection, and, for the answers that show it, the
advice (each row's ``decidedBy`` and ``toWin``, the ways out, the summary). The advice is worked
out only when asked for: the explain table, selections, lint and impact never show it."""

from __future__ import annotations

from dataclasses import dataclass

from .advice import Advice, advice_on
from .placement import Placement, placement_of
from .ranking import Ranking, rank_runtimes
from .values import RankRequest


@dataclass(frozen=True, slots=True)
class Prediction:
    """What ``/v1/rank`` and ``/v1/select`` answer, before rendering."""

    ranking: Ranking
    placement: Placement | None = None  # rules §20.8: None when nothing is selected
    advice: Advice | None = None  # rules §19: None when the answer does not show it

    def explained(self) -> Advice:
        """The advice, for an answer that shows it; a prediction made without it is refused
        (rendering it would answer a ranking without its advice)."""
        if self.advice is None:
            raise ValueError("this answer shows the advice: rank_and_place(..., with_advice=True)")
        return self.advice


def rank_and_place(request: RankRequest, *, with_advice: bool = False) -> Prediction:
    """The ranking, then the placement on what it selects, and with ``with_advice`` the advice
    on the ranking (nothing in the ranking changes)."""
    ranking = rank_runtimes(request)
    advice = None
    if with_advice:
        isvc = request.inference_service
        advice = advice_on(ranking, isvc.runtime_name if isvc is not None else None)
    return Prediction(ranking, placement_of(request, ranking), advice)
