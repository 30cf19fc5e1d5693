"""Whole answers (status, media type, bytes) as the service sends and caches them: a body in the
representation a request asked for, OME's refusals in the service's error format, and the two
answers of a ranking (rules §15)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.errors import (
    MODEL_NOT_READY_HINT,
    ApiError,
    ModelNotReady,
    NoRuntimeFound,
    error_body,
    selection_error,
)
from app.selection.prediction import Prediction
from app.selection.ranking import Ranking, SelectionErrorCode

from .encode import to_json, to_yaml
from .ranking_body import excluded_reasons, explain_table, ranking_body, select_body

JSON_MIME = "application/json"
TEXT_MIME = "text/plain; charset=utf-8"
YAML_MIME = "application/yaml"
OUTPUT_JSON, OUTPUT_TEXT, OUTPUT_YAML = "json", "text", "yaml"  # part of the cache keys


@dataclass(frozen=True, slots=True)
class Answer:
    """A whole answer, exactly as a view sends it and the cache keeps it (``X-Cache`` aside);
    ``gzipped`` is the body as one gzip member, for an answer that gzip shrinks and that is long
    enough to be worth it (``app.cache.framing.compressed`` makes it), else None."""

    status: int
    content_type: str
    body: bytes
    gzipped: bytes | None = None


def rendered(
    body: Any, output: str, text: Callable[[], str] | None = None, status: int = 200
) -> Answer:
    """``body`` as JSON or YAML, or ``text()`` as text; JSON where no text is offered."""
    if output == OUTPUT_TEXT and text is not None:
        return Answer(status, TEXT_MIME, text().encode("utf-8", "replace"))
    if output == OUTPUT_YAML:
        return Answer(status, YAML_MIME, to_yaml(body))
    return Answer(status, JSON_MIME, to_json(body))


def error_answer(error: ApiError) -> Answer:
    return Answer(error.status, JSON_MIME, error_body(error.code, error.message, **error.details))


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
