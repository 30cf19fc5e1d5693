"""Stored catalogs over HTTP (SPEC §17), on both stores: a SQLite file, and the tests' Redis."""

from __future__ import annotations

import pytest
import yaml

from tests.builders import (
    entry,
    isvc_doc,
    model_doc,
    rank_body,
    runtime_doc,
    serving_runtime,
    token_file,
)
from tests.paths import SEED_YAML

YAML = {"Content-Type": "application/yaml"}
SEED_MODEL = "llama-3-2-3b-instruct"


def stream(*documents: dict) -> bytes:
    return yaml.safe_dump_all(documents, sort_keys=False).encode()


@pytest.fixture
def catalog_app(make_app, backend_settings):
    return make_app(**backend_settings)


@pytest.fixture
def client(catalog_app):
    return catalog_app.test_client()


@pytest.fixture
def seeded(client):
    assert client.put("/v1/clusters/prod", json={"description": "production"}).status_code == 201
    response = client.put("/v1/clusters/prod/objects", data=SEED_YAML, headers=YAML)
    assert response.status_code == 200, response.get_data(as_text=True)
    return client


def test_settings_create_update_list_get(client):
    created = client.put("/v1/clusters/east", json={"omeVersion": "1.2.2"})
    assert created.status_code == 201
    assert created.headers["ETag"] == '"1"'
    assert created.get_json()["omeVersion"] == "1.2.2"
    updated = client.put("/v1/clusters/east", json={"modelCacheProvider": "lustre"})
    assert (updated.status_code, updated.headers["ETag"]) == (200, '"2"')
    body = client.get("/v1/clusters/east").get_json()
    assert (body["omeVersion"], body["modelCacheProvider"], body["generation"]) == (
        "1.3",
        "lustre",
        2,
    )
    assert [c["name"] for c in client.get("/v1/clusters").get_json()["clusters"]] == ["east"]
    assert client.get("/v1/clusters/west").get_json()["error"]["code"] == "ClusterNotFound"
    bad = client.put("/v1/clusters/east", json={"omeVersion": "not a version"})
    assert (bad.status_code, list(bad.get_json()["error"]["fields"])) == (422, ["omeVersion"])
    assert client.put("/v1/clusters/Bad_Name", json={}).status_code == 400
    assert client.delete("/v1/clusters/east").status_code == 204
    assert client.get("/v1/clusters/east").status_code == 404


def test_answers_by_name_are_those_of_the_stateless_endpoint(seeded):
    for accept in ("application/json", "text/plain", "application/yaml"):
        headers = {"Accept": accept}
        stored = seeded.get(
            f"/v1/clusters/prod/rank?model={SEED_MODEL}&namespace=llama-demo", headers=headers
        )
        direct = seeded.post("/v1/rank", data=SEED_YAML, headers={**YAML, **headers})
        assert stored.status_code == direct.status_code == 200
        assert stored.get_data() == direct.get_data()
        assert stored.headers["ETag"] == '"2"'
    select = seeded.get(f"/v1/clusters/prod/select?model={SEED_MODEL}&namespace=llama-demo")
    assert select.get_data() == seeded.post("/v1/select", data=SEED_YAML, headers=YAML).get_data()


def test_second_ask_is_cached_and_a_write_makes_it_stale(seeded):
    url = f"/v1/clusters/prod/select?model={SEED_MODEL}&namespace=llama-demo"
    assert seeded.get(url).headers["X-Cache"] == "miss"
    assert seeded.get(url).headers["X-Cache"] == "hit"
    disabled = serving_runtime("team-llama", namespace="llama-demo", disabled=True)
    assert seeded.post("/v1/clusters/prod/objects", json=disabled).status_code == 200
    again = seeded.get(url)
    assert again.headers["X-Cache"] == "miss"
    assert again.get_json()["selected"]["name"] == "vllm-llama"


def test_etags_if_none_match_and_if_match(seeded):
    url = f"/v1/clusters/prod/rank?model={SEED_MODEL}&namespace=llama-demo"
    tag = seeded.get(url).headers["ETag"]
    assert seeded.get(url, headers={"If-None-Match": tag}).status_code == 304
    assert seeded.get("/v1/clusters/prod", headers={"If-None-Match": tag}).status_code == 304
    stale = seeded.put(
        "/v1/clusters/prod/objects", data=SEED_YAML, headers={**YAML, "If-Match": '"1"'}
    )
    assert stale.status_code == 412
    assert stale.get_json()["error"]["code"] == "PreconditionFailed"
    same = seeded.put(
        "/v1/clusters/prod/objects", data=SEED_YAML, headers={**YAML, "If-Match": tag}
    )
    assert (same.status_code, same.headers["ETag"]) == (200, tag)  # nothing changed
    changed = seeded.post(
        "/v1/clusters/prod/objects", json=runtime_doc("extra"), headers={"If-Match": tag}
    )
    assert changed.headers["ETag"] == '"3"'
    assert seeded.get(url, headers={"If-None-Match": tag}).status_code == 200


def test_objects_round_trip_filters_and_delete(seeded):
    listed = seeded.get("/v1/clusters/prod/objects?kind=ClusterServingRuntime").get_json()
    assert listed["kind"] == "List"
    assert [item["metadata"]["name"] for item in listed["items"]] == [
        "srt-llama-large",
        "srt-llama-small",
        "vllm-llama",
    ]
    as_yaml = seeded.get("/v1/clusters/prod/objects", headers={"Accept": "application/yaml"})
    assert yaml.safe_load(as_yaml.get_data())["kind"] == "List"
    gone = seeded.delete("/v1/clusters/prod/objects/ServingRuntime/team-llama?namespace=llama-demo")
    assert gone.status_code == 200
    assert gone.get_json()["counts"]["ServingRuntime"] == 0
    again = seeded.delete(
        "/v1/clusters/prod/objects/ServingRuntime/team-llama?namespace=llama-demo"
    )
    assert again.get_json()["error"]["code"] == "ObjectNotFound"


def test_writes_report_other_kinds_and_repeats_and_refuse_bad_objects(client):
    client.put("/v1/clusters/c1", json={})
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}
    body = stream(namespace, runtime_doc("rt"), runtime_doc("rt"), model_doc())
    answer = client.put("/v1/clusters/c1/objects", data=body, headers=YAML).get_json()
    assert answer["ignored"][0]["kind"] == "Namespace"
    assert answer["warnings"] == [
        "ClusterServingRuntime rt appears 2 times in the request; the last one is used"
    ]
    bad = stream(model_doc(), runtime_doc("broken", entry(priority=0)))
    refused = client.put("/v1/clusters/c1/objects", data=bad, headers=YAML)
    assert refused.status_code == 422
    assert list(refused.get_json()["error"]["fields"]) == [
        "document 2.spec.supportedModelFormats[0].priority"
    ]
    assert client.get("/v1/clusters/c1").get_json()["counts"]["ClusterServingRuntime"] == 1


def test_server_fields_of_kubectl_get_do_not_change_the_generation(client):
    client.put("/v1/clusters/c1", json={})
    runtime = runtime_doc("rt")
    runtime["metadata"].update(resourceVersion="1", uid="u-1", managedFields=[{"manager": "x"}])
    runtime["status"] = {"conditions": []}
    first = client.put("/v1/clusters/c1/objects", json=[runtime]).headers["ETag"]
    runtime["metadata"]["resourceVersion"] = "2"
    runtime["status"] = {"conditions": [{"type": "Ready"}]}
    assert client.put("/v1/clusters/c1/objects", json=[runtime]).headers["ETag"] == first
    stored = client.get("/v1/clusters/c1/objects").get_json()["items"][0]
    assert "status" not in stored and "resourceVersion" not in stored["metadata"]


def test_inference_service_by_name_and_selections(client):
    client.put("/v1/clusters/c1", json={})
    objects = [
        model_doc(),
        runtime_doc("rt"),
        isvc_doc("auto", model={"name": "llama"}),
        isvc_doc("pinned", model={"name": "llama"}, runtime={"name": "missing"}),
        isvc_doc("orphan", model={"name": "nope"}),
    ]
    assert client.put("/v1/clusters/c1/objects", json=objects).status_code == 200
    ranked = client.get("/v1/clusters/c1/select?inferenceService=demo/auto").get_json()
    assert ranked["selected"]["name"] == "rt"
    missing = client.get("/v1/clusters/c1/select?inferenceService=demo/pinned")
    assert missing.get_json()["error"]["code"] == "RuntimeNotFound"
    assert client.get("/v1/clusters/c1/rank?inferenceService=demo/none").status_code == 404
    orphan = client.get("/v1/clusters/c1/rank?inferenceService=demo/orphan").get_json()
    assert orphan["error"]["message"] == "No BaseModel or ClusterBaseModel with the name: nope"
    table = client.get("/v1/clusters/c1/selections").get_json()
    assert [
        (r["name"], (r["runtime"] or {}).get("name"), r["error"]) for r in table["selections"]
    ] == [
        ("auto", "rt", None),
        ("orphan", None, "ModelNotFound"),
        ("pinned", None, "RuntimeNotFound"),
    ]
    text = client.get("/v1/clusters/c1/selections", headers={"Accept": "text/plain"}).get_data(
        as_text=True
    )
    assert text.splitlines()[0].split() == [
        "NAMESPACE",
        "INFERENCESERVICE",
        "MODEL",
        "RUNTIME",
        "SCOPE",
        "MESSAGE",
    ]
    assert "demo        auto" in text.splitlines()[1]
    assert client.get("/v1/clusters/c1/selections?namespace=other").get_json()["count"] == 0


def test_overlay_ranks_my_manifests_against_the_stored_ones_without_storing(seeded):
    # The seed's team-llama, disabled: same kind, namespace and name replace the stored one.
    off = serving_runtime("team-llama", namespace="llama-demo", disabled=True)
    body = stream(off)
    url = f"/v1/clusters/prod/rank?model={SEED_MODEL}&namespace=llama-demo"
    answer = seeded.post(url, data=body, headers=YAML).get_json()
    assert answer["selected"]["name"] == "vllm-llama"
    assert [row["name"] for row in answer["runtimes"]].count("team-llama") == 1
    assert answer["warnings"] == []
    stored = seeded.get(url).get_json()
    assert stored["selected"]["name"] == "team-llama"  # nothing stored
    with_model = seeded.post(
        "/v1/clusters/prod/select", json=rank_body(model_doc("other-model"), runtime_doc("x"))
    )
    assert with_model.get_json()["selected"]["name"] == "x"
    assert seeded.post("/v1/clusters/prod/rank", data=body, headers=YAML).status_code == 400


def test_overlay_answers_are_cached_per_generation_and_body(seeded):
    url = f"/v1/clusters/prod/select?model={SEED_MODEL}&namespace=llama-demo"
    off = stream(serving_runtime("team-llama", namespace="llama-demo", disabled=True))
    first = seeded.post(url, data=off, headers=YAML)
    again = seeded.post(url, data=off, headers=YAML)
    assert (first.headers["X-Cache"], again.headers["X-Cache"]) == ("miss", "hit")
    assert again.get_data() == first.get_data()
    assert again.headers["ETag"] == first.headers["ETag"]
    # Another body is another question: vllm-llama off, team-llama stays off.
    both = stream(
        serving_runtime("team-llama", namespace="llama-demo", disabled=True),
        runtime_doc("vllm-llama", disabled=True),
    )
    other = seeded.post(url, data=both, headers=YAML)
    assert other.headers["X-Cache"] == "miss"
    assert other.get_json()["selected"]["name"] not in ("vllm-llama", "team-llama")
    # A write to the catalog makes the cached overlay unreachable: vllm-llama is gone now.
    gone = seeded.delete("/v1/clusters/prod/objects/ClusterServingRuntime/vllm-llama")
    assert gone.status_code in (200, 204)
    after = seeded.post(url, data=off, headers=YAML)
    assert after.headers["X-Cache"] == "miss"
    assert after.headers["ETag"] != first.headers["ETag"]
    assert after.get_json()["selected"]["name"] != "vllm-llama"


def test_limits(make_app, backend_settings):
    client = make_app(**backend_settings, MAX_CLUSTERS=1, MAX_OBJECTS_PER_CLUSTER=2).test_client()
    assert client.put("/v1/clusters/one", json={}).status_code == 201
    refused = client.put("/v1/clusters/two", json={})
    assert (refused.status_code, refused.get_json()["error"]["code"]) == (422, "LimitExceeded")
    many = client.put("/v1/clusters/one/objects", json=[runtime_doc(n) for n in "abc"])
    assert many.status_code == 422
    assert "OME_RANKER_MAX_OBJECTS_PER_CLUSTER" in many.get_json()["error"]["message"]


# --- access control -------------------------------------------------------------------------


@pytest.fixture
def guarded(make_app, backend_settings, tmp_path):
    tokens = token_file(
        tmp_path / "tokens.yaml",
        {"name": "admin", "secret": "admin-secret", "write": ["*"]},
        {"name": "a-writer", "secret": "a-secret", "write": ["a"]},
        {"name": "b-reader", "secret": "b-secret", "read": ["b"]},
    )
    app = make_app(**backend_settings, AUTH_MODE="token", TOKENS_FILE=tokens)
    client = app.test_client()
    admin = {"Authorization": "Bearer admin-secret"}
    for cluster in ("a", "b"):
        assert client.put(f"/v1/clusters/{cluster}", json={}, headers=admin).status_code == 201
        client.put(f"/v1/clusters/{cluster}/objects", data=SEED_YAML, headers={**admin, **YAML})
    return client


def _routes(cluster: str) -> list[tuple[str, str, dict]]:
    seed = {"data": SEED_YAML, "headers": YAML}
    return [
        ("get", f"/v1/clusters/{cluster}", {}),
        ("put", f"/v1/clusters/{cluster}", {"json": {}}),
        ("delete", f"/v1/clusters/{cluster}", {}),
        ("put", f"/v1/clusters/{cluster}/objects", seed),
        ("post", f"/v1/clusters/{cluster}/objects", seed),
        ("get", f"/v1/clusters/{cluster}/objects", {}),
        ("delete", f"/v1/clusters/{cluster}/objects/ClusterServingRuntime/vllm-llama", {}),
        ("get", f"/v1/clusters/{cluster}/rank?model={SEED_MODEL}&namespace=llama-demo", {}),
        ("get", f"/v1/clusters/{cluster}/select?model={SEED_MODEL}&namespace=llama-demo", {}),
        ("post", f"/v1/clusters/{cluster}/rank", seed),
        ("post", f"/v1/clusters/{cluster}/select", seed),
        ("get", f"/v1/clusters/{cluster}/selections", {}),
        ("get", f"/v1/clusters/{cluster}/history", {}),
    ]


def _call(client, method, url, options, secret=None):
    options = {**options, "headers": {**options.get("headers", {})}}
    if secret is not None:
        options["headers"]["Authorization"] = f"Bearer {secret}"
    return getattr(client, method)(url, **options)


@pytest.mark.parametrize("route", range(13))
def test_a_token_for_one_cluster_never_reaches_another(guarded, route):
    method, url, options = _routes("b")[route]
    response = _call(guarded, method, url, options, "a-secret")
    assert response.status_code == 403, (method, url)
    assert response.get_json()["error"]["code"] == "Forbidden"
    method, url, options = _routes("a")[route]
    for secret in (None, "wrong-secret"):
        anonymous = _call(guarded, method, url, options, secret)
        assert anonymous.status_code == 401
        assert anonymous.headers["WWW-Authenticate"].startswith("Bearer")


def test_readers_read_writers_write_admins_manage(guarded):
    reader = {"Authorization": "Bearer b-secret"}
    assert guarded.get("/v1/clusters/b/selections", headers=reader).status_code == 200
    assert guarded.put("/v1/clusters/b", json={}, headers=reader).status_code == 403
    writer = {"Authorization": "Bearer a-secret"}
    assert (
        guarded.put("/v1/clusters/a", json={"description": "x"}, headers=writer).status_code == 200
    )
    assert guarded.delete("/v1/clusters/a", headers=writer).status_code == 403
    assert guarded.put("/v1/clusters/c", json={}, headers=writer).status_code == 403
    listed = guarded.get("/v1/clusters", headers=reader).get_json()["clusters"]
    assert [c["name"] for c in listed] == ["b"]
    # The stateless endpoints stay open.
    assert guarded.post("/v1/rank", data=SEED_YAML, headers=YAML).status_code == 200


def test_without_a_token_file_catalogs_are_closed_unless_auth_none(make_app, backend_settings):
    closed = make_app(**backend_settings, AUTH_MODE="token", TOKENS_FILE=None).test_client()
    refused = closed.get("/v1/clusters")
    assert refused.status_code == 401
    assert "OME_RANKER_TOKENS_FILE" in refused.get_json()["error"]["message"]
    assert closed.post("/v1/rank", data=SEED_YAML, headers=YAML).status_code == 200


def test_stateless_endpoints_can_ask_for_a_token_too(make_app, tmp_path):
    tokens = token_file(tmp_path / "tokens.yaml", {"name": "ci", "secret": "ci-secret"})
    client = make_app(AUTH_MODE="token", TOKENS_FILE=tokens, AUTH_STATELESS=True).test_client()
    assert client.post("/v1/rank", data=SEED_YAML, headers=YAML).status_code == 401
    allowed = {**YAML, "Authorization": "Bearer ci-secret"}
    assert client.post("/v1/rank", data=SEED_YAML, headers=allowed).status_code == 200
    assert client.get("/v1/clusters", headers=allowed).get_json() == {"clusters": []}
    for path in ("/v1/lint", "/v1/selections", "/v1/select"):
        assert client.post(path, data=SEED_YAML, headers=YAML).status_code == 401, path
        assert client.post(path, data=SEED_YAML, headers=allowed).status_code == 200, path
    impact = {"current": [], "proposed": []}
    assert client.post("/v1/impact", json=impact).status_code == 401
    assert client.post("/v1/impact", json=impact, headers=allowed).status_code == 200
