"""Catalogs survive a Redis restart when Redis keeps an append-only file, and a Redis that is
gone makes catalog requests 503 with Retry-After while the stateless endpoints keep answering
(SPEC §17 "Durable")."""

from __future__ import annotations

from tests.paths import SEED_YAML

YAML = {"Content-Type": "application/yaml"}
URL = "/v1/clusters/prod/select?model=llama-3-2-3b-instruct&namespace=llama-demo"


def test_an_acknowledged_catalog_survives_a_redis_kill_and_restart(make_app, redis_server):
    server = redis_server("--appendonly", "yes", "--appendfsync", "always")
    api = make_app(REDIS_URL=server.url, STORE_TIMEOUT_SECONDS=0.5).test_client()
    assert api.put("/v1/clusters/prod", json={}).status_code == 201
    assert api.put("/v1/clusters/prod/objects", data=SEED_YAML, headers=YAML).status_code == 200

    server.stop()  # SIGKILL
    down = api.get(URL)
    assert down.status_code == 503
    assert down.get_json()["error"]["code"] == "StoreUnavailable"
    assert down.headers["Retry-After"]
    assert api.post("/v1/select", data=SEED_YAML, headers=YAML).status_code == 200

    server.start()  # same directory: Redis replays its append-only file
    fresh = make_app(REDIS_URL=server.url).test_client()
    answer = fresh.get(URL)
    assert answer.status_code == 200
    assert answer.get_json()["selected"]["name"] == "team-llama"
    assert fresh.get("/v1/clusters/prod").get_json()["generation"] == 2
