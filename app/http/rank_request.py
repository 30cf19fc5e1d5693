"""One ranking per request, as ``/v1/rank``, ``/v1/select`` and their catalog forms serve it:
the body decoded and validated within the bounds, the rules run, and what was learnt left in the
request's record for its log line and metrics."""

from __future__ import annotations

import time

from flask import current_app, request

from app.errors import PayloadTooLarge
from app.reading.fast_request import fast_request_object
from app.reading.manifests import is_json_type
from app.schemas.requests import load_rank_request
from app.selection.prediction import Prediction, rank_and_place
from app.selection.values import OtherObject, RankRequest, RepeatedObject

from . import deadline, record
from .body import content_type, ranking_request


def load_request(raw: bytes) -> RankRequest:
    """Decode and validate a ranking body. Raises the 400/404/413/415/422 errors, which are never
    cached: 404 ``ModelNotFound`` when the body's manifests hold no model for the
    InferenceService among them. A JSON request object of plain runtimes is decoded straight
    into them (``fast_request_object``), anything else read as usual."""
    json_body = is_json_type(content_type())
    fast = fast_request_object(raw, record.this_request().json_marks) if json_body else None
    if fast is not None:
        body, runtimes = fast
        others: tuple[OtherObject, ...] = ()
        repeated: tuple[RepeatedObject, ...] = ()
    else:
        stream = ranking_request(raw)
        body, runtimes, others, repeated = stream.request, None, stream.others, stream.repeated
    deadline.check()  # each stage is linear in the body; check between them
    check_counts(body)
    rank_request = load_rank_request(
        body, request.args, others, repeated, release=True, loaded_runtimes=runtimes
    )
    record.this_request().runtime_count = len(rank_request.runtimes)
    deadline.check()
    return rank_request


def check_counts(body: dict) -> None:
    """413 before validation for a body of more runtimes than a ranking takes
    (``OME_RANKER_MAX_RUNTIMES``) or more AcceleratorClasses than a cluster holds objects
    (``OME_RANKER_MAX_OBJECTS_PER_CLUSTER``): each is validated, so each costs."""
    for key, what, setting in (
        ("runtimes", "runtimes", "MAX_RUNTIMES"),
        ("acceleratorClasses", "AcceleratorClasses", "MAX_OBJECTS_PER_CLUSTER"),
    ):
        documents = body.get(key)
        limit = current_app.config[setting]
        if isinstance(documents, list) and len(documents) > limit:
            raise PayloadTooLarge(
                f"request has {len(documents)} {what}; this service accepts at most {limit}"
            )


def compute_ranking(rank_request: RankRequest, *, with_advice: bool) -> Prediction:
    """Rank and place a validated request, and advise on the ranking for an answer that shows
    the advice (``app.rendering.payloads.shows_advice``), timed for the metrics."""
    started = time.perf_counter()
    prediction = rank_and_place(rank_request, with_advice=with_advice)
    seen = record.this_request()
    seen.selection_seconds = time.perf_counter() - started
    deadline.check()  # before anything is rendered or stored
    seen.ranking = prediction.ranking
    return prediction
