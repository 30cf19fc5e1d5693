"""The Redis store: its keys, durability with AOF, unavailability, and the registry."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
from redis.cluster import ClusterNode, RedisCluster
from redis.crc import key_slot

from app.breaker import CircuitBreaker
from app.store import ClusterSettings, LimitExceeded, StoreUnavailable, UnreadableCatalog
from app.store.redis import CLIENT_NAME, RedisCatalogStore
from tests.servers import free_port
from tests.store.objects import catalog, model, runtime
from tests.store.support import CLUSTER_PREFIX
from tests.waiting import wait_for


@pytest.fixture
def store(redis_url: str, redis_prefix: str):
    store = RedisCatalogStore.from_url(redis_url, prefix=f"{redis_prefix}catalog:")
    yield store
    store.close()


def test_keys_share_the_cluster_hash_tag_and_never_expire(store, redis_client, redis_prefix):
    store.put_settings("prod", ClusterSettings())
    store.replace_objects("prod", [runtime("a"), runtime("b", namespace="team"), model()])
    store.put_settings("dev", ClusterSettings())
    prefix = f"{redis_prefix}catalog:"
    keys = {key.decode() for key in redis_client.scan_iter(match=f"{redis_prefix}*")}
    assert keys == {
        f"{prefix}{{prod}}:info",
        f"{prefix}{{prod}}:manifests",
        f"{prefix}{{dev}}:info",  # no objects: an empty hash is no key
        f"{prefix}clusters",
    }
    assert all(redis_client.ttl(key) == -1 for key in keys)
    info = redis_client.hgetall(f"{prefix}{{prod}}:info")
    assert {name.decode() for name in info} == {
        "generation",
        "settings",
        "updated_at",
        "counts",
        "uid",
        "index",
        "documents",
    }
    assert info[b"generation"] == b"2"
    assert json.loads(info[b"index"])[0][:3] == ["BaseModel", "demo", "llama"]
    manifests = redis_client.hgetall(f"{prefix}{{prod}}:manifests")
    assert json.loads(manifests[b'["ServingRuntime","team","b"]'])["metadata"]["name"] == "b"
    assert set(redis_client.hkeys(f"{prefix}clusters")) == {b"prod", b"dev"}


def test_acknowledged_writes_survive_a_killed_redis_with_aof(redis_server):
    server = redis_server("--appendonly", "yes", "--appendfsync", "always")
    writer = RedisCatalogStore.from_url(server.url, prefix="svc:catalog:")
    writer.put_settings("prod", ClusterSettings(description="durable"))
    written = writer.replace_objects("prod", catalog("c", 30))
    writer.close()
    server.stop()  # SIGKILL: no shutdown save
    server.start()  # same port, same directory
    reader = RedisCatalogStore.from_url(server.url, prefix="svc:catalog:")
    try:
        stored = reader.read_catalog("prod")
        assert stored.info == written
        assert [item.name for item in stored.objects] == [item.name for item in catalog("c", 30)]
        assert [info.name for info in reader.list_infos()] == ["prod"]
    finally:
        reader.close()


def _every_operation(store: RedisCatalogStore):
    return [
        store.ping,
        store.list_infos,
        lambda: store.get_info("prod"),
        lambda: store.read_catalog("prod"),
        lambda: store.read_documents("prod"),
        lambda: store.put_settings("prod", ClusterSettings(ome_version="1.1")),
        lambda: store.replace_objects("prod", [runtime("b")]),
        lambda: store.apply_objects("prod", [runtime("b")]),
        lambda: store.delete_object("prod", "ClusterServingRuntime", None, "a"),
        lambda: store.delete_cluster("prod"),
    ]


def every_call_asks(**options) -> RedisCatalogStore:
    """A store whose breaker never opens here: every operation goes to the server."""
    return RedisCatalogStore.from_url(
        prefix="svc:catalog:", breaker=CircuitBreaker(1000, 5.0), **options
    )


def test_a_killed_redis_is_unavailable_at_once(redis_server):
    server = redis_server()
    store = every_call_asks(url=server.url, timeout=60)
    try:
        store.put_settings("prod", ClusterSettings())
        store.replace_objects("prod", [runtime("a")])
        server.stop()
        for operation in _every_operation(store):
            with pytest.raises(StoreUnavailable) as unavailable:
                operation()
            # Refused, not waited out (a wait would be the minute's timeout, and say so).
            assert unavailable.value.problem == "Redis cannot be reached (ConnectionError)"
    finally:
        store.close()


def test_a_hung_redis_is_unavailable_after_the_timeout(hung_server):
    store = every_call_asks(url=hung_server.url, timeout=0.1)
    try:
        for operation in _every_operation(store)[:6]:
            with pytest.raises(StoreUnavailable) as unavailable:
                operation()
            assert unavailable.value.problem == (
                "Redis does not answer within OME_RANKER_STORE_TIMEOUT"
            )
            assert not unavailable.value.answered
    finally:
        store.close()
    assert hung_server.connections() >= 1


def test_writes_larger_than_one_lua_unpack(store):
    store.put_settings("prod", ClusterSettings())
    objects = [runtime(f"r{n:05d}") for n in range(2500)]
    assert store.replace_objects("prod", objects).counts["ClusterServingRuntime"] == 2500
    assert len(store.read_documents("prod").runtimes) == 2500
    assert store.replace_objects("prod", objects[:10]).counts["ClusterServingRuntime"] == 10
    assert [item.name for item in store.read_catalog("prod").objects] == [
        f"r{n:05d}" for n in range(10)
    ]


def test_a_name_in_the_registry_without_its_cluster_is_skipped_and_swept(
    redis_url, redis_prefix, redis_client
):
    """What a creation that failed half-way, or a deletion not yet unregistered, leaves."""
    prefix = f"{redis_prefix}catalog:"
    # A grace of an hour: no stall of a loaded machine between the writes below and the store's
    # sweep ages the young orphan past it.
    store = RedisCatalogStore.from_url(redis_url, prefix=prefix, max_clusters=2, orphan_grace=3600)
    try:
        store.put_settings("prod", ClusterSettings())
        now_ms = int(time.time() * 1000)
        redis_client.hset(f"{prefix}clusters", "young", f"{now_ms}-x")
        assert [info.name for info in store.list_infos()] == ["prod"]
        # A young orphan may be a creation under way: it counts, and it stays.
        with pytest.raises(LimitExceeded):
            store.put_settings("dev", ClusterSettings())
        redis_client.hset(f"{prefix}clusters", "young", f"{now_ms - 3_601_000}-x")
        assert store.put_settings("dev", ClusterSettings())[1]
        assert set(redis_client.hkeys(f"{prefix}clusters")) == {b"prod", b"dev"}
        assert [info.name for info in store.list_infos()] == ["dev", "prod"]
    finally:
        store.close()


def test_a_deletion_leaves_the_registry_entry_of_a_cluster_created_again(store, redis_client):
    """Deleting unregisters after the keys are gone; a creation in between keeps its entry."""
    store.put_settings("prod", ClusterSettings())
    other = RedisCatalogStore(store._connect, prefix=store.prefix)
    run = store._run

    def run_then_recreate(script, keys, args):
        if script == "unregister":
            assert other.put_settings("prod", ClusterSettings(description="again"))[1]
        return run(script, keys, args)

    store._run = run_then_recreate
    assert store.delete_cluster("prod")
    store._run = run
    assert [info.settings.description for info in store.list_infos()] == ["again"]
    other.close()


def test_damaged_values_are_unreadable_and_foreign_keys_unavailable(store, redis_client):
    store.put_settings("prod", ClusterSettings())
    store.replace_objects("prod", [runtime("a")])
    info_key = store.info_key("prod")
    redis_client.hset(info_key, "documents", '[[9,"R"]]')
    with pytest.raises(UnreadableCatalog, match="codec version 9"):
        store.read_documents("prod")
    redis_client.hset(info_key, "counts", "{")
    for read in (store.get_info, store.read_catalog, store.read_documents):
        with pytest.raises(UnreadableCatalog):
            read("prod")
    redis_client.delete(info_key)
    redis_client.set(info_key, "someone else's string")
    with pytest.raises(StoreUnavailable, match="WRONGTYPE"):
        store.get_info("prod")


def _our_connections(server) -> int:
    client = server.client()
    try:
        return sum(entry["name"] == CLIENT_NAME for entry in client.client_list())
    finally:
        client.close()


def test_a_cluster_keeps_its_keys_in_one_slot_and_clusters_spread(redis_cluster):
    store = RedisCatalogStore.from_url(redis_cluster[0].url, prefix=CLUSTER_PREFIX, cluster=True)
    names = [f"cluster-{n}" for n in range(12)]
    try:
        for name in names:
            store.put_settings(name, ClusterSettings())
            store.replace_objects(name, [runtime("a"), model()])
        assert [info.name for info in store.list_infos()] == sorted(names)
    finally:
        store.close()
    # Closing the store closes its connections to every node.
    wait_for(
        lambda: not any(_our_connections(node) for node in redis_cluster),
        "every node sees our connections closed",
    )
    client = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", redis_cluster[0].port)])
    try:
        keys = [key.decode() for key in client.scan_iter(match=f"{CLUSTER_PREFIX}*")]
        assert len(keys) == 2 * len(names) + 1
        for name in names:
            assert key_slot(store.info_key(name).encode()) == key_slot(
                store.manifests_key(name).encode()
            )
        ports = {client.get_node_from_key(store.info_key(name)).port for name in names}
        assert len(ports) > 1
        assert all(client.ttl(key) == -1 for key in keys)
    finally:
        client.close()


def test_an_unreachable_cluster_is_unavailable_not_an_error_at_start_up():
    # RedisCluster connects when it is built: that happens at the first command, not before.
    store = RedisCatalogStore.from_url(
        f"redis://127.0.0.1:{free_port()}/0", prefix="x:", cluster=True, timeout=0.2
    )
    for operation in _every_operation(store):
        with pytest.raises(StoreUnavailable):
            operation()
    store.close()


def test_a_write_decided_on_a_deleted_cluster_never_lands_on_its_successor(
    redis_url: str, redis_prefix: str
):
    """A write reads the cluster (uid A, generation 1) and decides; before it commits, the
    cluster is deleted and created again (uid B, generation 1 too). The commit's compare-and-set
    names the uid as well as the generation, so the write decides again on B instead of
    writing A's uid and a generation of A's history over B (whose cached answers are keyed by
    uid and generation)."""
    prefix = f"{redis_prefix}catalog:"
    admin = RedisCatalogStore.from_url(redis_url, prefix=prefix)
    replaced = []

    def clock_that_replaces_the_cluster_once() -> datetime:
        if not replaced:  # read while the writer decides (for updated_at)
            admin.delete_cluster("prod")
            replaced.append(admin.put_settings("prod", ClusterSettings())[0])
        return datetime.now(UTC)

    writer = RedisCatalogStore.from_url(
        redis_url, prefix=prefix, clock=clock_that_replaces_the_cluster_once
    )
    try:
        first, _ = admin.put_settings("prod", ClusterSettings())
        settings = ClusterSettings(description="synced")
        written, created = writer.put_settings("prod", settings, may_create=False)
        [successor] = replaced
        assert successor.uid != first.uid
        assert (written.uid, written.generation, created) == (successor.uid, 2, False)
        assert admin.get_info("prod") == written
    finally:
        writer.close()
        admin.close()
