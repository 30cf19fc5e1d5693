"""What ``/readyz`` answers: the state of the token file, the catalog store and the cache, read
without waiting on any of them for longer than ``PROBE_WAIT_SECONDS`` (app/health.py).

Not ready (503 ``degraded``) is for what only a fix ends, and what an instance without the
mistake does not share (the previous ReplicaSet keeps serving while a rollout that carries it
stops at its first pod):

* the token file no longer parses: the tokens in force are the last good ones, not what the
  file says, so a token the edit meant to revoke may still be honoured (rules §17 "Tokens");
* the store refuses this service: wrong credentials, a file it cannot open or write.

A store that does not answer is named (``down``) but keeps the instance ready: every replica
shares it, so taking them all out of the Service would stop the stateless endpoints too,
which rules §17 keeps working (catalog requests are 503 ``StoreUnavailable`` at once
meanwhile). A cache that is down never makes it unready either (rules §16).
"""

from __future__ import annotations

import time
from typing import Any

from flask import Flask

from app.cache import get_ranking_cache
from app.catalog import get_store, tokens_status
from app.health import CHECK_INTERVAL_SECONDS, BackgroundCheck
from app.store.guard import REFUSED, UNKNOWN, UP, StoreHealth

from .observability import service_metrics

# Kubernetes' probe timeout is 1 s by default: a probe waits this long at most for the checks
# under way, then answers with the last results.
PROBE_WAIT_SECONDS = 0.2
STORE_CHECK_EXTENSION = "store_check"
CACHE_CHECK_EXTENSION = "cache_check"


def init_app(app: Flask) -> None:
    """The background checks of the store, and of the cache when it is Redis (the in-process
    one is always up). Nothing runs before the first probe; the token file's gauges start from
    what start-up read."""
    app.extensions[STORE_CHECK_EXTENSION] = BackgroundCheck(
        "catalog store check", get_store(app).check, interval=CHECK_INTERVAL_SECONDS
    )
    cache = app.extensions.get("ranking_cache")
    if cache is not None and cache.backend.name != "memory":
        app.extensions[CACHE_CHECK_EXTENSION] = BackgroundCheck(
            "cache check", cache.ping, interval=CHECK_INTERVAL_SECONDS
        )
    tokens = tokens_status(app)  # read at start-up: the gauges hold it before any probe
    if tokens is not None:
        service_metrics(app).observe_tokens(tokens.tokens, tokens.problem is None)


def readiness(app: Flask, *, draining: bool) -> tuple[int, dict[str, Any]]:
    """The status code and body of ``/readyz``; sets the gauges of what it read."""
    until = time.monotonic() + PROBE_WAIT_SECONDS
    checks = [app.extensions.get(name) for name in (STORE_CHECK_EXTENSION, CACHE_CHECK_EXTENSION)]
    for check in checks:
        if check is not None:
            check.start()  # both under way before either is waited for
    tokens = tokens_status(app)
    store = _store(app, until)
    metrics = service_metrics(app)
    if tokens is not None:
        metrics.observe_tokens(tokens.tokens, tokens.problem is None)
    if store.state != UNKNOWN:
        metrics.observe_store(store.state == UP)
    body = {
        "cache": _cache(app, until),
        "store": {"backend": store.backend, "state": store.state, "reason": store.reason},
        "tokens": None if tokens is None else tokens.problem,
    }
    if draining:
        return 503, {"status": "draining", **body}
    if body["tokens"] is not None or store.state == REFUSED:
        return 503, {"status": "degraded", **body}
    return 200, {"status": "ready", **body}


def _store(app: Flask, until: float) -> StoreHealth:
    check: BackgroundCheck[StoreHealth] = app.extensions[STORE_CHECK_EXTENSION]
    found = check.latest(_left(until))
    return found or StoreHealth(get_store(app).backend, UNKNOWN, "no check has ended yet")


def _cache(app: Flask, until: float) -> dict[str, str] | None:
    """The ranking cache's backend and whether it answered its last check; before the first
    one ends, its breaker's state."""
    cache = app.extensions.get("ranking_cache")
    if cache is None:
        return None
    check: BackgroundCheck[bool] | None = app.extensions.get(CACHE_CHECK_EXTENSION)
    answered = None if check is None else check.latest(_left(until))
    described = get_ranking_cache(app).describe()
    state = described["state"] if answered is None else "up" if answered else "down"
    return {"backend": described["backend"], "state": state}


def _left(until: float) -> float:
    return max(0.0, until - time.monotonic())
