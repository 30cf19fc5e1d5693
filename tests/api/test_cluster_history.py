"""``GET /v1/clusters/{cluster}/history`` (rules §17.1) on both stores: after a sequence of pushes,
what the impact between consecutive catalogs says; filters, pages, ETag, access."""

from __future__ import annotations

import pytest
import yaml

from app.api.cluster_history import MAX_NUMBER
from tests.builders import entry, isvc_doc, model_doc, runtime_doc, token_file

YAML = {"Content-Type": "application/yaml"}


def step_manifests(step: int) -> list[dict]:
    """Runtime ``a`` always, the weightier ``b`` on odd steps; one InferenceService more each
    step: every push moves every InferenceService, and adds one."""
    manifests = [model_doc("llama"), runtime_doc("a", entry(weight=1))]
    if step % 2:
        manifests.append(runtime_doc("b", entry(weight=5)))
    manifests += [isvc_doc(f"svc-{n}", model={"name": "llama"}) for n in range(2 + step)]
    return manifests


def push(client, cluster: str, manifests: list[dict], headers=None) -> int:
    body = yaml.safe_dump_all(manifests).encode()
    response = client.put(
        f"/v1/clusters/{cluster}/objects", data=body, headers={**YAML, **(headers or {})}
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["generation"]


@pytest.fixture
def client(make_app, backend_settings):
    client = make_app(**backend_settings).test_client()
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    return client


def _impact_runtime(outcome: dict) -> str | None:
    return outcome["runtime"]["name"] if outcome["runtime"] else None


def _history_runtime(outcome: dict | None) -> str | None:
    return "-" if outcome is None else outcome["runtime"]


def test_history_after_pushes_equals_the_impacts_between_them(client):
    previous: list[dict] = []
    generations = []
    expected: dict[int, dict] = {}
    for step in range(4):
        manifests = step_manifests(step)
        impact = client.post("/v1/impact", json={"current": previous, "proposed": manifests})
        assert impact.status_code == 200
        moves = {
            (c["namespace"], c["name"]): (_impact_runtime(c["before"]), _impact_runtime(c["after"]))
            for c in impact.get_json()["changes"]
        }
        held = {
            ("demo", m["metadata"]["name"]) for m in previous if m["kind"] == "InferenceService"
        }
        for m in manifests:
            key = ("demo", m["metadata"]["name"])
            if m["kind"] == "InferenceService" and key not in held:
                moves[key] = ("-", "b" if step % 2 else "a")  # added: none before
        generation = push(client, "prod", manifests)
        generations.append(generation)
        expected[generation] = moves
        previous = manifests
    response = client.get("/v1/clusters/prod/history?limit=1000")
    assert response.status_code == 200
    assert response.headers["ETag"] == f'"{generations[-1]}"'
    body = response.get_json()
    assert (body["cluster"], body["generation"], body["next"]) == ("prod", generations[-1], None)
    assert body["count"] == len(body["changes"])
    found: dict[int, dict] = {}
    for change in body["changes"]:
        assert change["truncated"] is None
        found.setdefault(change["generation"], {})[(change["namespace"], change["name"])] = (
            _history_runtime(change["before"]),
            _history_runtime(change["after"]),
        )
    assert found == expected
    assert [c["seq"] for c in body["changes"]] == sorted(
        (c["seq"] for c in body["changes"]), reverse=True
    )
    unchanged = client.get(
        "/v1/clusters/prod/history", headers={"If-None-Match": f'"{generations[-1]}"'}
    )
    assert unchanged.status_code == 304


def test_filters_and_pages(client):
    generations = [push(client, "prod", step_manifests(step)) for step in range(3)]
    since = client.get(f"/v1/clusters/prod/history?since={generations[1]}").get_json()
    assert {c["generation"] for c in since["changes"]} == {generations[2]}
    one = client.get("/v1/clusters/prod/history?namespace=demo&name=svc-0").get_json()
    assert [c["generation"] for c in one["changes"]] == generations[::-1]
    assert client.get("/v1/clusters/prod/history?namespace=other").get_json()["changes"] == []
    everything = client.get("/v1/clusters/prod/history").get_json()["changes"]
    seen, cursor = [], None
    while True:
        url = "/v1/clusters/prod/history?limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(url).get_json()
        seen += page["changes"]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == everything


@pytest.mark.parametrize(
    "query",
    [
        "since=-1",
        "since=x",
        "limit=0",
        "limit=1001",
        "cursor=0",
        f"cursor={MAX_NUMBER + 1}",
        "namespace=Not_A_Label",
        "name=" + "x" * 254,
        "name=UPPER",
    ],
)
def test_a_bad_query_is_refused(client, query):
    response = client.get(f"/v1/clusters/prod/history?{query}")
    assert response.status_code == 422, query
    assert response.get_json()["error"]["code"] == "InvalidDocument"


def test_an_unknown_cluster_is_a_404_and_hidden_from_a_token_without_access(
    make_app, backend_settings, tmp_path
):
    tokens = token_file(
        tmp_path / "tokens.yaml",
        {"name": "admin", "secret": "admin-secret", "write": ["*"]},
        {"name": "a-reader", "secret": "a-secret", "read": ["a"]},
    )
    client = make_app(**backend_settings, AUTH_MODE="token", TOKENS_FILE=tokens).test_client()
    admin = {"Authorization": "Bearer admin-secret"}
    reader = {"Authorization": "Bearer a-secret"}
    for cluster in ("a", "b"):
        assert client.put(f"/v1/clusters/{cluster}", json={}, headers=admin).status_code == 201
    push(client, "a", step_manifests(0), admin)
    assert client.get("/v1/clusters/a/history", headers=reader).status_code == 200
    missing = client.get("/v1/clusters/nope/history", headers=admin)
    assert (missing.status_code, missing.get_json()["error"]["code"]) == (404, "ClusterNotFound")
    # a token that may not read answers the same whether the cluster exists or not
    for cluster in ("b", "nope"):
        refused = client.get(f"/v1/clusters/{cluster}/history", headers=reader)
        assert (refused.status_code, refused.get_json()["error"]["code"]) == (403, "Forbidden")
    assert client.get("/v1/clusters/a/history").status_code == 401
