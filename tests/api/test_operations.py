"""/healthz, /readyz and /metrics."""

from __future__ import annotations

import pytest

from app.cache import get_ranking_cache
from app.cache.framing import CorruptEntry
from app.errors import DeadlineExceeded
from app.http import deadline
from app.rendering.answers import Answer
from app.selection.values import budget
from app.version import __version__
from config.settings import DRAINING_ENVIRON_KEY
from tests.api.support import metric_samples, readyz, value
from tests.clock import ManualClock
from tests.paths import SEED_YAML

YAML = {"Content-Type": "application/yaml"}


def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "version": __version__}
    assert response.headers["Cache-Control"] == "no-store"


SQLITE_UP = {"backend": "sqlite", "state": "up", "reason": None}


def test_readyz_with_the_in_process_cache(client):
    assert readyz(client) == (
        200,
        {
            "status": "ready",
            "cache": {"backend": "memory", "state": "up"},
            "store": SQLITE_UP,
            "tokens": None,
        },
    )


def test_readyz_stays_200_and_reports_a_dead_redis(make_app, dead_redis_port):
    app = make_app(REDIS_URL=f"redis://127.0.0.1:{dead_redis_port}/0")
    client = app.test_client()
    status, body = readyz(client, until=lambda body: body["store"]["state"] == "down")
    assert status == 200
    assert body == {
        "status": "ready",
        "cache": {"backend": "redis", "state": "down"},
        "store": {
            "backend": "redis",
            "state": "down",
            "reason": "Redis cannot be reached (ConnectionError)",
        },
        "tokens": None,
    }
    # ... and the service still answers, uncached, counting the cache's failures.
    assert client.post("/v1/rank", data=SEED_YAML, headers=YAML).status_code == 200
    assert value(metric_samples(client), "ome_ranker_cache_errors_total") >= 2
    assert value(metric_samples(client), "ome_ranker_store_up") == 0


def test_readyz_with_a_live_redis(redis_app):
    client = redis_app.test_client()
    status, body = readyz(client, until=lambda body: body["cache"]["state"] == "up")
    assert status == 200
    assert body["cache"] == {"backend": "redis", "state": "up"}
    assert body["store"] == {"backend": "redis", "state": "up", "reason": None}
    assert value(metric_samples(client), "ome_ranker_store_up") == 1


def test_readyz_without_a_cache(app, client, monkeypatch):
    monkeypatch.delitem(app.extensions, "ranking_cache")
    assert readyz(client) == (
        200,
        {"status": "ready", "cache": None, "store": SQLITE_UP, "tokens": None},
    )
    assert client.get("/metrics").status_code == 200


def test_metrics_move_as_requests_are_made(client):
    before = metric_samples(client)
    for _ in range(2):
        assert client.post("/v1/rank", data=SEED_YAML, headers=YAML).status_code == 200
    assert client.post("/v1/select", json={"model": {}, "runtimes": []}).status_code == 422
    assert client.get("/no/such/path").status_code == 404
    assert client.open("/healthz", method="BREW").status_code == 405
    after = metric_samples(client)

    def moved(name: str, **labels) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    rank_ok = {"endpoint": "/v1/rank", "method": "POST", "status": "200"}
    assert moved("ome_ranker_http_requests_total", **rank_ok) == 2
    assert moved("ome_ranker_http_request_duration_seconds_count", **rank_ok) == 2
    assert moved("ome_ranker_http_request_duration_seconds_sum", **rank_ok) > 0
    assert (
        moved("ome_ranker_http_requests_total", endpoint="/v1/select", method="POST", status="422")
        == 1
    )
    assert (
        moved("ome_ranker_http_requests_total", endpoint="unmatched", method="GET", status="404")
        == 1
    )
    # No rule matched BREW either: a 405 counts as unmatched too, with the method bounded.
    assert (
        moved("ome_ranker_http_requests_total", endpoint="unmatched", method="other", status="405")
        == 1
    )
    # The first ranking is computed (a miss), the second comes from the cache.
    assert moved("ome_ranker_cache_misses_total") == 1
    assert moved("ome_ranker_cache_hits_total") == 1
    assert moved("ome_ranker_request_runtimes_count", endpoint="/v1/rank") == 1
    assert moved("ome_ranker_request_runtimes_sum", endpoint="/v1/rank") == 4
    assert moved("ome_ranker_request_runtimes_bucket", endpoint="/v1/rank", le="4.0") == 1
    assert moved("ome_ranker_selection_duration_seconds_count", endpoint="/v1/rank") == 1


def test_metrics_of_two_apps_are_separate(make_app):
    first, second = make_app().test_client(), make_app().test_client()
    first.get("/healthz")
    labels = {"endpoint": "/healthz", "method": "GET", "status": "200"}
    assert value(metric_samples(first), "ome_ranker_http_requests_total", **labels) == 1
    assert value(metric_samples(second), "ome_ranker_http_requests_total", **labels) == 0


def test_readyz_while_the_worker_drains(client):
    """The worker (app/worker/) marks each request while it drains after SIGTERM."""
    readyz(client)  # the store's first check has ended
    response = client.get("/readyz", environ_overrides={DRAINING_ENVIRON_KEY: True})
    assert response.status_code == 503
    assert response.headers["Cache-Control"] == "no-store"
    assert response.get_json() == {
        "status": "draining",
        "cache": {"backend": "memory", "state": "up"},
        "store": SQLITE_UP,
        "tokens": None,
    }
    # Everything else is answered as usual meanwhile.
    draining = {DRAINING_ENVIRON_KEY: True}
    assert client.get("/healthz", environ_overrides=draining).status_code == 200
    ranked = client.post("/v1/rank", data=SEED_YAML, headers=YAML, environ_overrides=draining)
    assert ranked.status_code == 200
    assert client.get("/readyz", environ_overrides={DRAINING_ENVIRON_KEY: False}).status_code == 200


def test_a_request_past_its_deadline_is_a_json_503(make_app):
    client = make_app(REQUEST_DEADLINE_SECONDS=0).test_client()
    response = client.post("/v1/rank", data=b"{" * 10 + b"x" * (3 * 1024 * 1024), headers=YAML)
    assert response.status_code == 503
    assert response.get_json()["error"] == {
        "code": "DeadlineExceeded",
        "message": "the request took longer than this service's deadline (0 s); try again later",
    }
    assert response.headers["Content-Type"] == "application/json"
    # Probes never check a deadline.
    assert client.get("/healthz").status_code == 200
    assert (
        value(
            metric_samples(client),
            "ome_ranker_http_requests_total",
            endpoint="/v1/rank",
            method="POST",
            status="503",
        )
        == 1
    )


def test_deadline_check_in_a_long_loop(app, monkeypatch):
    """How code in a long loop uses it; outside a request it never raises."""
    clock = ManualClock()
    monkeypatch.setattr(budget, "time", clock)
    deadline.check()
    with app.test_request_context():
        deadline.start(0.05)
        deadline.check()
        clock.advance(0.04)
        assert deadline.remaining() == pytest.approx(0.01)
        deadline.check()
        clock.advance(0.02)
        with pytest.raises(DeadlineExceeded, match=r"\(0.05 s\)"):
            for _ in range(3):
                deadline.check()
        deadline.clear()
        deadline.check()
        assert deadline.remaining() is None


def test_each_request_gets_its_own_deadline(make_app):
    app = make_app(REQUEST_DEADLINE_SECONDS=7)
    seen = []

    @app.get("/deadline-probe")
    def deadline_probe():
        seen.append(deadline.remaining())
        return "ok"

    client = app.test_client()
    client.get("/deadline-probe")
    client.get("/deadline-probe")
    assert all(6.5 < left <= 7 for left in seen) and len(seen) == 2
    assert deadline.remaining() is None  # cleared after each request


def test_without_a_cache_secret_an_app_signs_with_its_own_key(make_app, redis_url, caplog):
    first = make_app(REDIS_URL=redis_url, CACHE_SECRET=None)
    second = make_app(REDIS_URL=redis_url, CACHE_SECRET=None)
    assert "OME_RANKER_CACHE_SECRET is unset" in caplog.text
    frame = get_ranking_cache(first).backend.codec.encode(Answer(200, "a/b", b"{}"), "k")
    with pytest.raises(CorruptEntry):
        get_ranking_cache(second).backend.codec.decode(frame, "k")


def test_metrics_show_the_bytes_each_cache_layer_holds(make_app):
    app = make_app()
    client = app.test_client()
    empty = metric_samples(client)
    assert value(empty, "ome_ranker_cache_bytes", layer="local") == 0
    client.post("/v1/rank", data=SEED_YAML, headers=YAML)
    samples = metric_samples(client)
    held = get_ranking_cache(app).held_bytes()
    assert held["local"] > 0 and held["hot"] > 0
    assert value(samples, "ome_ranker_cache_bytes", layer="local") == held["local"]
    assert value(samples, "ome_ranker_cache_bytes", layer="hot") == held["hot"]
