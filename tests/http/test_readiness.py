"""What /readyz says of the token file and the catalog store (app/http/readiness.py), against real
files and real Redis servers: not ready when this instance needs a fix (a token file that no
longer parses, a store that refuses it), ready with the store named when the store is down, and
never waiting on a store that hangs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from app.http.readiness import PROBE_WAIT_SECONDS, STORE_CHECK_EXTENSION
from tests.api.support import metric_samples, readyz, value
from tests.builders import token_file
from tests.files import read_only
from tests.paths import SEED_YAML
from tests.waiting import wait_for

YAML = {"Content-Type": "application/yaml"}
PASSWORD = "wrong-s3cret-for-redis"
ASK = "/v1/clusters/prod/select?model=llama-3-2-3b-instruct&namespace=llama-demo"


def test_a_store_file_that_cannot_be_opened_makes_the_instance_not_ready(make_app, tmp_path):
    path = tmp_path / "catalogs.sqlite3"
    path.mkdir()  # a directory where the file should be
    client = make_app(STORE_PATH=str(path)).test_client()
    assert readyz(client) == (
        503,
        {
            "status": "degraded",
            "cache": {"backend": "memory", "state": "up"},
            "store": {
                "backend": "sqlite",
                "state": "refused",
                "reason": "the SQLite file cannot be used: unable to open database file",
            },
            "tokens": None,
        },
    )
    assert value(metric_samples(client), "ome_ranker_store_up") == 0
    refused = client.get("/v1/clusters")
    assert (refused.status_code, refused.get_json()["error"]["code"]) == (503, "StoreUnavailable")
    assert refused.headers["Retry-After"] == "5"
    assert client.post("/v1/rank", data=SEED_YAML, headers=YAML).status_code == 200


def test_a_read_only_store_file_makes_the_instance_not_ready_while_reads_go_on(make_app, tmp_path):
    path = tmp_path / "catalogs.sqlite3"
    writer = make_app(STORE_PATH=str(path)).test_client()
    assert writer.put("/v1/clusters/prod", json={}).status_code == 201
    assert writer.put("/v1/clusters/prod/objects", data=SEED_YAML, headers=YAML).status_code == 200
    with read_only(path):
        client = make_app(STORE_PATH=str(path)).test_client()
        status, body = readyz(client)
        assert (status, body["status"], body["store"]["state"]) == (503, "degraded", "refused")
        assert body["store"]["reason"].startswith("the SQLite file cannot be used: ")
        assert client.get(ASK).status_code == 200
        assert client.put("/v1/clusters/dev", json={}).status_code == 503


@pytest.mark.parametrize("given", ["a wrong password", "no password"])
def test_a_redis_that_refuses_the_credentials_makes_the_instance_not_ready(
    make_app, redis_server, redis_prefix, caplog, given
):
    caplog.set_level(logging.DEBUG)
    server = redis_server("--requirepass", "the-right-one")
    credentials = f":{PASSWORD}@" if given == "a wrong password" else ""
    url = f"redis://{credentials}127.0.0.1:{server.port}/0"
    client = make_app(REDIS_URL=url, CACHE_PREFIX=redis_prefix).test_client()
    status, body = readyz(client, until=lambda body: body["cache"]["state"] == "down")
    assert (status, body) == (
        503,
        {
            "status": "degraded",
            "cache": {"backend": "redis", "state": "down"},  # never a reason to be unready
            "store": {
                "backend": "redis",
                "state": "refused",
                "reason": "Redis refuses the credentials of REDIS_URL (AuthenticationError)",
            },
            "tokens": None,
        },
    )
    assert client.get(ASK).status_code == 503
    assert client.post("/v1/rank", data=SEED_YAML, headers=YAML).status_code == 200
    assert PASSWORD not in caplog.text
    right = f"redis://:the-right-one@127.0.0.1:{server.port}/0"
    fixed = make_app(REDIS_URL=right, CACHE_PREFIX=redis_prefix).test_client()
    assert readyz(fixed, until=lambda body: body["cache"]["state"] == "up")[0] == 200


def test_a_store_that_does_not_answer_is_named_and_the_instance_stays_ready(make_app, redis_server):
    """Every replica shares the store: taking them all out would stop the stateless
    endpoints too, which answer without it."""
    server = redis_server()
    client = make_app(REDIS_URL=server.url).test_client()
    assert readyz(client)[1]["store"]["state"] == "up"
    server.stop()
    status, body = readyz(client, until=lambda body: body["store"]["state"] == "down")
    assert status == 200 and body["status"] == "ready"
    assert body["store"]["reason"] in (
        "Redis cannot be reached (ConnectionError)",
        "not answering; asked again at most 5 s after the last try",
    )
    assert value(metric_samples(client), "ome_ranker_store_up") == 0


def test_readyz_answers_at_once_while_the_store_hangs(make_app, hung_server):
    """The store's check waits in a thread of its own: with a timeout of a minute, a probe
    that waited for it would take a minute, and find the check ended (``down``)."""
    app = make_app(REDIS_URL=hung_server.url, STORE_TIMEOUT_SECONDS=60)
    check = app.extensions[STORE_CHECK_EXTENSION]
    waits: list[float] = []
    latest = check.latest

    def waited(wait: float):
        waits.append(wait)
        return latest(wait)

    check.latest = waited
    client = app.test_client()
    for _ in range(5):
        response = client.get("/readyz")
        assert response.status_code == 200
        assert response.get_json()["store"] == {
            "backend": "redis",
            "state": "unknown",
            "reason": "no check has ended yet",
        }
    assert len(waits) == 5 and max(waits) <= PROBE_WAIT_SECONDS  # each probe waits 0.2 s at most


def test_a_poll_of_a_hung_store_asks_it_once(make_app, hung_server):
    """The poll path in front of Flask, then Flask's: one connection, one timeout, then
    refused at once while the breaker is open."""
    client = make_app(REDIS_URL=hung_server.url, STORE_TIMEOUT_SECONDS=0.2).test_client()
    for _ in range(3):
        refused = client.get(ASK)
        assert refused.status_code == 503
        assert refused.get_json()["error"]["code"] == "StoreUnavailable"
    assert hung_server.connections() == 1


@pytest.fixture
def tokens(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.yaml"
    token_file(path, {"name": "ci", "secret": "ci-secret", "read": ["*"]})
    return path


def test_a_token_file_that_no_longer_parses_makes_the_instance_not_ready(make_app, tokens):
    client = make_app(AUTH_MODE="token", TOKENS_FILE=str(tokens)).test_client()
    assert readyz(client) == (
        200,
        {
            "status": "ready",
            "cache": {"backend": "memory", "state": "up"},
            "store": {"backend": "sqlite", "state": "up", "reason": None},
            "tokens": None,
        },
    )
    samples = metric_samples(client)
    assert value(samples, "ome_ranker_tokens_file_ok") == 1
    assert value(samples, "ome_ranker_tokens_in_force") == 1
    good = tokens.read_text()
    tokens.write_text(good + "  - name: [unclosed\n")
    status, body = readyz(client, until=lambda body: body["tokens"] is not None)
    assert (status, body["status"]) == (503, "degraded")
    assert body["tokens"].startswith(f"OME_RANKER_TOKENS_FILE {str(tokens)!r} is not valid YAML")
    assert "the last good tokens (1, read" in body["tokens"]
    assert body["tokens"].endswith("stay in force until it is fixed")
    assert value(metric_samples(client), "ome_ranker_tokens_file_ok") == 0
    headers = {"Authorization": "Bearer ci-secret"}
    assert client.get("/v1/clusters", headers=headers).status_code == 200  # the last good
    tokens.write_text(good)
    assert readyz(client, until=lambda body: body["tokens"] is None)[0] == 200
    assert value(metric_samples(client), "ome_ranker_tokens_file_ok") == 1


def test_a_token_file_emptied_revokes_and_the_instance_stays_ready(make_app, tokens):
    client = make_app(AUTH_MODE="token", TOKENS_FILE=str(tokens)).test_client()
    tokens.write_text("")
    headers = {"Authorization": "Bearer ci-secret"}
    wait_for(
        lambda: client.get("/v1/clusters", headers=headers).status_code == 401,
        "the emptied file revokes the token",
    )
    assert readyz(client)[0] == 200  # what the file says is in force: nothing to fix
    samples = metric_samples(client)
    assert value(samples, "ome_ranker_tokens_in_force") == 0
    assert value(samples, "ome_ranker_tokens_file_ok") == 1


def test_a_gauge_nothing_has_set_is_absent_not_zero(make_app, tokens):
    """0 would say "broken" or "down" of what nobody looked at yet."""
    client = make_app().test_client()
    names = {name for name, _labels in metric_samples(client)}
    assert not {"ome_ranker_store_up", "ome_ranker_tokens_file_ok"} & names
    readyz(client)
    assert value(metric_samples(client), "ome_ranker_store_up") == 1
    assert "ome_ranker_tokens_file_ok" not in {name for name, _ in metric_samples(client)}
    # With a token file, its gauges hold what start-up read, before any probe.
    with_file = make_app(AUTH_MODE="token", TOKENS_FILE=str(tokens)).test_client()
    samples = metric_samples(with_file)
    assert value(samples, "ome_ranker_tokens_file_ok") == 1
    assert value(samples, "ome_ranker_tokens_in_force") == 1
