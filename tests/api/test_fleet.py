"""``GET /v1/fleet`` and the outcome counts of ``GET /v1/clusters`` (rules §21), on both stores:
access (a token sees its clusters and counts the others), the counts against each cluster's own
selections and lint, the ETag and its 304, gzip, ages, and the bound on the work."""

from __future__ import annotations

import gzip
import sqlite3
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
import yaml

from app.catalog import get_store
from app.version import __version__
from config.settings import OPS_LISTENER_ENVIRON_KEY
from tests.api.support import metric_samples, value
from tests.builders import entry, isvc_doc, model_doc, runtime_doc, token_file
from tests.ome_docs.support import load_cases
from tests.paths import FIXTURES

SEED_YAML = (FIXTURES / "kubectl_get_seed_cluster.yaml").read_bytes()

YAML = {"Content-Type": "application/yaml"}
ADMIN = {"Authorization": "Bearer admin-secret"}
TWO = {"Authorization": "Bearer two-secret"}
OUTCOMES = ("selected", "explicit", "noRuntime", "refused", "classUnknown", "classError")


@pytest.fixture
def fleet_app(make_app, backend_settings, tmp_path):
    tokens = token_file(
        tmp_path / "tokens.yaml",
        {"name": "admin", "secret": "admin-secret", "write": ["*"]},
        {"name": "two", "secret": "two-secret", "read": ["a", "c"]},
        {"name": "none", "secret": "none-secret", "read": ["zz"]},
    )
    return make_app(**backend_settings, AUTH_MODE="token", TOKENS_FILE=tokens)


@pytest.fixture
def fleet(fleet_app):
    client = fleet_app.test_client()
    for cluster in ("a", "b", "c", "d"):
        assert client.put(f"/v1/clusters/{cluster}", json={}, headers=ADMIN).status_code == 201
        pushed = client.put(
            f"/v1/clusters/{cluster}/objects", data=SEED_YAML, headers={**ADMIN, **YAML}
        )
        assert pushed.status_code == 200
    return client


def expected_counts(client, cluster: str, headers: dict) -> dict[str, int]:
    """What the cluster's own selections and the lint of its stored objects say."""
    rows = client.get(f"/v1/clusters/{cluster}/selections", headers=headers).get_json()
    split = Counter(
        "noRuntime"
        if row["runtime"] is None
        else ("explicit" if row["runtime"]["explicit"] else "selected")
        for row in rows["selections"]
    )
    stored = client.get(f"/v1/clusters/{cluster}/objects", headers=headers).get_json()["items"]
    linted = client.post("/v1/lint", json=stored, headers=headers).get_json()
    refused = {
        (finding["namespace"], finding["name"])
        for finding in linted["findings"]
        if finding["severity"] == "error" and finding["kind"] == "InferenceService"
    }
    return {
        "total": rows["count"],
        "selected": split["selected"],
        "explicit": split["explicit"],
        "noRuntime": split["noRuntime"],
        "refused": len(refused),
        "classUnknown": 0,
        "classError": 0,
    }


def test_a_token_of_two_clusters_sees_two_and_counts_the_others(fleet):
    response = fleet.get("/v1/fleet", headers=TWO)
    assert response.status_code == 200
    body = response.get_json()
    assert [cluster["name"] for cluster in body["clusters"]] == ["a", "c"]
    assert body["notReadable"] == 2
    assert b'"b"' not in response.get_data() and b'"d"' not in response.get_data()
    every = fleet.get("/v1/fleet", headers=ADMIN).get_json()
    assert [cluster["name"] for cluster in every["clusters"]] == ["a", "b", "c", "d"]
    assert every["notReadable"] == 0
    nothing = fleet.get("/v1/fleet", headers={"Authorization": "Bearer none-secret"}).get_json()
    assert (nothing["clusters"], nothing["notReadable"]) == ([], 4)
    assert nothing["totals"] == dict.fromkeys(("total", *OUTCOMES), 0)
    assert fleet.get("/v1/fleet").status_code == 401
    listed = fleet.get("/v1/clusters", headers=TWO).get_json()["clusters"]
    assert [cluster["name"] for cluster in listed] == ["a", "c"]


def test_counts_are_the_clusters_selections_and_lint(fleet):
    body = fleet.get("/v1/fleet", headers=ADMIN).get_json()
    seed = expected_counts(fleet, "a", ADMIN)
    assert seed["total"] == 2 and seed["selected"] + seed["explicit"] >= 1
    for cluster in body["clusters"]:
        assert cluster["inferenceServices"] == seed
        assert cluster["generation"] == 2
    assert body["totals"] == {name: value * 4 for name, value in seed.items()}
    listed = fleet.get("/v1/clusters", headers=ADMIN).get_json()["clusters"]
    assert [cluster["inferenceServices"] for cluster in listed] == [seed] * 4


def test_the_cluster_list_keeps_its_fields_and_adds_the_counts(fleet):
    listed = fleet.get("/v1/clusters", headers=ADMIN).get_json()["clusters"]
    one = fleet.get("/v1/clusters/a", headers=ADMIN).get_json()
    assert {key: value for key, value in listed[0].items() if key != "inferenceServices"} == one
    assert list(listed[0])[-1] == "inferenceServices"


def test_a_write_changes_the_counts_and_the_etag_and_a_match_is_a_304(fleet):
    first = fleet.get("/v1/fleet", headers=TWO)
    tag = first.headers["ETag"]
    again = fleet.get("/v1/fleet", headers={**TWO, "If-None-Match": tag})
    assert (again.status_code, again.headers["ETag"], again.get_data()) == (304, tag, b"")
    # What one token may read: kept by no browser or proxy, as every catalog answer.
    assert first.headers["Cache-Control"] == again.headers["Cache-Control"] == "no-store"
    assert fleet.get("/v1/fleet", headers={**TWO, "If-None-Match": f"W/{tag}"}).status_code == 304
    assert fleet.get("/v1/fleet", headers={**ADMIN, "If-None-Match": tag}).status_code == 200
    # A write to a cluster the token may not read leaves its fleet as it was.
    deleted = fleet.delete("/v1/clusters/b/objects/ClusterServingRuntime/vllm-llama", headers=ADMIN)
    assert deleted.status_code == 200
    assert fleet.get("/v1/fleet", headers={**TWO, "If-None-Match": tag}).status_code == 304
    emptied = fleet.put(
        "/v1/clusters/a/objects?allowEmpty=true", data=b"", headers={**ADMIN, **YAML}
    )
    assert emptied.status_code == 200
    changed = fleet.get("/v1/fleet", headers={**TWO, "If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    a = changed.get_json()["clusters"][0]
    assert (a["name"], a["generation"], a["inferenceServices"]["total"]) == ("a", 3, 0)


def test_gzip_and_its_etag(fleet):
    for cluster in ("e", "f", "g", "h"):  # an answer of 1 KiB or more is compressed
        assert fleet.put(f"/v1/clusters/{cluster}", json={}, headers=ADMIN).status_code == 201
    plain = fleet.get("/v1/fleet", headers=ADMIN)
    assert len(plain.get_data()) >= 1024
    packed = fleet.get("/v1/fleet", headers={**ADMIN, "Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert packed.headers["ETag"] == plain.headers["ETag"][:-1] + '-gzip"'
    assert packed.headers["Vary"] == "Accept, Accept-Encoding"
    inflated = gzip.decompress(packed.get_data())
    assert yaml.safe_load(inflated)["clusters"] == plain.get_json()["clusters"]
    held = fleet.get(
        "/v1/fleet",
        headers={**ADMIN, "Accept-Encoding": "gzip", "If-None-Match": packed.headers["ETag"]},
    )
    assert (held.status_code, held.headers["ETag"]) == (304, packed.headers["ETag"])


def test_the_age_is_computed_as_the_answer_is_sent(fleet, fleet_app):
    store = get_store(fleet_app)
    body = fleet.get("/v1/fleet", headers=TWO).get_json()
    updated = datetime.fromisoformat(body["clusters"][0]["updatedAt"].replace("Z", "+00:00"))
    store.clock = lambda: updated + timedelta(seconds=125, milliseconds=900)
    later = fleet.get("/v1/fleet", headers=TWO)
    assert later.get_json()["clusters"][0]["ageSeconds"] == 125  # whole seconds, rounded down
    store.clock = lambda: updated + timedelta(hours=2)
    latest = fleet.get("/v1/fleet", headers=TWO)
    assert latest.get_json()["clusters"][0]["ageSeconds"] == 7200
    assert latest.headers["ETag"] == later.headers["ETag"]  # the age is not in the tag
    store.clock = lambda: updated - timedelta(seconds=5)  # a clock behind the write's
    assert fleet.get("/v1/fleet", headers=TWO).get_json()["clusters"][0]["ageSeconds"] == 0
    store.clock = lambda: datetime.now(UTC)


def test_the_work_of_every_cluster_counts_against_the_bound(make_app, backend_settings):
    app = make_app(**backend_settings, MAX_RUNTIME_CHECKS=20)
    client = app.test_client()
    for cluster in ("a", "b"):
        client.put(f"/v1/clusters/{cluster}", json={})
        client.put(f"/v1/clusters/{cluster}/objects", data=SEED_YAML, headers=YAML)
    # One cluster's selections fit; the outcomes of both do not.
    assert client.get("/v1/clusters/a/selections").status_code == 200
    refused = client.get("/v1/fleet")
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert error["code"] == "LimitExceeded"
    assert "2 clusters not cached" in error["message"]
    # The list answers whatever the counts cost: those that fit, the rest null, and the next
    # request goes on from there.
    listed = client.get("/v1/clusters")
    assert listed.status_code == 200
    assert [c["inferenceServices"] is None for c in listed.get_json()["clusters"]] == [False, True]
    assert client.get("/v1/fleet").status_code == 200  # a is cached: b alone fits
    listed = client.get("/v1/clusters").get_json()["clusters"]
    assert [c["inferenceServices"] is None for c in listed] == [False, False]
    app.config["MAX_RUNTIME_CHECKS"] = 1
    assert client.get("/v1/fleet").status_code == 200  # cached: no work left to do


CASES = [case for case in load_cases() if "kind: InferenceService" in case.values[0]["manifests"]]


@pytest.mark.parametrize("case", CASES)
def test_counts_agree_with_selections_over_omes_documented_manifests(make_app, case):
    """Every outcome, against the cluster's own answers: selections and lint for the split and
    refused, each InferenceService's placement (its ranking by name) for the classes."""
    app = make_app()
    client = app.test_client()
    client.put("/v1/clusters/docs", json={})
    pushed = client.put("/v1/clusters/docs/objects", data=case["manifests"].encode(), headers=YAML)
    assert pushed.status_code == 200, pushed.get_data()
    counts = client.get("/v1/fleet").get_json()["clusters"][0]["inferenceServices"]
    rows = client.get("/v1/clusters/docs/selections").get_json()["selections"]
    flags = [_class_flags(client, row) for row in rows if row["runtime"] is not None]
    assert counts == {
        **expected_counts(client, "docs", {}),
        "classUnknown": sum(unknown for unknown, _ in flags),
        "classError": sum(error for _, error in flags),
    }


def _class_flags(client, row) -> tuple[bool, bool]:
    """Whether a component of the InferenceService's placement is unknown, and one fails."""
    answer = client.get(
        f"/v1/clusters/docs/rank?inferenceService={row['namespace']}/{row['name']}"
    ).get_json()
    placement = answer.get("placement") or {}
    parts = [placement[name] for name in ("engine", "decoder") if placement.get(name)]
    return (
        any(not part["known"] for part in parts),
        any(part["error"] is not None for part in parts),
    )


# --- the metrics about the domain -----------------------------------------------------------


def outcome_samples(samples, cluster: str) -> dict[str, float]:
    return {
        labels["outcome"]: sample
        for (name, label_items), sample in samples.items()
        if name == "ome_ranker_inferenceservices"
        for labels in [dict(label_items)]
        if labels["cluster"] == cluster
    }


def test_the_metrics_after_pushes(make_app, backend_settings):
    client = make_app(**backend_settings).test_client()
    samples = metric_samples(client)
    assert value(samples, "ome_ranker_build_info", version=__version__) == 1
    assert not [key for key in samples if key[0] == "ome_ranker_inferenceservices"]
    for cluster in ("east", "west"):
        client.put(f"/v1/clusters/{cluster}", json={})
    client.put("/v1/clusters/east/objects", data=SEED_YAML, headers=YAML)
    samples = metric_samples(client)
    east = expected_counts(client, "east", {})
    assert outcome_samples(samples, "east") == {name: east[name] for name in OUTCOMES}
    assert outcome_samples(samples, "west") == dict.fromkeys(OUTCOMES, 0)
    updated = client.get("/v1/clusters/east").get_json()["updatedAt"]
    moment = datetime.fromisoformat(updated.replace("Z", "+00:00")).timestamp()
    stamp = value(samples, "ome_ranker_catalog_updated_timestamp_seconds", cluster="east")
    assert stamp == pytest.approx(moment, abs=0.001)
    # A sync (a replace of the objects) is noted whether it changed anything; west had none.
    synced = value(samples, "ome_ranker_catalog_synced_timestamp_seconds", cluster="east")
    assert synced >= stamp
    assert not [
        k for k in samples if k[0].endswith("synced_timestamp_seconds") and "west" in str(k)
    ]
    client.put("/v1/clusters/east/objects", data=SEED_YAML, headers=YAML)  # nothing new
    resynced = metric_samples(client)
    assert value(resynced, "ome_ranker_catalog_updated_timestamp_seconds", cluster="east") == stamp
    assert value(resynced, "ome_ranker_catalog_synced_timestamp_seconds", cluster="east") >= synced
    # A write moves them; a cluster deleted is gone from the next scrape.
    client.delete("/v1/clusters/east/objects/InferenceService/llama-chat?namespace=llama-demo")
    client.delete("/v1/clusters/west")
    later = metric_samples(client)
    assert sum(outcome_samples(later, "east")[name] for name in OUTCOMES[:3]) == east["total"] - 1
    assert outcome_samples(later, "west") == {}
    assert value(later, "ome_ranker_catalog_updated_timestamp_seconds", cluster="east") > stamp
    # The changes the history recorded: each InferenceService of the first push (none before),
    # then the one deleted; what GET …/history numbers last.
    newest = client.get("/v1/clusters/east/history?limit=1").get_json()["changes"][0]["seq"]
    assert value(later, "ome_ranker_selection_changes_total", cluster="east") == newest
    assert newest == east["total"] + 1


def test_every_worker_scrapes_the_same_from_the_store(make_app, redis_url, redis_prefix):
    """Two apps on one Redis stand for two gunicorn workers: what one stored, the other's
    scrape counts, though it served nothing."""
    settings = {"REDIS_URL": redis_url, "CACHE_PREFIX": redis_prefix}
    writer = make_app(**settings).test_client()
    scraper = make_app(**settings).test_client()
    writer.put("/v1/clusters/shared", json={})
    writer.put("/v1/clusters/shared/objects", data=SEED_YAML, headers=YAML)
    counts = outcome_samples(metric_samples(scraper), "shared")
    assert counts == outcome_samples(metric_samples(writer), "shared")
    assert sum(counts[name] for name in OUTCOMES[:3]) == 2


def test_a_scrape_counts_what_fits_and_the_next_goes_on(make_app):
    app = make_app(MAX_RUNTIME_CHECKS=20)  # one catalog of the seed costs 16
    client = app.test_client()
    for cluster in ("a", "b", "c"):
        client.put(f"/v1/clusters/{cluster}", json={})
        client.put(f"/v1/clusters/{cluster}/objects", data=SEED_YAML, headers=YAML)
    counted = []
    for _ in range(3):
        samples = metric_samples(client)
        counted.append([bool(outcome_samples(samples, name)) for name in ("a", "b", "c")])
        stamps = [
            value(samples, "ome_ranker_catalog_updated_timestamp_seconds", cluster=name)
            for name in ("a", "b", "c")
        ]
        assert all(stamps)
    assert counted == [[True, False, False], [True, True, False], [True, True, True]]


def test_a_scrape_is_no_hit_nor_miss_of_the_cache(make_app):
    client = make_app().test_client()
    client.put("/v1/clusters/a", json={})
    client.put("/v1/clusters/a/objects", data=SEED_YAML, headers=YAML)
    counters = ("ome_ranker_cache_hits_total", "ome_ranker_cache_misses_total")
    first = metric_samples(client)  # counts a's outcomes: computed and stored
    second = metric_samples(client)  # reads them
    assert outcome_samples(first, "a") == outcome_samples(second, "a") != {}
    assert [value(second, name) for name in counters] == [value(first, name) for name in counters]
    assert client.get("/v1/fleet").status_code == 200  # a request's reads are counted
    assert value(metric_samples(client), counters[0]) == value(second, counters[0]) + 1


def test_refused_reads_the_stored_form_as_lint_does(make_app, backend_settings):
    """What the webhook reads of the manifest besides the document (a decoder without an
    engine, an engine's complete runner) is kept by the catalog and read by the count."""
    client = make_app(**backend_settings).test_client()
    client.put("/v1/clusters/c", json={})
    stream = [
        model_doc("llama"),
        model_doc("qwen", architecture="Qwen2ForCausalLM"),  # no runtime serves it
        runtime_doc("rt", entry()),
        isvc_doc("lonely-decoder", model={"name": "llama"}, decoder={}),  # refused
        isvc_doc("auto", model={"name": "llama"}, engine={}),
        isvc_doc("qwen-bare", model={"name": "qwen"}, engine={}),  # refused: no runtime
        isvc_doc("qwen-runner", model={"name": "qwen"}, engine={"runner": {"image": "vllm"}}),
    ]
    assert client.put("/v1/clusters/c/objects", json=stream).status_code == 200
    counts = client.get("/v1/fleet").get_json()["clusters"][0]["inferenceServices"]
    assert counts == expected_counts(client, "c", {})
    assert (counts["selected"], counts["noRuntime"], counts["refused"]) == (2, 2, 2)


def test_a_store_that_does_not_answer_leaves_the_catalogs_out_of_a_scrape(
    make_app, dead_redis_port
):
    client = make_app(REDIS_URL=f"redis://127.0.0.1:{dead_redis_port}/0").test_client()
    samples = metric_samples(client)
    assert value(samples, "ome_ranker_build_info", version=__version__) == 1
    catalogs = ("ome_ranker_catalog_updated_timestamp_seconds", "ome_ranker_inferenceservices")
    assert [key for key in samples if key[0] in catalogs] == []
    refused = client.get("/v1/fleet")
    assert (refused.status_code, refused.get_json()["error"]["code"]) == (503, "StoreUnavailable")


def test_a_sync_that_changes_nothing_is_seen_in_the_fleet(fleet, fleet_app):
    """``syncedAt`` moves with every replace of the objects; the generation and ``updatedAt``
    only with a change; the tag with either, so a 304 never hides a sync."""
    before = fleet.get("/v1/fleet", headers=ADMIN)
    a = before.get_json()["clusters"][0]
    get_store(fleet_app).clock = lambda: datetime(2031, 5, 4, tzinfo=UTC)
    again = fleet.put("/v1/clusters/a/objects", data=SEED_YAML, headers={**ADMIN, **YAML})
    assert again.status_code == 200
    after = fleet.get("/v1/fleet", headers={**ADMIN, "If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200
    moved = after.get_json()["clusters"][0]
    assert (moved["generation"], moved["updatedAt"]) == (a["generation"], a["updatedAt"])
    assert a["syncedAt"] is not None and moved["syncedAt"] == "2031-05-04T00:00:00.000Z"


def test_metrics_name_clusters_only_where_they_are_the_operators(fleet):
    """With tokens in force, /metrics on the API's listener (no operations listener, or a
    request the worker did not mark as the operations listener's) names no cluster: anyone who
    reaches the API reaches it. Through the operations listener every catalog's series are
    there (rules §17 *Access*, docs/operations.md)."""
    anonymous = fleet.get("/metrics").get_data(as_text=True)
    assert "ome_ranker_build_info" in anonymous
    assert "cluster=" not in anonymous
    operator = fleet.get("/metrics", environ_overrides={OPS_LISTENER_ENVIRON_KEY: True})
    named = operator.get_data(as_text=True)
    for cluster in ("a", "b", "c", "d"):
        assert f'ome_ranker_catalog_updated_timestamp_seconds{{cluster="{cluster}"}}' in named


def test_one_damaged_catalog_leaves_only_its_own_counts_out(make_app, tmp_path):
    """A catalog whose documents do not decode: GET /v1/clusters and the metrics answer the
    others, its counts null and its series of counts absent (the review's reproduction)."""
    path = tmp_path / "damaged.sqlite3"
    client = make_app(STORE_PATH=str(path)).test_client()
    for cluster in ("a", "b", "c"):
        client.put(f"/v1/clusters/{cluster}", json={})
        client.put(f"/v1/clusters/{cluster}/objects", data=SEED_YAML, headers=YAML)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE objects SET document = 'garbage{' WHERE cluster = 'b'")
    listed = client.get("/v1/clusters")
    assert listed.status_code == 200, listed.get_data(as_text=True)
    counts = {each["name"]: each["inferenceServices"] for each in listed.get_json()["clusters"]}
    assert counts["b"] is None and counts["a"] is not None and counts["c"] is not None
    samples = metric_samples(client)
    assert outcome_samples(samples, "b") == {}
    assert outcome_samples(samples, "a") and outcome_samples(samples, "c")
    assert value(samples, "ome_ranker_catalog_updated_timestamp_seconds", cluster="b") > 0
