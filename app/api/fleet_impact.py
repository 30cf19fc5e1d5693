"""``POST /v1/fleet/impact``: one change against every stored cluster the token may read (rules
§19 "Fleet impact"). Each cluster's part is its own impact's answer, computed by the same path
(app/api/impact.py); the rankings of clusters whose runtimes, classes and settings agree are
computed once for all of them. Nothing is stored."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from app import errors
from app.auth import Token
from app.catalog import get_store
from app.http import deadline
from app.http.access import caller, store_errors
from app.http.described import (
    MANIFESTS,
    NEGOTIATED,
    SETTINGS_PARAMETERS,
    STREAM_ERRORS,
    answer,
    described,
    parameter,
)
from app.http.limits import check_answer, check_rankings
from app.http.respond import respond, wanted_output
from app.rendering.answers import rendered
from app.rendering.encode import counted
from app.rendering.impact_body import fleet_impact_text, message_bytes
from app.schemas.catalog_answers import FleetImpactSchema
from app.selection.questions import SharedAnswers
from app.store import CatalogDocuments
from app.store.records import CLUSTER_NAME

from .impact import DELETE_PARAMETER, catalog_change, change_of_body, deleted_objects, impact_of

bp = Blueprint("fleet_impact", __name__)


def _asked(token: Token) -> tuple[list[str], int]:
    """The clusters to answer for, by name, and how many asked for the token may not read:
    ``?clusters=a,b`` (a name the token may not read counts as not readable whether or not it
    exists, as ``…/clusters/{c}/impact`` answers such a token 403 either way), else every
    stored cluster."""
    given = request.args.get("clusters")
    if given is None:
        names = [info.name for info in get_store().list_infos()]
    else:
        names = sorted({name for name in given.split(",") if name})
        for name in names:
            if not CLUSTER_NAME.match(name):
                raise errors.MalformedRequest(
                    f"?clusters=: {name[:64]!r} is not a cluster name (a DNS-1123 label)"
                )
        if not names:
            raise errors.MalformedRequest("?clusters= names no cluster: write ?clusters=a,b")
    readable = [name for name in names if token.can_read(name)]
    return readable, len(names) - len(readable)


def _catalogs(names: list[str], named: bool) -> list[CatalogDocuments]:
    """Each cluster's documents; one named in ``?clusters=`` that is gone is a 404, as its own
    impact's, one deleted since the list was read is left out."""
    found = []
    for name in names:
        deadline.check()
        documents = get_store().read_documents(name)
        if documents is None:
            if named:
                raise errors.ClusterNotFound(name)
            continue
        found.append(documents)
    return found


def summary(changed: int, in_clusters: int, of_clusters: int, not_readable: int) -> str:
    """``37 InferenceServices would change in 3 of 12 clusters``, and the clusters left out."""
    line = (
        f"{counted(changed, 'InferenceService')} would change in {in_clusters} of "
        f"{counted(of_clusters, 'cluster')}"
    )
    if not_readable:
        line += f"; {counted(not_readable, 'cluster')} not readable"
    return line


@bp.post("/v1/fleet/impact")
@described(
    "impactFleet",
    "predict",
    "What applying the manifests would move, in every cluster the token may read",
    description="`POST /v1/clusters/{cluster}/impact`'s question asked of every stored cluster "
    "the token may read (or those of `?clusters=`): each one's `checked`, `count` and "
    "`changes` as its own impact answers them, by cluster name, with `summary`, the totals, "
    "and `notReadable` (clusters left out, never named). The work of every cluster counts "
    "against the request's bounds and deadline; clusters whose runtimes, AcceleratorClasses "
    "and settings agree share their rankings. Nothing is stored. `text/plain`: `CLUSTER "
    "NAMESPACE INFERENCESERVICE MODEL BEFORE AFTER MESSAGE`.",
    parameters=(
        parameter(
            "clusters",
            "Only these clusters, comma-separated; a name the token may not read (stored or "
            "not) is counted in `notReadable`; one it may read that is not stored is a 404.",
        ),
        DELETE_PARAMETER,
        *SETTINGS_PARAMETERS,
    ),
    body=MANIFESTS,
    answers={200: answer("The changes.", FleetImpactSchema, NEGOTIATED, headers=("Vary",))},
    errors=(*STREAM_ERRORS, "Unauthorized", "ClusterNotFound", "StoreUnavailable"),
    secured=True,
)
@store_errors
def impact_fleet() -> Response:
    token = caller()
    deleted = deleted_objects()
    names, not_readable = _asked(token)
    catalogs = _catalogs(names, "clusters" in request.args)
    stream = change_of_body()
    shared = SharedAnswers()
    sides = []
    for documents in catalogs:
        deadline.check()
        before, after = catalog_change(documents, stream, deleted)
        for side in (before, after):
            shared.plan(side)
        sides.append((documents.info, before, after))
    # rules §17 "Bounded work": the fleet's work is one request's, shared questions once.
    check_rankings(*shared.planned(), placements=shared.planned_placements())
    clusters: list[dict[str, Any]] = []
    for info, before, after in sides:
        compared, found = impact_of(before, after, shared)
        clusters.append(
            {
                "cluster": info.name,
                "generation": info.generation,
                "checked": compared,
                "count": len(found),
                "changes": found,
            }
        )
    changes = [change for cluster in clusters for change in cluster["changes"]]
    check_answer(len(changes), message_bytes(changes))
    changed = sum(1 for cluster in clusters if cluster["count"])
    body = {
        "summary": summary(len(changes), changed, len(clusters), not_readable),
        "checked": sum(cluster["checked"] for cluster in clusters),
        "count": len(changes),
        "clusters": clusters,
        "notReadable": not_readable,
    }
    return respond(rendered(body, wanted_output(), lambda: fleet_impact_text(clusters)), vary=True)
