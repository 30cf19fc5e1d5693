"""The entry of the rules for one request (app/selection/prediction.py): the ranking OME's
selector gives, one advice per row, and the placement on the selection, the ranking unchanged
by what follows it."""

from __future__ import annotations

from app.schemas.requests import load_rank_request
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
    prediction = rank_and_place(asked)
    assert isinstance(prediction, Prediction)
    assert prediction.ranking == rank_runtimes(asked)
    assert len(prediction.advice) == len(prediction.ranking.rows) == 2
    assert prediction.placement is not None and prediction.placement.entry is not None


def test_nothing_selected_places_nothing():
    prediction = rank_and_place(request(rank_body(model_doc(), runtime_doc("off", disabled=True))))
    assert prediction.ranking.selected is None
    assert prediction.placement is None


def test_a_model_refused_before_any_runtime_is_checked_has_no_advice():
    not_ready = model_doc(format_name="")
    prediction = rank_and_place(request(rank_body(not_ready, runtime_doc("rt"))))
    assert prediction.ranking.error is not None
    assert prediction.advice == ()
