"""Each cluster's counts by outcome, cached per generation (app/http/fleet_reads.py, rules §21):
computed once per generation and incarnation of a catalog, the work of those not cached summed
before any starts, what a write or a delete meanwhile makes of the answer, and the fleet's tag."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app import errors
from app.cache import get_ranking_cache
from app.catalog import get_store
from app.http.fleet_reads import (
    age_seconds,
    bounded_outcomes,
    fleet_etag,
    fleet_outcomes,
    held,
)
from tests.paths import FIXTURES

YAML = {"Content-Type": "application/yaml"}
CLUSTER_YAML = (FIXTURES / "kubectl_get_seed_cluster.yaml").read_bytes()
SEED_WORK = 16  # what counting that catalog may cost: (4 + 4) questions × 2 runtimes


@pytest.fixture
def fleet_app(make_app, backend_settings):
    app = make_app(**backend_settings)
    client = app.test_client()
    for cluster in ("a", "b"):
        assert client.put(f"/v1/clusters/{cluster}", json={}).status_code == 201
        client.put(f"/v1/clusters/{cluster}/objects", data=CLUSTER_YAML, headers=YAML)
    return app


def outcomes(app, infos=None, check_work=None):
    store = get_store(app)
    session = get_ranking_cache(app).session()
    with app.app_context():
        options = {} if check_work is None else {"check_work": check_work}
        return fleet_outcomes(
            session, store, store.list_infos() if infos is None else infos, **options
        )


def misses(app) -> int:
    return get_ranking_cache(app).stats()["misses"]


def test_counted_once_per_generation(fleet_app):
    work = []
    first = outcomes(fleet_app, check_work=lambda cost, clusters: work.append((cost, clusters)))
    assert [each.info.name for each in first] == ["a", "b"]
    assert work == [(2 * SEED_WORK, 2)] and misses(fleet_app) == 2
    again = outcomes(fleet_app, check_work=lambda cost, clusters: work.append((cost, clusters)))
    assert again == first and work == [(2 * SEED_WORK, 2)] and misses(fleet_app) == 2
    client = fleet_app.test_client()
    client.delete("/v1/clusters/b/objects/InferenceService/llama-chat?namespace=llama-demo")
    after = outcomes(fleet_app, check_work=lambda cost, clusters: work.append((cost, clusters)))
    assert work[-1] == (SEED_WORK // 2, 1) and misses(fleet_app) == 3  # b alone, one service
    assert (after[0], after[1].info.generation) == (first[0], 3)
    assert after[1].counts.total == first[1].counts.total - 1


def test_a_cluster_made_again_is_counted_again(fleet_app):
    before = outcomes(fleet_app)
    client = fleet_app.test_client()
    client.delete("/v1/clusters/a")
    client.put("/v1/clusters/a", json={})
    client.put("/v1/clusters/a/objects", data=b"", headers=YAML)
    client.put("/v1/clusters/a/objects", data=CLUSTER_YAML, headers=YAML)
    after = outcomes(fleet_app)
    assert after[0].info.generation == before[0].info.generation == 2  # same generation,
    assert after[0].info.uid != before[0].info.uid  # another incarnation: not the cached one
    assert misses(fleet_app) == 3


def test_what_is_answered_is_the_catalog_as_counted(fleet_app):
    store = get_store(fleet_app)
    listed = store.list_infos()
    client = fleet_app.test_client()
    client.delete("/v1/clusters/a")  # gone after it was listed: left out
    client.delete("/v1/clusters/b/objects/InferenceService/llama-chat?namespace=llama-demo")
    answered = outcomes(fleet_app, listed)
    assert [(each.info.name, each.info.generation) for each in answered] == [("b", 3)]
    assert answered[0].counts.total == 1


def test_the_work_of_the_clusters_not_cached_is_refused_over_the_bound(fleet_app):
    fleet_app.config["MAX_RUNTIME_CHECKS"] = 2 * SEED_WORK - 1
    with pytest.raises(errors.LimitExceeded) as refused:
        outcomes(fleet_app)
    assert refused.value.details["requested"] == 2 * SEED_WORK
    assert misses(fleet_app) == 0  # refused before any started
    fleet_app.config["MAX_RUNTIME_CHECKS"] = SEED_WORK
    store = get_store(fleet_app)
    outcomes(fleet_app, [store.get_info("a")])
    outcomes(fleet_app)  # a is cached: b alone is work
    assert misses(fleet_app) == 2


def test_a_scrape_leaves_out_what_it_cannot_count(fleet_app):
    store = get_store(fleet_app)
    session = get_ranking_cache(fleet_app).session()
    fleet_app.config["MAX_RUNTIME_CHECKS"] = SEED_WORK
    with fleet_app.app_context():
        first = bounded_outcomes(session, store, store.list_infos())
        second = bounded_outcomes(session, store, store.list_infos())
        uncached = bounded_outcomes(None, store, store.list_infos())
    assert [(info.name, counts is not None) for info, counts in first] == [
        ("a", True),
        ("b", False),
    ]
    assert [counts is not None for _, counts in second] == [True, True]
    assert [counts for _, counts in uncached] == [None, None]
    assert held(session, store.get_info("b")) == second[1][1]


def test_the_fleets_tag_names_its_catalogs_and_no_name(fleet_app):
    store = get_store(fleet_app)
    infos = store.list_infos()
    synced = store.sync_times()
    tag = fleet_etag(infos, 0, synced)
    assert tag.startswith('"fleet-') and tag.endswith('"') and '"a"' not in tag
    assert fleet_etag(infos, 0, synced) == tag
    assert fleet_etag(infos, 1, synced) != tag  # a cluster more or less that it may not read
    assert fleet_etag(infos[:1], 0, synced) != tag
    # A sync that changes nothing moves the tag: the answer says when it was.
    assert fleet_etag(infos, 0, {**synced, "a": "2031-01-01T00:00:00.000Z"}) != tag
    fleet_app.test_client().put("/v1/clusters/b", json={"description": "changed"})
    assert fleet_etag(store.list_infos(), 0, synced) != tag


def test_the_age_in_whole_seconds_never_below_zero(fleet_app):
    info = get_store(fleet_app).get_info("a")
    written = datetime.fromisoformat(info.updated_at.replace("Z", "+00:00"))
    assert age_seconds(info, written + timedelta(seconds=59, milliseconds=999)) == 59
    assert age_seconds(info, written - timedelta(days=1)) == 0
    assert age_seconds(info, datetime.now(UTC)) >= 0
