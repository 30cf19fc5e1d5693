"""``POST /v1/impact`` and ``POST /v1/clusters/{cluster}/impact``: the InferenceServices a change
would move to another runtime, or to none (rules §19). Nothing is stored."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from app import errors
from app.http import deadline
from app.http.access import (
    documents_or_404,
    may_read,
    stateless_access,
    store_errors,
)
from app.http.body import one_document
from app.http.described import (
    CATALOG_ERRORS,
    MANIFESTS,
    NEGOTIATED,
    ONE_DOCUMENT,
    SETTINGS_PARAMETERS,
    STREAM_ERRORS,
    answer,
    body,
    described,
    parameter,
)
from app.http.limits import (
    check_answer,
    check_body_runtimes,
    check_rankings,
    objects_within_bounds,
)
from app.http.query import read_with_query
from app.http.respond import respond, wanted_output
from app.reading.object_streams import ObjectStream, objects_in
from app.rendering.answers import rendered
from app.rendering.impact_body import changes, impact_text, message_bytes
from app.schemas.catalog_answers import ImpactRequestSchema, ImpactSchema
from app.selection.questions import SharedAnswers, planned_placements, planned_rankings
from app.selection.questions import selections as selections_of
from app.selection.values import CLUSTER_SCOPED_KINDS, CatalogView, ObjectKey
from app.store import CatalogDocuments, ClusterInfo

bp = Blueprint("impact", __name__)
bp.before_request(stateless_access)


# ``?delete=``'s values, as JSON Schema writes what ``deleted_objects`` takes.
DELETED_PATTERN = f"^({'|'.join(sorted(CLUSTER_SCOPED_KINDS))})/[^/]+$|^[^/]+/[^/]+/[^/]+$"

DELETE_PARAMETER = parameter(
    "delete",
    "`<kind>/<namespace>/<name>` (`<kind>/<name>` for cluster-scoped kinds) the change "
    "deletes; repeatable.",
    type="array",
    items={"type": "string", "pattern": DELETED_PATTERN},
)


def deleted_objects() -> frozenset[ObjectKey]:
    """``?delete=<kind>/<namespace>/<name>`` (``<kind>/<name>`` for cluster-scoped kinds); no
    part empty."""
    found = set()
    for value in request.args.getlist("delete"):
        parts = value.split("/")
        if len(parts) == 2 and parts[0] in CLUSTER_SCOPED_KINDS and parts[1]:
            found.add((parts[0], "", parts[1]))
        elif len(parts) == 3 and all(parts):
            # A cluster-scoped kind has no namespace: one given is ignored, as kubectl does.
            namespace = "" if parts[0] in CLUSTER_SCOPED_KINDS else parts[1]
            found.add((parts[0], namespace, parts[2]))
        else:
            raise errors.MalformedRequest(
                f"?delete={value!r}: write <kind>/<namespace>/<name>, or <kind>/<name> for "
                "ClusterServingRuntime, ClusterBaseModel and AcceleratorClass"
            )
    return frozenset(found)


def impact_of(
    before: CatalogView, after: CatalogView, shared: SharedAnswers | None = None
) -> tuple[int, list[dict]]:
    """(InferenceServices compared, the changes) from ``before`` to ``after``: the one path of
    every impact, of one cluster or of a fleet (``shared`` across its clusters)."""
    return changes(selections_of(before, shared=shared), selections_of(after, shared=shared))


def catalog_change(
    documents: CatalogDocuments, stream: ObjectStream, deleted: frozenset[ObjectKey]
) -> tuple[CatalogView, CatalogView]:
    """A stored catalog read with the query's settings, and the same with the change laid over
    it."""
    stored = read_with_query(documents.view(), documents.info.settings)
    return stored, stored.laid_over(stream.documents(), deleted)


def change_of_body() -> ObjectStream:
    """The objects of the change a catalog's impact takes, valid and within bounds."""
    stream = objects_within_bounds()
    stream.refuse_invalid()
    deadline.check()
    return stream


def _answer(before: CatalogView, after: CatalogView, info: ClusterInfo | None = None):
    """Both sides' selections, refused up front when together they are over the bound."""
    check_rankings(
        *((planned_rankings(side), len(side.runtimes)) for side in (before, after)),
        placements=planned_placements(before) + planned_placements(after),
    )
    compared, found = impact_of(before, after)
    check_answer(len(found), message_bytes(found))
    body = {"checked": compared, "count": len(found), "changes": found}
    return respond(
        rendered(body, wanted_output(), lambda: impact_text(found)), info=info, vary=True
    )


@bp.post("/v1/clusters/<cluster>/impact")
@described(
    "impactCluster",
    "predict",
    "The stored InferenceServices that applying the manifests would move",
    description="`checked` InferenceServices, `count` and `changes`: every InferenceService "
    "whose `/v1/select` answer the change moves (status, body or `placement`); nothing stored. "
    "`text/plain`: `NAMESPACE INFERENCESERVICE MODEL BEFORE AFTER MESSAGE`.",
    parameters=(DELETE_PARAMETER, *SETTINGS_PARAMETERS),
    body=MANIFESTS,
    answers={200: answer("The changes.", ImpactSchema, NEGOTIATED, headers=("ETag", "Vary"))},
    errors=(*CATALOG_ERRORS, *STREAM_ERRORS),
    secured=True,
)
@store_errors
def impact_cluster(cluster: str) -> Response:
    may_read(cluster)
    deleted = deleted_objects()
    documents = documents_or_404(cluster)
    stream = change_of_body()
    return _answer(*catalog_change(documents, stream, deleted), documents.info)


@bp.post("/v1/impact")
@described(
    "impact",
    "predict",
    "The InferenceServices a change from `current` to `proposed` moves",
    description="`checked` InferenceServices, `count` and `changes`: every InferenceService "
    "whose `/v1/select` answer the change moves (status, body or `placement`); nothing stored. "
    "`text/plain`: `NAMESPACE INFERENCESERVICE MODEL BEFORE AFTER MESSAGE`.",
    parameters=SETTINGS_PARAMETERS,
    body=body(
        "The manifests of both sides, as JSON or YAML (one document).",
        ImpactRequestSchema,
        media=ONE_DOCUMENT,
    ),
    answers={200: answer("The changes.", ImpactSchema, NEGOTIATED, headers=("Vary",))},
    errors=STREAM_ERRORS,
)
def impact() -> Response:
    """``{"current": [...], "proposed": [...]}``: two streams of manifests."""
    body = one_document()
    if not isinstance(body, dict) or set(body) - {"current", "proposed"}:
        raise errors.MalformedRequest('send {"current": [manifests], "proposed": [manifests]}')
    limit = current_app.config["MAX_OBJECTS_PER_CLUSTER"]
    sides = []
    for side in ("current", "proposed"):
        documents = body.get(side)
        if documents is None:  # absent, or null: absent too
            documents = []
        if not isinstance(documents, list):
            raise errors.MalformedRequest(f"{side} must be an array of manifests")
        stream = objects_in(documents, side, 0, limit)
        stream.refuse_invalid()
        check_body_runtimes(stream)
        sides.append(stream)
    deadline.check()
    before, after = (read_with_query(CatalogView.of(stream.documents())) for stream in sides)
    return _answer(before, after)
