"""The two answers of a ranking (rules §15), whole (status, media type, bytes) as the service
sends and caches them, OME's refusals in the service's error format (``answers``)."""

from __future__ import annotations

from app.errors import (
    MODEL_NOT_READY_HINT,
    ModelNotReady,
    NoRuntimeFound,
    selection_error,
)
from app.selection.prediction import Prediction
from app.selection.ranking import Ranking, SelectionErrorCode

from .answers import JSON_MIME, OUTPUT_TEXT, Answer, error_answer, rendered
from .encode import to_json
from .ranking_body import excluded_reasons, explain_table, ranking_body, select_body


def _model_not_ready(ranking: Ranking) -> Answer | None:
    error = ranking.error
    if error is None or error.code is not SelectionErrorCode.MODEL_NOT_READY:
        return None
    return error_answer(ModelNotReady(error.message, hint=MODEL_NOT_READY_HINT))


def shows_advice(endpoint: str, output: str) -> bool:
    """rules §19: ``/v1/rank``'s JSON and YAML answers (and so the page) show the advice; the
    explain table and the selection do not, so the rules work it out for the first only."""
    return endpoint == "rank" and output != OUTPUT_TEXT


def rank_answer(prediction: Prediction, output: str) -> Answer:
    """``/v1/rank``'s answer. rules §15: both endpoints refuse a model that is not Ready; OME's
    other errors are a 200 ranking here."""
    ranking = prediction.ranking
    refused = _model_not_ready(ranking)
    if refused is not None:
        return refused
    if output == OUTPUT_TEXT:  # the table reads the rows alone: no advice, no JSON body
        return rendered(None, output, lambda: explain_table(ranking))
    return rendered(ranking_body(prediction), output, lambda: explain_table(ranking))


def select_answer(prediction: Prediction) -> Answer:
    """``/v1/select``'s answer: OME's own errors are answers about the inputs, cached like a
    200 (rules §7, §15)."""
    ranking = prediction.ranking
    refused = _model_not_ready(ranking)
    if refused is not None:
        return refused
    error = ranking.error
    if error is not None:
        return error_answer(selection_error(error.code)(error.message))
    if ranking.selected is None:
        return error_answer(NoRuntimeFound(ranking.message, excluded=excluded_reasons(ranking)))
    return Answer(200, JSON_MIME, to_json(select_body(prediction)))
