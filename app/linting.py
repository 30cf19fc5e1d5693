"""Lint without HTTP (rules §18): a stream's objects judged as ``kubectl apply`` would judge them,
and the answer ``POST /v1/lint`` gives, in functions that need no Flask. The views
(``app/api/lint.py``) wrap them with the service's bounds of work; the command line answers its
local ``lint`` with ``local_answer``, bounded by the files it reads instead (docs/cli.md "Local
runs"), without loading Flask, the cache or the stores' backends."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from app.errors import ApiError
from app.reading.finding_places import Place, finding_places
from app.reading.object_streams import ObjectStream, read_objects
from app.rendering.answers import Answer, error_answer, ignored_body, rendered
from app.rendering.lint_body import NOWHERE, Where, finding_body, lint_text
from app.schemas import crd
from app.schemas.query_settings import provider_refusal, query_settings
from app.selection.admission import Admission, Finding, Refusal, admit, planned_admission_rankings
from app.selection.values import ACCELERATOR_CLASS, CatalogView, ObjectKey, Runtime, classes_known

# Called with the rankings an admission will compute and the runtimes each reads, before it
# starts: the service refuses work over its bounds there (app/http/limits.py).
WorkCheck = Callable[[int, int], None]


def admission(
    view: CatalogView,
    stream: ObjectStream,
    checked: frozenset[ObjectKey],
    check_work: WorkCheck | None = None,
) -> Admission:
    """What applying ``checked`` (the stream's objects) to the cluster ``view`` would answer."""
    full_runners = frozenset(stream.full_runners)
    if check_work is not None:
        planned = planned_admission_rankings(
            view, checked=checked, full_runners=full_runners, apart=stream.apart
        )
        apart_runtimes = sum(isinstance(document, Runtime) for document in stream.apart)
        check_work(planned, len(view.runtimes) + apart_runtimes)
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


def _where(place: Place | None) -> Where:
    if place is None:
        return NOWHERE
    if place.position is None:
        return (place.document, None, None)
    return (place.document, place.position.line, place.position.column)


def answer(admission: Admission, stream: ObjectStream, output: str) -> Answer:
    """The answer in ``output`` (``app.rendering.payloads``' JSON, text or YAML): each finding
    with where it is in the body (its document, and the line and column of its field)."""
    reported = (*admission.findings, *admission.suppressed)
    places = finding_places(stream.body, stream.labels, reported)
    body = {
        "admitted": admission.admitted,
        "counts": admission.counts(),
        "findings": [finding_body(f, _where(places.get(f))) for f in admission.findings],
        "suppressed": [finding_body(f, _where(places.get(f))) for f in admission.suppressed],
        "ignored": ignored_body(stream.others),
        "warnings": stream.warnings,
    }
    return rendered(body, output, lambda: lint_text(admission))


def local_answer(
    raw: bytes, mimetype: str, query: Sequence[tuple[str, str]], output: str
) -> Answer:
    """``POST /v1/lint``'s answer to a body of ``mimetype`` with ``query``, status and bytes, as
    the service gives it, but bounded by the body alone: no limit on its size, its objects, its
    rankings or its answer, and no deadline. What the readers bound in every body stays bounded
    (a YAML stream's nodes and aliases, nesting, a string's length). Its errors are answers
    (4xx), as the service's are."""
    first: dict[str, str] = {}  # a parameter given twice is read as its first value
    for name, value in query:
        first.setdefault(name, value)
    try:
        stream = read_objects(raw, mimetype, strict=True)  # the body first, as the view reads it
        refusal = provider_refusal(value for name, value in query if name == "modelCacheProvider")
        if refusal is not None:
            raise refusal
        view = replace(CatalogView.of(stream.documents()), **query_settings(first))
        return answer(admission(view, stream, frozenset(stream.manifests)), stream, output)
    except ApiError as error:
        return error_answer(error)
