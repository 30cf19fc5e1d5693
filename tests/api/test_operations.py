"""/healthz, /readyz and /metrics."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEED_YAML = (FIXTURES / "seed_example.yaml").read_bytes()
YAML = {"Content-Type": "application/yaml"}


def metric_samples(client) -> dict[tuple[str, tuple], float]:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def dead_redis_port() -> Iterator[int]:
    """A port with nothing listening: bound, never listened on, so connecting is refused."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        yield holder.getsockname()[1]


def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}
    assert response.headers["Cache-Control"] == "no-store"


def test_readyz_with_the_in_process_cache(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {
        "status": "ready",
        "cache": {"backend": "memory", "state": "up"},
    }


def test_readyz_stays_200_and_reports_a_dead_redis(make_app, dead_redis_port):
    app = make_app(REDIS_URL=f"redis://127.0.0.1:{dead_redis_port}/0")
    client = app.test_client()
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {
        "status": "ready",
        "cache": {"backend": "redis", "state": "down"},
    }
    # ... and the service still answers, uncached, counting the cache's failures.
    assert client.post("/v1/rank", data=SEED_YAML, headers=YAML).status_code == 200
    assert value(metric_samples(client), "ome_ranker_cache_errors_total") >= 2


def test_readyz_with_a_live_redis(redis_app):
    response = redis_app.test_client().get("/readyz")
    assert response.status_code == 200
    assert response.get_json()["cache"] == {"backend": "redis", "state": "up"}


def test_readyz_without_a_cache(app, client, monkeypatch):
    monkeypatch.delitem(app.extensions, "ranking_cache")
    assert client.get("/readyz").get_json() == {"status": "ready", "cache": None}
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
    assert moved("ome_ranker_runtimes_per_request_count", endpoint="/v1/rank") == 1
    assert moved("ome_ranker_runtimes_per_request_sum", endpoint="/v1/rank") == 4
    assert moved("ome_ranker_runtimes_per_request_bucket", endpoint="/v1/rank", le="4.0") == 1
    assert moved("ome_ranker_selection_duration_seconds_count", endpoint="/v1/rank") == 1


def test_metrics_of_two_apps_are_separate(make_app):
    first, second = make_app().test_client(), make_app().test_client()
    first.get("/healthz")
    labels = {"endpoint": "/healthz", "method": "GET", "status": "200"}
    assert value(metric_samples(first), "ome_ranker_http_requests_total", **labels) == 1
    assert value(metric_samples(second), "ome_ranker_http_requests_total", **labels) == 0
