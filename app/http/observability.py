"""Per-request observability: the request id, one JSON log line per request, the metrics.

The views leave what they learnt in the request's record (app/http/record.py: runtimes counted,
selection time, the ranking, the cache's result, the error code, the token's name); this module
reads it once the response exists, so the views stay free of logging and metrics calls.
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from flask import Flask, Response, current_app, request

from app.logs import configure_logging
from app.metrics import ServiceMetrics, multiprocess_dir

from . import record

REQUEST_ID_HEADER = "X-Request-ID"
REQUEST_ID_MAX_LENGTH = 128
# Visible ASCII only, bounded: the id goes into every log line and back into a response header.
REQUEST_ID = re.compile(rf"[!-~]{{1,{REQUEST_ID_MAX_LENGTH}}}\Z")
# Probes and scrapes arrive every few seconds from every load balancer and Prometheus: their
# lines are DEBUG, so the INFO log holds the traffic that matters.
QUIET_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
METRICS_EXTENSION = "metrics"

access_log = logging.getLogger("app.access")
ranking_log = logging.getLogger("app.ranking")


def request_id_from(header: str | None) -> str:
    """The caller's id when it is safe to log and echo, else a new one."""
    if header is not None and REQUEST_ID.match(header):
        return header
    return uuid.uuid4().hex


def init_app(app: Flask) -> ServiceMetrics:
    configure_logging(app.config["LOG_LEVEL"])
    metrics = ServiceMetrics(multiprocess_dir())
    app.extensions[METRICS_EXTENSION] = metrics
    app.before_request(_start_request)
    app.after_request(_finish_request)
    return metrics


def service_metrics(app: Flask) -> ServiceMetrics:
    return app.extensions[METRICS_EXTENSION]


def sync_cache_metrics(app: Flask) -> None:
    cache = app.extensions.get("ranking_cache")
    if cache is not None:
        metrics = service_metrics(app)
        metrics.sync_cache(cache.stats())
        metrics.observe_cache_bytes(cache.held_bytes())


def _start_request() -> None:
    record.begin().request_id = request_id_from(request.headers.get(REQUEST_ID_HEADER))


def _finish_request(response: Response) -> Response:
    seen = record.this_request()
    if seen.request_id is None:  # an earlier before_request answered before ours ran
        seen.request_id = request_id_from(request.headers.get(REQUEST_ID_HEADER))
    response.headers[REQUEST_ID_HEADER] = seen.request_id
    endpoint = request.url_rule.rule if request.url_rule is not None else None
    finish(
        current_app,
        seen,
        method=request.method,
        path=request.path,
        endpoint=endpoint,
        status=response.status_code,
        remote_addr=request.remote_addr,
    )
    return response


def finish(
    app: Flask,
    seen: record.RequestRecord,
    *,
    method: str,
    path: str,
    endpoint: str | None,
    status: int,
    remote_addr: str | None,
) -> None:
    """A request's metrics and log lines, from its record (also for the polls answered before
    Flask, app/http/polls.py)."""
    seconds = time.perf_counter() - seen.started
    metrics = service_metrics(app)
    metrics.observe_request(endpoint, method, status, seconds)
    runtime_count, selection_seconds = seen.runtime_count, seen.selection_seconds
    if endpoint is not None and runtime_count is not None:
        metrics.observe_runtimes(endpoint, runtime_count)
    if endpoint is not None and selection_seconds is not None:
        metrics.observe_selection(endpoint, selection_seconds)
    sync_cache_metrics(app)

    ranking = seen.ranking
    if ranking is not None and ranking.selected is not None:
        chosen = ranking.selected
        ranking_log.info(
            "Selected runtime",
            extra={
                "fields": {
                    "runtime": chosen.name,
                    "isCluster": chosen.scope == "Cluster",
                    "score": chosen.score,
                    "explicit": chosen.explicit,
                    "model": ranking.model.name,
                    "namespace": ranking.namespace,
                }
            },
        )
    access_log.log(
        logging.DEBUG if path in QUIET_PATHS else logging.INFO,
        "request",
        extra={
            "fields": {
                "method": method,
                "path": path,
                "status": status,
                "durationMs": round(seconds * 1000, 3),
                "cache": seen.cache_result,
                "runtimes": runtime_count,
                "error": seen.error_code,
                "token": seen.token_name,
                "remoteAddr": remote_addr,
                # Named here, not found by the formatter: a poll has no Flask request.
                "requestId": seen.request_id,
            }
        },
    )
