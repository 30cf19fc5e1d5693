"""Answers that explain (rules §19): for each row of a ranking, which rule of §5 put it below the
row above (``decidedBy``) and what would make it first (``toWin``); for each ``No`` row, the way
out, the changes to that runtime alone that make it qualify; and the summary of the excluded.
``advice_on`` gives all of it for one ranking, for the answers that show it."""

from .ranking_advice import Advice, advice_on
from .row_advice import NO_ADVICE, RowAdvice, advise
from .way_out import WayOut, exclusion_summary, way_outs

__all__ = [
    "NO_ADVICE",
    "Advice",
    "RowAdvice",
    "WayOut",
    "advice_on",
    "advise",
    "exclusion_summary",
    "way_outs",
]
