"""``POST /v1/lint`` and ``POST /v1/clusters/{cluster}/lint``: what ``kubectl apply`` of a
stream's objects would answer (rules §18). Nothing is stored."""

from __future__ import annotations

from flask import Blueprint, Response

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
from app.rendering.lint_body import finding_body, lint_text, message_bytes
from app.rendering.payloads import rendered
from app.rendering.selections_body import ignored_body
from app.schemas import crd
from app.schemas.catalog_answers import LintSchema
from app.selection.admission import Admission, Finding, Refusal, admit, planned_admission_rankings
from app.selection.values import (
    ACCELERATOR_CLASS,
    CatalogView,
    ObjectKey,
    Runtime,
    classes_known,
)
from app.store import ClusterInfo

bp = Blueprint("lint", __name__)
bp.before_request(stateless_access)


def _lint(view: CatalogView, stream: ObjectStream, checked: frozenset[ObjectKey]) -> Admission:
    full_runners = frozenset(stream.full_runners)
    planned = planned_admission_rankings(
        view, checked=checked, full_runners=full_runners, apart=stream.apart
    )
    apart_runtimes = sum(isinstance(document, Runtime) for document in stream.apart)
    check_rankings((planned, len(view.runtimes) + apart_runtimes))
    invalid = [finding for finding in stream.invalid if _key(finding) not in stream.refused]
    return admit(
        view,
        invalid=invalid,
        checked=checked,
        full_runners=full_runners,
        manifests=stream.manifests,
        refused_by_schema={key: _refusals(found) for key, found in stream.refused.items()},
        accelerator_classes=_classes(view, stream),
        class_manifests=stream.classes,
        apart=stream.apart,
    )


def _classes(view: CatalogView, stream: ObjectStream) -> frozenset[str] | None:
    """The names of the classes the cluster would hold, or None when they are not known (rules
    §20.8): the stored ones (a cluster's lint) and the body's. A class of the body that the API
    server refuses counts under its name, as every object the others are judged against does
    (``admit``), unless it is its name that is refused: a fix keeps the name, and no fix makes
    a refused name exist."""
    held = len(view.classes) + any(kind == ACCELERATOR_CLASS for kind, _, _ in stream.manifests)
    if not classes_known(view.classes_known, held):
        return None
    return frozenset(accelerator.name for accelerator in view.classes) | frozenset(stream.classes)


def _key(finding: Finding) -> ObjectKey:
    return (finding.kind or "", finding.namespace or "", finding.name)


def _refusals(found: tuple[crd.Refusal, ...]) -> list[Refusal]:
    return [(refusal.code, refusal.field, refusal.message) for refusal in found]


def _answer(admission: Admission, stream: ObjectStream, info: ClusterInfo | None = None):
    check_answer(len(admission.findings), message_bytes(admission))
    body = {
        "admitted": admission.admitted,
        "counts": admission.counts(),
        "findings": [finding_body(finding) for finding in admission.findings],
        "ignored": ignored_body(stream.others),
        "warnings": stream.warnings,
    }
    answer = rendered(body, wanted_output(), lambda: lint_text(admission))
    return respond(answer, info=info, vary=True)


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
    checked = frozenset(stream.manifests)
    return _answer(_lint(view, stream, checked), stream)


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
    checked = frozenset(stream.manifests)
    return _answer(_lint(view, stream, checked), stream, documents.info)
