"""The advice of one ranking as an answer shows it (rules §19): each row's ``decidedBy`` and
``toWin``, each ``No`` row's way out, and the summary of the excluded. Worked out only for the
answers that show it (``rank_and_place(..., with_advice=True)``); rendering only formats it."""

from __future__ import annotations

from dataclasses import dataclass

from ..ranking import Ranking
from .row_advice import NO_ADVICE, RowAdvice, advise
from .way_out import WayOut, exclusion_summary, way_outs


@dataclass(frozen=True, slots=True)
class Advice:
    """One ``RowAdvice`` and one way out (None for a ``Yes`` row) per row of the ranking, and the
    one-line summary of the rows that do not qualify (None when every row does)."""

    rows: tuple[RowAdvice, ...]
    ways_out: tuple[WayOut | None, ...]
    summary: str | None


def advice_on(ranking: Ranking, explicit: str | None) -> Advice:
    """The whole of §19 for ``ranking``. ``explicit``: the runtime the InferenceService names, if
    any. A model refused before any runtime is checked gets no advice on any row."""
    checks = ranking.checks
    rows = (
        (NO_ADVICE,) * len(ranking.rows)
        if checks is None
        else advise(checks, ranking.rows, explicit)
    )
    outs = way_outs(ranking)
    return Advice(rows, outs, exclusion_summary(ranking.rows, outs))
