"""``GET /v1/fleet``: every cluster the token may read, with its InferenceServices counted by
outcome (rules §21); the clusters it may not read are counted, never named."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from app.catalog import get_store
from app.http import cached
from app.http.access import caller, store_errors
from app.http.conditions import NOT_MODIFIED as NOT_MODIFIED_STATUS
from app.http.conditions import if_none_match_status
from app.http.described import NOT_MODIFIED, YAML, answer, described
from app.http.fleet_reads import (
    age_seconds,
    counts_body,
    fleet_etag,
    fleet_outcomes,
    readable_clusters,
)
from app.http.respond import respond, wanted_output
from app.rendering.payloads import rendered
from app.schemas.fleet_answers import FleetSchema
from app.selection.outcome_counts import OUTCOMES, OutcomeCounts

bp = Blueprint("fleet", __name__)


def _summed(counts: list[OutcomeCounts]) -> dict[str, int]:
    totals = dict.fromkeys(("total", *OUTCOMES), 0)
    for each in counts:
        for name, value in counts_body(each).items():
            totals[name] += value
    return totals


@bp.get("/v1/fleet")
@described(
    "fleet",
    "clusters",
    "Every readable cluster's InferenceServices by outcome",
    description="Per cluster the token may read (by name): `generation`, `updatedAt`, "
    "`ageSeconds`, `syncedAt` and `inferenceServices` counted by outcome (rules §21), from the "
    "stored catalog, cached per generation; `notReadable` counts the others. The `ETag` names "
    "the rules version, `notReadable` and every listed cluster's uid, generation and last "
    "sync, not the ages.",
    parameters=("IfNoneMatch",),
    answers={
        200: answer(
            "The fleet.", FleetSchema, ("application/json", YAML), headers=("ETag", "Vary")
        ),
        304: NOT_MODIFIED,
    },
    errors=("Unauthorized", "StoreUnavailable", "LimitExceeded"),
    secured=True,
)
@store_errors
def fleet() -> Response:
    store = get_store()
    readable, hidden = readable_clusters(store, caller())
    synced = store.sync_times()
    tag = fleet_etag(readable, hidden, synced)
    condition = request.headers.get("If-None-Match")
    if if_none_match_status(request.method, condition, tag, 200) == NOT_MODIFIED_STATUS:
        unchanged = Response(status=NOT_MODIFIED_STATUS)
        unchanged.headers["ETag"] = tag
        unchanged.headers["Vary"] = "Accept"  # as its 200 (RFC 9110 §15.4.5); gzip's is added
        return unchanged
    answered = fleet_outcomes(cached.request_session(), store, readable)
    now = store.clock()
    body: dict[str, Any] = {
        "clusters": [
            {
                "name": each.info.name,
                "generation": each.info.generation,
                "updatedAt": each.info.updated_at,
                "ageSeconds": age_seconds(each.info, now),
                "syncedAt": synced.get(each.info.name),
                "inferenceServices": counts_body(each.counts),
            }
            for each in answered
        ],
        "notReadable": hidden,
        "totals": _summed([each.counts for each in answered]),
    }
    response = respond(rendered(body, wanted_output()), vary=True)
    response.headers["ETag"] = fleet_etag([each.info for each in answered], hidden, synced)
    return response
