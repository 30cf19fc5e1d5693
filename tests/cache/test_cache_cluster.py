"""Redis Cluster mode (``OME_RANKER_REDIS_CLUSTER=true``), on a real three-node cluster the test
builds from its own redis-server processes."""

from __future__ import annotations

import json

from redis.cluster import ClusterNode, RedisCluster
from redis.crc import key_slot

from app.breaker import OPEN
from app.cache import get_ranking_cache
from app.selection import RULES_VERSION
from migrations.runner import applied, apply_pending
from tests.builders import entry, model_doc, rank_body, runtime_doc
from tests.servers import free_port

PREFIX = "ome-ranker-test:"


def _body(n: int) -> dict:
    return rank_body(model_doc(), runtime_doc("vllm", entry(weight=n + 1)))


def _post(api, body: dict):
    return api.post("/v1/rank", data=json.dumps(body), headers={"Content-Type": "application/json"})


def test_cached_answers_in_a_cluster(redis_cluster, make_app):
    app = make_app(REDIS_URL=redis_cluster[0].url, REDIS_CLUSTER=True, CACHE_PREFIX=PREFIX)
    cache = get_ranking_cache(app)
    api = app.test_client()
    for n in range(8):
        miss, hit = _post(api, _body(n)), _post(api, _body(n))
        assert (miss.headers["X-Cache"], hit.headers["X-Cache"]) == ("miss", "hit")
        assert miss.get_data() == hit.get_data()
    assert cache.counts["errors"] == 0
    assert cache.describe()["backend"] == "redis-cluster"

    reader = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", redis_cluster[0].port)])
    try:
        stored = list(reader.scan_iter(match=f"{PREFIX}*"))
        assert len(stored) == 16
        for key in stored:
            assert cache.backend.codec.decode(reader.get(key), key.decode()).status == 200
        # Each answer went to two keys (two slots, as a rule two nodes) in one pipeline.
        assert len({key_slot(key) for key in stored}) > 1
        assert len({reader.get_node_from_key(key).port for key in stored}) > 1
    finally:
        reader.close()


def test_a_cluster_node_dies(redis_cluster, make_app):
    app = make_app(
        REDIS_URL=redis_cluster[0].url,
        REDIS_CLUSTER=True,
        CACHE_PREFIX=PREFIX,
        CACHE_BREAKER_FAILURES=2,
    )
    api = app.test_client()
    expected = [_post(api, _body(n)).get_data() for n in range(6)]
    redis_cluster[2].stop()
    for n in range(6):
        response = _post(api, _body(n))
        assert response.status_code == 200
        assert response.get_data() == expected[n]


def test_an_unreachable_cluster_is_a_cache_that_is_down(make_app):
    # RedisCluster connects when it is built: that must not happen in create_app.
    url = f"redis://127.0.0.1:{free_port()}/0"
    app = make_app(REDIS_URL=url, REDIS_CLUSTER=True, CACHE_BREAKER_FAILURES=2)
    cache = get_ranking_cache(app)
    assert cache.describe()["state"] == "up"  # nothing tried yet
    api = app.test_client()
    for n in range(4):
        response = _post(api, _body(n))
        assert response.status_code == 200
        assert response.headers["X-Cache"] == "miss"
    assert cache.breaker.state == OPEN
    assert cache.counts["errors"] == 2
    assert cache.describe() | {"backend": "redis-cluster", "state": "down"} == cache.describe()


def test_migrations_in_a_cluster(redis_cluster):
    client = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", redis_cluster[0].port)])
    try:
        older = [f"{PREFIX}rank:v0:{n:064x}" for n in range(50)]  # spread over every node
        current = f"{PREFIX}rank:v{RULES_VERSION}:{0:064x}"
        for key in [*older, current]:
            client.set(key, b"x")
        assert len({client.get_node_from_key(key).port for key in older}) == len(redis_cluster)
        # Every migration so far purges the entries of older rules: the first finds them all.
        results = apply_pending(client, PREFIX)
        assert results[0][1].startswith("unlinked 50 ")
        assert sum(client.exists(key) for key in older) == 0
        assert client.exists(current) == 1
        assert {identifier for identifier, _ in results} <= set(applied(client, PREFIX))
    finally:
        client.close()
