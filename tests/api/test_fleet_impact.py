"""rules §19 "Fleet impact": ``POST /v1/fleet/impact`` is, for each cluster the token may read,
exactly what ``POST /v1/clusters/{c}/impact`` answers (a property over generated fleets), with
the totals and the clusters left out counted, never named; bounded as one request (shared
questions counted once)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.api.fleet_impact import summary
from tests.builders import entry, isvc_doc, model_doc, runtime_doc, serving_runtime, token_file
from tests.servers import SEED_YAML

JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}
FLEET = "/v1/fleet/impact"


def _cluster_answer(client, cluster: str, body: bytes, query: str = "", headers=JSON):
    answer = client.post(f"/v1/clusters/{cluster}/impact{query}", data=body, headers=headers)
    assert answer.status_code == 200, answer.get_data()
    return answer.get_json()


def _store(client, cluster: str, objects: list[dict], headers: dict | None = None) -> None:
    created = client.put(f"/v1/clusters/{cluster}", json={}, headers=headers or {})
    assert created.status_code in (200, 201)
    written = client.put(
        f"/v1/clusters/{cluster}/objects?allowEmpty=true",
        data=json.dumps(objects),
        headers={**JSON, **(headers or {})},
    )
    assert written.status_code == 200, written.get_data()


# --- the property: a fleet's impact is its clusters' impacts ------------------------------------

VERSIONS = ("1.0.0", "2.0.0")
ARCHITECTURES = ("LlamaForCausalLM", "Qwen2ForCausalLM")


@st.composite
def runtimes(draw, name: str) -> dict:
    item = entry(
        format_version=draw(st.sampled_from(VERSIONS)),
        architecture=draw(st.sampled_from(ARCHITECTURES)),
        auto_select=draw(st.booleans()),
        priority=draw(st.sampled_from((None, 1, 5))),
    )
    if draw(st.booleans()):
        return runtime_doc(name, item, disabled=draw(st.booleans()))
    return serving_runtime(name, item)


@st.composite
def fleets(draw) -> tuple[list[list[dict]], list[dict], list[str]]:
    """2–4 catalogs drawn from small pools (so that some agree on their runtimes, some on
    everything), a change (runtimes laid over them) and ``?delete=`` items."""
    pool = [draw(runtimes(f"rt-{i}")) for i in range(4)]
    qwen = model_doc("qwen", architecture="Qwen2ForCausalLM")
    services = [
        isvc_doc(f"svc-{i}", model={"name": draw(st.sampled_from(("llama", "qwen", "gone")))})
        for i in range(4)
    ]
    services.append(isvc_doc("pinned", model={"name": "llama"}, runtime={"name": "rt-0"}))
    catalogs = []
    for _ in range(draw(st.integers(2, 4))):
        chosen = draw(st.lists(st.sampled_from(pool), unique_by=lambda r: r["metadata"]["name"]))
        # One model name, its content drawn per cluster: equal runtimes, other answers.
        models = [model_doc("llama", format_version=draw(st.sampled_from(VERSIONS))), qwen]
        catalogs.append(chosen + models + draw(st.lists(st.sampled_from(services), min_size=1)))
    change = [draw(runtimes(f"rt-{draw(st.integers(0, 4))}"))]
    deleted = draw(
        st.lists(st.sampled_from(("ClusterServingRuntime/rt-1", "ServingRuntime/demo/rt-2")))
    )
    return catalogs, change, deleted


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(fleet=fleets())
def test_the_fleet_impact_is_each_clusters_own_impact(fuzz_client, fleet):
    catalogs, change, deleted = fleet
    client = fuzz_client
    names = [f"fleet-{i}" for i in range(len(catalogs))]
    try:
        for name, objects in zip(names, catalogs, strict=True):
            _store(client, name, objects)
        body = json.dumps(change).encode()
        query = "?" + "&".join(f"delete={item}" for item in deleted) if deleted else ""
        answer = client.post(f"{FLEET}{query}", data=body, headers=JSON)
        assert answer.status_code == 200, answer.get_data()
        fleet_answer = answer.get_json()
        assert [part["cluster"] for part in fleet_answer["clusters"]] == names
        for part in fleet_answer["clusters"]:
            own = _cluster_answer(client, part["cluster"], body, query)
            assert {key: part[key] for key in own} == own
        assert fleet_answer["count"] == sum(p["count"] for p in fleet_answer["clusters"])
        assert fleet_answer["notReadable"] == 0
    finally:
        for name in names:
            client.delete(f"/v1/clusters/{name}")


# --- one fleet, by hand -------------------------------------------------------------------------


def _seeded_fleet(client, headers: dict | None = None) -> None:
    seed = _seed_documents()
    _store(client, "east", seed, headers)
    _store(client, "west", seed, headers)
    _store(client, "north", [d for d in seed if d["kind"] != "InferenceService"], headers)


def _seed_documents() -> list[dict]:
    return [document for document in yaml.safe_load_all(SEED_YAML) if document is not None] + [
        isvc_doc("chat", namespace="llama-demo", model={"name": "llama-3-2-3b-instruct"})
    ]


def test_an_answer_per_cluster_with_a_summary(client):
    _seeded_fleet(client)
    answer = client.post(FLEET, data=_disabling_the_selected(), headers=YAML)
    assert answer.status_code == 200, answer.get_data()
    body = answer.get_json()
    assert [part["cluster"] for part in body["clusters"]] == ["east", "north", "west"]
    counts = {part["cluster"]: part["count"] for part in body["clusters"]}
    assert counts["north"] == 0 and counts["east"] == counts["west"] > 0
    assert body["summary"] == (
        f"{counts['east'] * 2} InferenceService{'s' if counts['east'] * 2 != 1 else ''} would "
        "change in 2 of 3 clusters"
    )
    assert body["notReadable"] == 0
    assert answer.headers["Cache-Control"] == "no-store"
    text = client.post(
        FLEET, data=_disabling_the_selected(), headers={**YAML, "Accept": "text/plain"}
    )
    lines = text.get_data(as_text=True).splitlines()
    assert lines[0].split() == [
        "CLUSTER", "NAMESPACE", "INFERENCESERVICE", "MODEL", "BEFORE", "AFTER", "MESSAGE"
    ]  # fmt: skip
    assert [line.split()[0] for line in lines[1:]] == ["east"] * counts["east"] + ["west"] * counts[
        "west"
    ]


def _disabling_the_selected() -> bytes:
    """The seed's ServingRuntime, which its InferenceService selects, disabled."""
    (selected,) = [d for d in _seed_documents() if d["kind"] == "ServingRuntime"]
    return yaml.safe_dump(dict(selected, spec={**selected["spec"], "disabled": True})).encode()


def test_only_the_clusters_asked(client):
    _seeded_fleet(client)
    body = client.post(
        f"{FLEET}?clusters=west,north,west", data=_disabling_the_selected(), headers=YAML
    )
    assert [part["cluster"] for part in body.get_json()["clusters"]] == ["north", "west"]
    missing = client.post(f"{FLEET}?clusters=west,nope", data=b"[]", headers=JSON)
    assert (missing.status_code, missing.get_json()["error"]["code"]) == (404, "ClusterNotFound")
    for bad in ("?clusters=Bad_Name", "?clusters=,"):
        refused = client.post(FLEET + bad, data=b"[]", headers=JSON)
        assert refused.status_code == 400, bad


def test_the_summary_counts_in_words():
    assert summary(37, 3, 12, 0) == "37 InferenceServices would change in 3 of 12 clusters"
    assert summary(1, 1, 1, 2) == (
        "1 InferenceService would change in 1 of 1 cluster; 2 clusters not readable"
    )
    assert summary(0, 0, 2, 1).endswith("in 0 of 2 clusters; 1 cluster not readable")


def test_no_cluster_is_an_empty_answer(client):
    answer = client.post(FLEET, data=b"[]", headers=JSON).get_json()
    assert answer == {
        "summary": "0 InferenceServices would change in 0 of 0 clusters",
        "checked": 0,
        "count": 0,
        "clusters": [],
        "notReadable": 0,
    }


# --- access -------------------------------------------------------------------------------------


@pytest.fixture
def guarded(make_app, backend_settings, tmp_path):
    tokens = token_file(
        tmp_path / "tokens.yaml",
        {"name": "admin", "secret": "admin-secret", "write": ["*"]},
        {"name": "two", "secret": "two-secret", "read": ["east", "west"]},
        {"name": "none", "secret": "none-secret"},
    )
    client = make_app(**backend_settings, AUTH_MODE="token", TOKENS_FILE=tokens).test_client()
    _seeded_fleet(client, {"Authorization": "Bearer admin-secret"})
    return client


def test_a_token_of_two_clusters_sees_two_and_a_count(guarded):
    two = {**YAML, "Authorization": "Bearer two-secret"}
    body = guarded.post(FLEET, data=_disabling_the_selected(), headers=two).get_json()
    assert [part["cluster"] for part in body["clusters"]] == ["east", "west"]
    assert body["notReadable"] == 1
    assert body["summary"].endswith("in 2 of 2 clusters; 1 cluster not readable")
    assert "north" not in json.dumps(body)


def test_names_a_token_may_not_read_reveal_nothing(guarded):
    two = {**JSON, "Authorization": "Bearer two-secret"}
    stored = guarded.post(f"{FLEET}?clusters=east,north", data=b"[]", headers=two)
    unknown = guarded.post(f"{FLEET}?clusters=east,nowhere", data=b"[]", headers=two)
    assert stored.status_code == unknown.status_code == 200
    assert stored.get_json() == unknown.get_json()
    assert stored.get_json()["notReadable"] == 1
    nothing = {**JSON, "Authorization": "Bearer none-secret"}
    body = guarded.post(FLEET, data=b"[]", headers=nothing).get_json()
    assert (body["clusters"], body["notReadable"]) == ([], 3)


def test_no_token_is_a_401(guarded):
    assert guarded.post(FLEET, data=b"[]", headers=JSON).status_code == 401


# --- bounds -------------------------------------------------------------------------------------


def _work(client, query: str = "") -> Any:
    return client.post(f"{FLEET}{query}", data=_disabling_the_selected(), headers=YAML)


def test_the_work_of_every_cluster_counts_and_shared_questions_once(make_app):
    one = make_app().test_client()
    _seeded_fleet(one)
    # What one cluster's impact needs, read from the refusal of a bound of 1.
    tight = make_app(MAX_RUNTIME_CHECKS=1).test_client()
    _seeded_fleet(tight)
    single = tight.post("/v1/clusters/east/impact", data=_disabling_the_selected(), headers=YAML)
    needed = single.get_json()["error"]["requested"]
    fleet = _work(tight).get_json()["error"]
    # east and west agree on everything: their questions are asked once; north asks none.
    assert (fleet["code"], fleet["requested"]) == ("LimitExceeded", needed)
    assert fleet["variable"] == "OME_RANKER_MAX_RUNTIME_CHECKS"
    assert _work(one).status_code == 200


def test_different_catalogs_add_up(make_app):
    tight = make_app(MAX_RUNTIME_CHECKS=1).test_client()
    _seeded_fleet(tight)
    other = _seed_documents()
    other[0] = dict(other[0], spec={**other[0]["spec"], "modelParameterSize": "8B"})
    _store(tight, "west", other)
    single = tight.post("/v1/clusters/east/impact", data=_disabling_the_selected(), headers=YAML)
    needed = single.get_json()["error"]["requested"]
    fleet = _work(tight).get_json()["error"]
    assert fleet["requested"] == 2 * needed  # west's model differs: its questions are its own


def test_the_answer_bound_counts_every_cluster(make_app):
    client = make_app(MAX_ANSWER_BYTES=1).test_client()
    _seeded_fleet(client)
    refused = _work(client)
    assert refused.get_json()["error"]["variable"] == "OME_RANKER_MAX_ANSWER_BYTES"


def test_the_deadline_holds(make_app):
    client = make_app(REQUEST_DEADLINE_SECONDS=0).test_client()
    _seeded_fleet(make_app(STORE_PATH=client.application.config["STORE_PATH"]).test_client())
    answer = _work(client)
    assert (answer.status_code, answer.get_json()["error"]["code"]) == (503, "DeadlineExceeded")
