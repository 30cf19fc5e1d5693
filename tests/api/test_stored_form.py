"""SPEC §17 "Stored is what is read": a container's env and args, pushed with everything else a
`kubectl get -A -o yaml` prints, reach no answer of any route in any representation, no log line
and no byte of the store (the SQLite file and its WAL; every key of the Redis)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml

from app.catalog import get_store
from tests.builders import MARKER, dump, reordered_keys
from tests.paths import FIXTURES

YAML = {"Content-Type": "application/yaml"}
ROUTES = [
    "/v1/clusters",
    "/v1/clusters/prod",
    "/v1/clusters/prod/objects",
    "/v1/clusters/prod/objects?kind=InferenceService",
    "/v1/clusters/prod/rank?model=llama-3-2-3b-instruct&namespace=llama-demo",
    "/v1/clusters/prod/select?model=llama-3-2-3b-instruct&namespace=llama-demo",
    "/v1/clusters/prod/rank?inferenceService=llama-demo/llama-pinned",
    "/v1/clusters/prod/select?inferenceService=llama-demo/llama-chat",
    "/v1/clusters/prod/selections",
]
ACCEPTS = ("application/json", "application/yaml", "text/plain")


@pytest.fixture
def pushed(make_app, backend_settings, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    app = make_app(**backend_settings)
    api = app.test_client()
    assert api.put("/v1/clusters/prod", json={}).status_code == 201
    stored = api.put("/v1/clusters/prod/objects", data=dump(), headers=YAML)
    assert stored.status_code == 200, stored.get_json()
    assert stored.get_json()["counts"]["InferenceService"] == 2
    return app, api


def test_no_route_answers_what_no_rule_reads(pushed, caplog):
    _app, api = pushed
    seen = 0
    for route in ROUTES:
        for accept in ACCEPTS:
            answer = api.get(route, headers={"Accept": accept})
            assert answer.status_code == 200, (route, accept, answer.get_data())
            assert MARKER.encode() not in answer.data, (route, accept)
            seen += len(answer.data)
    changes = dump()
    for route in ("/v1/clusters/prod/lint", "/v1/clusters/prod/impact", "/v1/clusters/prod/rank"):
        answer = api.post(route + "?model=llama-3-2-3b-instruct", data=changes, headers=YAML)
        assert answer.status_code in (200, 400), (route, answer.get_data())
        assert MARKER.encode() not in answer.data, route
    assert seen > 10_000
    assert MARKER not in caplog.text


def test_the_objects_route_returns_the_stored_form(pushed):
    _app, api = pushed
    items = api.get("/v1/clusters/prod/objects").get_json()["items"]
    runtime = next(item for item in items if item["metadata"]["name"] == "team-llama")
    assert runtime["spec"] == {
        "supportedModelFormats": [
            {
                "name": "safetensors",
                "modelFormat": {"name": "safetensors", "version": "1.0.0"},
                "modelFramework": {"name": "transformers", "version": "4.45.0.dev0"},
                "modelArchitecture": "LlamaForCausalLM",
                "autoSelect": True,
            }
        ],
        "engineConfig": {},
    }
    isvc = next(item for item in items if item["metadata"]["name"] == "llama-chat")
    # Whether the engine has a runner of its own is read (lint); only its image tells.
    assert isvc["spec"]["engine"]["runner"] == {"image": "docker.io/vllm/vllm-openai:v0.9.0"}
    assert set(isvc["metadata"]) == {"name", "namespace"}  # last-applied, uid, … dropped


def _store_bytes(app, backend_settings, redis_client) -> bytes:
    """Every byte the store holds: the SQLite file and its journal, or every value of every
    key under the Redis prefix (read by type: DUMP would compress them)."""
    if "STORE_PATH" in backend_settings:
        path = Path(backend_settings["STORE_PATH"])
        files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
        return b"".join(file.read_bytes() for file in files if file.exists())
    prefix = backend_settings["CACHE_PREFIX"]
    found = []
    for key in redis_client.scan_iter(match=f"{prefix}*"):
        kind = redis_client.type(key)
        found.append(key)
        if kind == b"hash":
            for field, value in redis_client.hgetall(key).items():
                found += [field, value]
        elif kind == b"string":
            found.append(redis_client.get(key))
        elif kind == b"list":  # the selection history
            found += redis_client.lrange(key, 0, -1)
        else:
            raise AssertionError(f"a {kind!r} key the test cannot read: {key!r}")
    return b"".join(found)


@pytest.fixture
def redis_client_or_none(request, backend_settings):
    if "REDIS_URL" not in backend_settings:
        return None
    return request.getfixturevalue("redis_client")


def test_no_byte_of_the_store_holds_it(pushed, backend_settings, redis_client_or_none):
    app, api = pushed
    for route in ROUTES:  # answers are cached too
        api.get(route)
    held = _store_bytes(app, backend_settings, redis_client_or_none)
    assert b"llama-3-2-3b-instruct" in held  # the store was read
    assert MARKER.encode() not in held
    get_store(app).close()


@pytest.mark.parametrize("accept", ["application/json", "application/yaml"])
def test_the_objects_route_writes_every_key_sorted_whatever_order_was_pushed(client, accept):
    """rules §16: as ``kubectl get -o json`` writes a custom resource, every map with its keys
    sorted; the labels and annotations of one push read the same as another's."""
    documents = list(yaml.safe_load_all((FIXTURES / "seed_example.yaml").read_text()))
    for manifest in [*documents[:2], *documents[2]["items"]]:  # the runtimes: a List
        manifest["metadata"]["labels"] = {"b": "1", "a": "2"}
    answers = []
    for name, pushed in (("one", documents), ("two", reordered_keys(documents))):
        assert client.put(f"/v1/clusters/{name}", json={}).status_code == 201
        body = json.dumps(pushed).encode()  # as written: the client's json= sorts every key
        written = client.put(
            f"/v1/clusters/{name}/objects", data=body, headers={"Content-Type": "application/json"}
        )
        assert written.status_code == 200
        answers.append(client.get(f"/v1/clusters/{name}/objects", headers={"Accept": accept}))
    assert answers[0].get_data() == answers[1].get_data()
    items = yaml.safe_load(answers[0].get_data())["items"]
    assert [list(item) for item in items] == [sorted(item) for item in items]
    assert all(list(item["metadata"]["labels"]) == ["a", "b"] for item in items)
