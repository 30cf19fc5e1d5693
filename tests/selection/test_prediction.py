"""The entry of the rules for one request (app/selection/prediction.py): the ranking OME's
selector gives, the placement on the selection, and, when asked for, the advice on the ranking
(one per row, the ways out, the summary), the ranking unchanged by what follows it."""

from __future__ import annotations

import pytest

from app.schemas.requests import load_rank_request
from app.selection.advice import NO_ADVICE, advice_on
from app.selection.prediction import Prediction, rank_and_place
from app.selection.ranking import rank_runtimes
from tests.builders import entry, model_doc, rank_body, runtime_doc


def request(body):
    return load_rank_request(body, {})


def test_the_ranking_is_selections_and_every_row_has_its_advice():
    asked = request(
        rank_body(
            model_doc(), runtime_doc("a", entry(priority=1)), runtime_doc("b", entry(priority=2))
        )
    )
    prediction = rank_and_place(asked, with_advice=True)
    assert isinstance(prediction, Prediction)
    assert prediction.ranking == rank_runtimes(asked)
    assert prediction.advice == advice_on(prediction.ranking, None)
    assert len(prediction.advice.rows) == len(prediction.advice.ways_out) == 2
    assert prediction.placement is not None and prediction.placement.entry is not None


def test_the_advice_is_worked_out_only_when_asked_for():
    """The explain table, selections, lint and impact do not show the advice: their rankings do
    not pay for it (the ways out cost as much as the ranking)."""
    asked = request(rank_body(model_doc(), runtime_doc("off", disabled=True)))
    bare = rank_and_place(asked)
    assert bare.advice is None
    assert (bare.ranking, bare.placement) == (
        rank_and_place(asked, with_advice=True).ranking,
        rank_and_place(asked, with_advice=True).placement,
    )
    with pytest.raises(ValueError, match="with_advice=True"):
        bare.explained()
    advised = rank_and_place(asked, with_advice=True).explained()
    assert advised.ways_out[0] is not None and advised.ways_out[0].label == "disabled"
    assert advised.summary is not None and advised.summary.startswith("1 runtime excluded")


def test_nothing_selected_places_nothing():
    prediction = rank_and_place(request(rank_body(model_doc(), runtime_doc("off", disabled=True))))
    assert prediction.ranking.selected is None
    assert prediction.placement is None


def test_a_model_refused_before_any_runtime_is_checked_has_no_advice():
    not_ready = model_doc(format_name="")
    prediction = rank_and_place(request(rank_body(not_ready, runtime_doc("rt"))), with_advice=True)
    assert prediction.ranking.error is not None
    advice = prediction.explained()
    assert set(advice.rows) <= {NO_ADVICE} and set(advice.ways_out) <= {None}
    assert advice.summary is None
