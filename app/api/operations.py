"""Endpoints for whoever runs the service: ``/healthz``, ``/readyz`` and ``/metrics``."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from app.cache import EXTENSION_NAME
from app.catalog import get_store
from app.http.described import TEXT, answer, described
from app.http.fleet_reads import bounded_outcomes, seconds, timestamp
from app.http.observability import service_metrics, sync_cache_metrics
from app.http.readiness import readiness
from app.metrics import CatalogFigures, DomainFigures
from app.rendering.encode import to_json
from app.schemas.rank_answers import HealthSchema, ReadinessSchema
from app.store import StoreError
from app.version import __version__
from config.settings import DRAINING_ENVIRON_KEY, OPS_LISTENER_ENVIRON_KEY

bp = Blueprint("operations", __name__)

health_schema = HealthSchema()
readiness_schema = ReadinessSchema()


def _uncached(payload: bytes, content_type: str, status: int = 200) -> Response:
    response = Response(payload, status=status, content_type=content_type)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
@described(
    "liveness",
    "operations",
    "Liveness: the process answers",
    description="Checks nothing else, so a Redis outage never gets the process restarted.",
    answers={200: answer("Alive.", HealthSchema)},
)
def healthz() -> Response:
    """Liveness: answers while the process does; checks no dependency, so that an outage of
    Redis never gets healthy workers restarted."""
    body = health_schema.dump({"status": "ok", "version": __version__})
    return _uncached(to_json(body), "application/json")


@bp.get("/readyz")
@described(
    "readiness",
    "operations",
    "Readiness: the service should take requests",
    description="Reports the token file, the catalog store and the ranking cache, from checks "
    "made in the background: it answers within 0.2 s whatever they do. 503 `degraded` when "
    "this instance needs a fix before it takes requests: the token file no longer parses "
    "(`tokens` says why; the last good tokens stay in force), or the store refuses this "
    "service (`store.state` `refused`: wrong credentials, a file it cannot open or write). "
    "A store `down` (not answering) and a cache `down` leave it 200: every replica shares "
    "them, and the stateless endpoints work without them.",
    answers={
        200: answer("Ready.", ReadinessSchema),
        503: answer(
            "Degraded (see above), or draining: the worker got SIGTERM and answers only what it "
            "still gets.",
            ReadinessSchema,
        ),
    },
)
def readyz() -> Response:
    """Readiness (app/http/readiness.py): never waits on a dependency for longer than a
    fraction of a second, so that a hung Redis fails no probe by its slowness alone.

    503 ``{"status": "draining"}`` once the worker got SIGTERM: it keeps answering for
    ``OME_RANKER_DRAIN_SECONDS``, so load balancers take it out of rotation before it stops
    accepting connections.
    """
    draining = bool(request.environ.get(DRAINING_ENVIRON_KEY))
    status, body = readiness(current_app, draining=draining)
    return _uncached(to_json(readiness_schema.dump(body)), "application/json", status=status)


@bp.get("/metrics")
@described(
    "metrics",
    "operations",
    "Prometheus metrics",
    description="Prometheus text exposition format 0.0.4, summed over every gunicorn worker; "
    "the gauges about the catalogs are made at scrape time from the store.",
    answers={200: answer("The metrics.", media=(TEXT,))},
)
def metrics() -> Response:
    sync_cache_metrics(current_app)
    payload, content_type = service_metrics(current_app).exposition(_domain())
    return _uncached(payload, content_type)


def _domain() -> DomainFigures:
    """The domain's gauges (rules §21): every stored catalog, whoever may read it (the metrics
    are the operator's: docs/operations.md), where /metrics is the operator's alone: on the
    operations listener, or with access control off. On the API's listener with tokens in force
    anyone who reaches the API reaches /metrics, and a cluster a token may not read is never
    named (rules §17 *Access*): the version alone. A store that does not answer leaves the
    catalogs' out; ``ome_ranker_store_up`` says why."""
    open_access = current_app.config.get("AUTH_MODE") == "none"
    if not open_access and not request.environ.get(OPS_LISTENER_ENVIRON_KEY):
        return DomainFigures(__version__)
    # Without the cache (an app whose cache failed to start) nothing is counted: a scrape
    # recounting every catalog each time would cost what the cache is there to save.
    cache = current_app.extensions.get(EXTENSION_NAME)
    session = None if cache is None else cache.session(counted=False)  # it serves no answer
    try:
        store = get_store()
        scraped = bounded_outcomes(session, store, store.list_infos())
        changes = store.history_counts()
        synced = store.sync_times()
    except StoreError:
        return DomainFigures(__version__)
    return DomainFigures(
        __version__,
        tuple(
            CatalogFigures(
                info.name,
                timestamp(info),
                None if counts is None else counts.by_outcome(),
                changes.get(info.name),
                None if info.name not in synced else seconds(synced[info.name]),
            )
            for info, counts in scraped
        ),
    )
