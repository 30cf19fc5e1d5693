"""Endpoints for whoever runs the service: ``/healthz``, ``/readyz`` and ``/metrics``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, request

from app.http.described import TEXT, answer, described
from app.http.observability import service_metrics, sync_cache_metrics
from app.rendering.encode import to_json
from app.schemas.api import HealthSchema, ReadinessSchema
from app.version import __version__
from config.settings import DRAINING_ENVIRON_KEY

bp = Blueprint("operations", __name__)

health_schema = HealthSchema()
readiness_schema = ReadinessSchema()


def _uncached(payload: bytes, content_type: str, status: int = 200) -> Response:
    response = Response(payload, status=status, content_type=content_type)
    response.headers["Cache-Control"] = "no-store"
    return response


def cache_readiness() -> dict[str, Any] | None:
    """The ranking cache's backend and whether it answers now.

    One guarded round trip, bounded by ``OME_RANKER_REDIS_TIMEOUT`` and skipped while the
    breaker is open, so that a Redis that died while no request came is reported down too.
    """
    cache = current_app.extensions.get("ranking_cache")
    if cache is None:
        return None
    reachable = cache.ping()
    return {"backend": cache.describe()["backend"], "state": "up" if reachable else "down"}


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
    "Readiness: the service can answer rankings",
    description="Reports the ranking cache's backend and state. Stays 200 with the cache `down`: "
    "the cache is an accelerator, never a dependency.",
    answers={
        200: answer("Ready.", ReadinessSchema),
        503: answer(
            "Draining: the worker got SIGTERM and answers only what it still gets.",
            ReadinessSchema,
        ),
    },
)
def readyz() -> Response:
    """Readiness: 200 whenever the app is built, Redis up or not (rules §16: the cache is an
    accelerator, never a dependency); the body says how the cache is doing.

    503 ``{"status": "draining"}`` once the worker got SIGTERM: it keeps answering for
    ``OME_RANKER_DRAIN_SECONDS``, so load balancers take it out of rotation before it stops
    accepting connections.
    """
    if request.environ.get(DRAINING_ENVIRON_KEY):
        body = readiness_schema.dump({"status": "draining", "cache": cache_readiness()})
        return _uncached(to_json(body), "application/json", status=503)
    body = readiness_schema.dump({"status": "ready", "cache": cache_readiness()})
    return _uncached(to_json(body), "application/json")


@bp.get("/metrics")
@described(
    "metrics",
    "operations",
    "Prometheus metrics",
    description="Prometheus text exposition format 0.0.4, summed over every gunicorn worker.",
    answers={200: answer("The metrics.", media=(TEXT,))},
)
def metrics() -> Response:
    sync_cache_metrics(current_app)
    payload, content_type = service_metrics(current_app).exposition()
    return _uncached(payload, content_type)
