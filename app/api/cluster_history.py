"""``GET /v1/clusters/{cluster}/history``: what each write did to the cluster's InferenceServices'
outcomes (rules §17.1), newest first, a page at a time. Read scope; ``ETag`` per generation."""

from __future__ import annotations

from flask import Blueprint, Response, request

from app import errors
from app.catalog import get_store
from app.http.access import info_or_404, may_read, not_modified, store_errors
from app.http.described import (
    CATALOG_ERRORS,
    JSON,
    NAMESPACE_SCHEMA,
    NOT_MODIFIED,
    YAML,
    answer,
    described,
    parameter,
)
from app.http.query import NAMESPACE, check_query
from app.http.respond import respond, wanted_output
from app.rendering.payloads import rendered
from app.schemas.history_answers import HistorySchema
from app.schemas.names import subdomain_problem
from app.store.history import DEFAULT_PAGE, MAX_PAGE, HistoryEntry, HistoryQuery

bp = Blueprint("history", __name__)

# The largest integer a query parameter takes (a generation or a seq): SQLite's.
MAX_NUMBER = 2**63 - 1


def _number(name: str, minimum: int, maximum: int = MAX_NUMBER) -> int | None:
    value = request.args.get(name)
    if value is None or value == "":
        return None
    if not (value.isascii() and value.isdigit()) or not minimum <= int(value) <= maximum:
        raise errors.InvalidDocument({name: [f"Must be an integer from {minimum} to {maximum}."]})
    return int(value)


def _query() -> HistoryQuery:
    check_query(NAMESPACE)
    name = request.args.get("name") or None
    if name is not None:
        problem = subdomain_problem(name)
        if problem is not None:
            raise errors.InvalidDocument({"name": [problem]})
    limit = _number("limit", 1, MAX_PAGE)
    return HistoryQuery(
        since=_number("since", 0),
        namespace=request.args.get(NAMESPACE) or None,
        name=name,
        cursor=_number("cursor", 1),
        limit=DEFAULT_PAGE if limit is None else limit,
    )


def entry_body(entry: HistoryEntry) -> dict:
    return {
        "seq": entry.seq,
        "generation": entry.generation,
        "at": entry.at,
        "namespace": entry.namespace,
        "name": entry.name,
        "before": entry.before,
        "after": entry.after,
        "truncated": entry.truncated,
    }


@bp.get("/v1/clusters/<cluster>/history")
@described(
    "clusterHistory",
    "clusters",
    "What each write did to the InferenceServices' outcomes, newest first",
    description="Every InferenceService whose outcome a write of the cluster moved, as the "
    "impact compares them, or added (`before` null) or removed (`after` null); a mark "
    "(`truncated`) for a write whose changes were not worked out. Kept per cluster up to "
    "`OME_RANKER_HISTORY_MAX_CHANGES`, oldest dropped first.",
    parameters=(
        "IfNoneMatch",
        parameter(
            "since",
            "Only the changes of writes after this generation.",
            type="integer",
            minimum=0,
        ),
        parameter(
            "namespace",
            "Only this namespace's InferenceServices (and marks).",
            **NAMESPACE_SCHEMA,
        ),
        parameter(
            "name",
            "Only InferenceServices of this name (and marks).",
            type="string",
            maxLength=253,
        ),
        parameter(
            "limit",
            f"Changes per answer (default {DEFAULT_PAGE}).",
            type="integer",
            minimum=1,
            maximum=MAX_PAGE,
        ),
        parameter(
            "cursor",
            "The `next` of the previous answer: the changes older than it.",
            type="integer",
            minimum=1,
        ),
    ),
    answers={
        200: answer("The changes, newest first.", HistorySchema, (JSON, YAML), headers=("ETag",)),
        304: NOT_MODIFIED,
    },
    errors=(*CATALOG_ERRORS, "InvalidDocument"),
    secured=True,
)
@store_errors
def cluster_history(cluster: str) -> Response:
    may_read(cluster)
    query = _query()
    unchanged = not_modified(info_or_404(cluster))
    if unchanged is not None:
        return unchanged
    page = get_store().read_history(cluster, query)
    if page is None:
        raise errors.ClusterNotFound(cluster)
    body = {
        "cluster": cluster,
        "generation": page.info.generation,
        "count": len(page.entries),
        "changes": [entry_body(entry) for entry in page.entries],
        "next": page.next,
    }
    return respond(rendered(body, wanted_output()), info=page.info)
