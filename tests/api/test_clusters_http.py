"""The catalog scenario over HTTP against a real gunicorn with a token file, on each store: the
SQLite file, a Redis with an append-only file, and a three-node Redis Cluster. Answers by name
are byte for byte ``POST /v1/rank``'s; racing writes lose nothing silently; no token reaches
another cluster; and every acknowledged write survives ``kill -9`` of the service (and of Redis)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml

from tests.builders import entry, model_doc, runtime_doc, serving_runtime, token_file
from tests.servers import SEED_YAML, YAML

SECRETS = {"admin": "admin-secret", "east": "east-secret", "west": "west-secret"}
SEED_MODEL = "llama-3-2-3b-instruct"
ASK = f"/v1/clusters/east/rank?model={SEED_MODEL}&namespace=llama-demo"


def _bearer(who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {SECRETS[who]}"}


@pytest.fixture
def tokens(tmp_path):
    return token_file(
        tmp_path / "tokens.yaml",
        {"name": "admin", "secret": SECRETS["admin"], "write": ["*"]},
        {"name": "sync-east", "secret": SECRETS["east"], "write": ["east"]},
        {"name": "sync-west", "secret": SECRETS["west"], "write": ["west"]},
    )


@pytest.fixture(params=["sqlite", "redis", "redis-cluster"])
def store(request, tmp_path):
    """The environment of the service for one store, and the Redis servers to kill with it."""
    if request.param == "sqlite":
        return {"OME_RANKER_STORE_PATH": str(tmp_path / "catalogs.sqlite3")}, []
    if request.param == "redis":
        server = request.getfixturevalue("redis_server")("--appendonly", "yes")
        return {"REDIS_URL": server.url}, [server]
    nodes = request.getfixturevalue("redis_cluster")
    return {"REDIS_URL": nodes[0].url, "OME_RANKER_REDIS_CLUSTER": "true"}, []


def _kill(service) -> None:
    """SIGKILL to the master and to every worker: nothing gets to finish or flush."""
    workers = service.worker_pids()
    os.kill(service.pid, signal.SIGKILL)
    service.process.wait()
    for pid in workers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    service.process = None


def _extra_runtimes(count: int) -> bytes:
    documents = [
        runtime_doc(f"extra-{i}", entry(priority=1 + i % 3), disabled=i % 2 == 0)
        for i in range(count)
    ]
    return yaml.safe_dump_all(documents, sort_keys=False).encode()


def test_the_catalog_scenario(store, tokens, start_service):
    environment, redis_servers = store
    service = start_service(
        **environment,
        OME_RANKER_TOKENS_FILE=tokens,
        OME_RANKER_CACHE_SECRET="scenario-secret-0123456789",
        OME_RANKER_STORE_TIMEOUT="1",
    )
    request = service.request
    for name in ("east", "west"):
        status, headers, _ = request("PUT", f"/v1/clusters/{name}", b"{}", _json(_bearer("admin")))
        assert status == 201
    status, headers, body = request(
        "PUT", "/v1/clusters/east/objects", SEED_YAML, {**YAML, **_bearer("east")}
    )
    assert status == 200, body
    assert headers["ETag"] == '"2"'

    # Answers by name are the stateless endpoint's, byte for byte, in every representation.
    for accept in ("application/json", "text/plain", "application/yaml"):
        wanted = {"Accept": accept}
        by_name = request("GET", ASK, headers={**wanted, **_bearer("east")})
        direct = request("POST", "/v1/rank", SEED_YAML, {**YAML, **wanted})
        assert by_name[0] == direct[0] == 200
        assert by_name[2] == direct[2]

    # Two syncs racing on the same generation: exactly one lands, the other is told.
    racing = [_extra_runtimes(3), _extra_runtimes(4)]
    with ThreadPoolExecutor(2) as pool:
        results = list(
            pool.map(
                lambda body: request(
                    "POST",
                    "/v1/clusters/east/objects",
                    body,
                    {**YAML, **_bearer("east"), "If-Match": '"2"'},
                ),
                racing,
            )
        )
    assert sorted(status for status, _, _ in results) == [200, 412]
    winner = next(json.loads(body) for status, _, body in results if status == 200)
    assert winner["generation"] == 3

    # A token for east can neither read nor write west; none at all is a 401.
    assert request("GET", "/v1/clusters/west", headers=_bearer("east"))[0] == 403
    assert (
        request("PUT", "/v1/clusters/west/objects", SEED_YAML, {**YAML, **_bearer("east")})[0]
        == 403
    )
    assert request("GET", ASK)[0] == 401
    listed = json.loads(request("GET", "/v1/clusters", headers=_bearer("east"))[2])
    assert [c["name"] for c in listed["clusters"]] == ["east"]

    # One more acknowledged write, then everything is killed without a chance to flush.
    status, _, body = request(
        "POST",
        "/v1/clusters/west/objects",
        yaml.safe_dump_all([model_doc("m", namespace="demo"), serving_runtime("rt")]).encode(),
        {**YAML, **_bearer("west")},
    )
    assert status == 200
    before = {
        name: json.loads(request("GET", f"/v1/clusters/{name}", headers=_bearer("admin"))[2])
        for name in ("east", "west")
    }
    answer = request("GET", ASK, headers=_bearer("east"))[2]
    _kill(service)
    for server in redis_servers:
        server.stop()  # SIGKILL
        server.start()  # replays its append-only file
    service.start()
    for name, info in before.items():
        after = json.loads(request("GET", f"/v1/clusters/{name}", headers=_bearer("admin"))[2])
        assert (after["generation"], after["counts"]) == (info["generation"], info["counts"])
    assert request("GET", ASK, headers=_bearer("east"))[2] == answer
    select = request(
        "GET", "/v1/clusters/west/select?model=m&namespace=demo", headers=_bearer("west")
    )
    assert (select[0], json.loads(select[2])["selected"]["name"]) == (200, "rt")


def _json(headers: dict[str, str]) -> dict[str, str]:
    return {"Content-Type": "application/json", **headers}


@pytest.mark.parametrize("store", ["sqlite", "redis"], indirect=True)
def test_a_sync_token_never_creates_the_cluster_an_admin_deletes(store, tokens, start_service):
    """sync-east may write east but not create clusters. It sets east's settings in a loop
    while the admin deletes east, waits for two of its writes (the second sent after the
    deletion, so it finds no cluster), checks that east is still gone, and creates it again.
    The decision to create is taken inside the store's transaction: sync-east creates nothing,
    however its writes and the deletions interleave across the two workers."""
    environment, _ = store
    service = start_service(**environment, OME_RANKER_TOKENS_FILE=tokens)
    request, admin = service.request, _json(_bearer("admin"))
    assert request("PUT", "/v1/clusters/east", b"{}", admin)[0] == 201
    done, answered = threading.Event(), threading.Condition()
    statuses: list[int] = []

    def sync_in_a_loop() -> None:
        body = json.dumps({"description": "synced"}).encode()
        while not done.is_set():
            status = request("PUT", "/v1/clusters/east", body, _json(_bearer("east")))[0]
            with answered:
                statuses.append(status)
                answered.notify_all()

    sync = threading.Thread(target=sync_in_a_loop)
    sync.start()
    try:
        for _ in range(60):
            assert request("DELETE", "/v1/clusters/east", headers=admin)[0] == 204
            with answered:
                seen = len(statuses)
                assert answered.wait_for(lambda seen=seen: len(statuses) >= seen + 2, 60)
            assert request("GET", "/v1/clusters/east", headers=admin)[0] == 404
            assert request("PUT", "/v1/clusters/east", b"{}", admin)[0] == 201
    finally:
        done.set()
        sync.join()
    assert 201 not in statuses
    assert statuses.count(403) >= 60  # refused while east was gone: may not create
    assert set(statuses) <= {200, 403}
