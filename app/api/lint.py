"""``POST /v1/lint`` and ``POST /v1/clusters/{cluster}/lint``: what ``kubectl apply`` of a
stream's objects would answer (rules §18). Nothing is stored."""

from __future__ import annotations

from flask import Blueprint, Response

from app import linting
from app.http import deadline
from app.http.access import (
    documents_or_404,
    may_read,
    stateless_access,
    store_errors,
)
from app.http.described import (
    CATALOG_ERRORS,
    MANIFESTS,
    NEGOTIATED,
    SETTINGS_PARAMETERS,
    STREAM_ERRORS,
    answer,
    described,
)
from app.http.limits import check_answer, check_rankings, objects_within_bounds
from app.http.query import read_with_query
from app.http.respond import respond, wanted_output
from app.reading.object_streams import ObjectStream
from app.rendering.lint_body import message_bytes
from app.schemas.catalog_answers import LintSchema
from app.selection.admission import Admission
from app.selection.values import CatalogView
from app.store import ClusterInfo

bp = Blueprint("lint", __name__)
bp.before_request(stateless_access)


def _lint(view: CatalogView, stream: ObjectStream) -> Admission:
    return linting.admission(
        view,
        stream,
        frozenset(stream.manifests),
        lambda rankings, runtimes: check_rankings((rankings, runtimes)),
    )


def _answer(admission: Admission, stream: ObjectStream, info: ClusterInfo | None = None):
    reported = (*admission.findings, *admission.suppressed)
    check_answer(len(reported), message_bytes(admission))
    return respond(linting.answer(admission, stream, wanted_output()), info=info, vary=True)


@bp.post("/v1/lint")
@described(
    "lint",
    "predict",
    "What applying the manifests to a cluster holding exactly them would answer",
    description="`admitted`, `counts` per severity and `findings` in canonical order (errors, "
    "warnings, infos); `text/plain` prints them as kubectl does (`error: … denied the request: "
    "…`, `Warning: …`, `info: …`), then the counts.",
    parameters=SETTINGS_PARAMETERS,
    body=MANIFESTS,
    answers={200: answer("The findings.", LintSchema, NEGOTIATED, headers=("Vary",))},
    errors=STREAM_ERRORS,
)
def lint() -> Response:
    """What applying the body's objects to a cluster that holds exactly them would answer."""
    stream = objects_within_bounds(strict=True)
    deadline.check()
    view = read_with_query(CatalogView.of(stream.documents()))
    return _answer(_lint(view, stream), stream)


@bp.post("/v1/clusters/<cluster>/lint")
@described(
    "lintCluster",
    "predict",
    "What applying the manifests over the stored catalog would answer",
    description="`admitted`, `counts` per severity and `findings` in canonical order (errors, "
    "warnings, infos); `text/plain` prints them as kubectl does (`error: … denied the request: "
    "…`, `Warning: …`, `info: …`), then the counts. Findings are for the body's objects.",
    parameters=SETTINGS_PARAMETERS,
    body=MANIFESTS,
    answers={200: answer("The findings.", LintSchema, NEGOTIATED, headers=("ETag", "Vary"))},
    errors=(*CATALOG_ERRORS, *STREAM_ERRORS),
    secured=True,
)
@store_errors
def lint_cluster(cluster: str) -> Response:
    """The body's objects applied over the stored catalog: findings for the body's objects."""
    may_read(cluster)
    documents = documents_or_404(cluster)
    settings = documents.info.settings
    stream = objects_within_bounds(strict=True)
    deadline.check()
    view = read_with_query(documents.view().laid_over(stream.documents()), settings)
    return _answer(_lint(view, stream), stream, documents.info)
