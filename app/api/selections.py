"""``POST /v1/selections``: every InferenceService and model of a stream with its outcome, in one
request (rules §19); ``GET /v1/clusters/{cluster}/selections`` answers the same of a catalog."""

from __future__ import annotations

from functools import partial

from flask import Blueprint, Response, request

from app.http import deadline
from app.http.access import stateless_access
from app.http.described import (
    MANIFESTS,
    NAMESPACE_SCHEMA,
    NEGOTIATED,
    SETTINGS_PARAMETERS,
    STREAM_ERRORS,
    answer,
    described,
    parameter,
)
from app.http.limits import check_rankings, objects_within_bounds
from app.http.query import MODEL_CACHE_PROVIDER, NAMESPACE, check_query, read_with_query
from app.http.respond import respond, selections_answer, wanted_output
from app.rendering.answers import ignored_body
from app.schemas.catalog_answers import SelectionsSchema
from app.selection.questions import (
    planned_placements,
    planned_rankings,
    selections,
    unnamed_model_rows,
)
from app.selection.values import CatalogView

bp = Blueprint("selections", __name__)
bp.before_request(stateless_access)
bp.before_request(partial(check_query, NAMESPACE, MODEL_CACHE_PROVIDER))  # once access is decided


@bp.post("/v1/selections")
@described(
    "selections",
    "predict",
    "Every InferenceService and model of a stream with its outcome",
    description="A model that no InferenceService names has a row with `name` null. "
    "`text/plain`: `NAMESPACE INFERENCESERVICE MODEL RUNTIME SCOPE MESSAGE`.",
    parameters=(
        *SETTINGS_PARAMETERS,
        parameter("namespace", "Only the rows of this namespace.", **NAMESPACE_SCHEMA),
    ),
    body=MANIFESTS,
    answers={200: answer("The selections.", SelectionsSchema, NEGOTIATED, headers=("Vary",))},
    errors=STREAM_ERRORS,
)
def selections_of_stream() -> Response:
    """Every InferenceService of the stream with its outcome, and a row for every model that
    no InferenceService names."""
    stream = objects_within_bounds()
    stream.refuse_invalid()
    deadline.check()
    view = read_with_query(CatalogView.of(stream.documents()))
    namespace = request.args.get("namespace") or None
    check_rankings(
        (planned_rankings(view, namespace=namespace, unnamed=True), len(view.runtimes)),
        placements=planned_placements(view, namespace=namespace),
    )
    rows = selections(view, namespace=namespace)
    rows += [
        row for row in unnamed_model_rows(view) if namespace is None or row.namespace == namespace
    ]
    extra = {"ignored": ignored_body(stream.others)}
    return respond(selections_answer(rows, wanted_output(), extra), vary=True)
