"""What every catalog store promises (SPEC §17), run on each backend (tests/store/conftest.py)."""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from app.store import (
    KINDS,
    ClusterInfo,
    ClusterNotFound,
    ClusterSettings,
    CreationRefused,
    EmptyReplace,
    LimitExceeded,
    Precondition,
    PreconditionFailed,
    StoredObject,
    StoreError,
)
from app.store.sqlite import SqliteCatalogStore
from tests.clock import TickingCalendar
from tests.store.objects import catalog, isvc, model, runtime

RFC3339_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")


def _keys(stored) -> list[tuple[str, str | None, str]]:
    return [(item.kind, item.namespace, item.name) for item in stored.objects]


def _counts(**counts: int) -> dict[str, int]:
    return {kind: counts.get(kind, 0) for kind in KINDS}


# --- core: every backend, Redis Cluster included -------------------------------------------------


def test_settings_create_then_update(backend):
    store = backend.make(clock=TickingCalendar())
    assert store.get_info("prod") is None
    info, created = store.put_settings("prod", ClusterSettings())
    assert created
    assert (info.name, info.generation, info.counts) == ("prod", 1, _counts())
    assert info.settings == ClusterSettings(ome_version="1.3")
    assert info.updated_at == "2025-01-02T03:04:06.678Z"
    assert store.get_info("prod") == info

    # The same settings again: nothing changes, not even the time.
    assert store.put_settings("prod", ClusterSettings()) == (info, False)

    settings = ClusterSettings(ome_version="1.2", model_cache_provider="oci", description="é")
    updated, created = store.put_settings("prod", settings)
    assert not created
    assert (updated.generation, updated.settings, updated.uid) == (2, settings, info.uid)
    assert updated.updated_at == "2025-01-02T03:04:07.678Z"
    assert store.get_info("prod") == updated
    assert RFC3339_UTC.match(backend.make().put_settings("other", ClusterSettings())[0].updated_at)


def test_replace_apply_and_delete_objects(backend):
    store = backend.make()
    with pytest.raises(ClusterNotFound):
        store.replace_objects("prod", [runtime("a")])
    store.put_settings("prod", ClusterSettings())

    written = [runtime("zeta"), runtime("a", namespace="team"), model(), isvc(), runtime("b")]
    info = store.replace_objects("prod", written)
    assert info.generation == 2
    assert info.counts == _counts(
        BaseModel=1, ClusterServingRuntime=2, InferenceService=1, ServingRuntime=1
    )
    stored = store.read_catalog("prod")
    assert stored.info == info == store.get_info("prod")
    # Key order (kind, namespace, name), whatever the order written; objects come back equal.
    assert _keys(stored) == [
        ("BaseModel", "demo", "llama"),
        ("ClusterServingRuntime", None, "b"),
        ("ClusterServingRuntime", None, "zeta"),
        ("InferenceService", "demo", "svc"),
        ("ServingRuntime", "team", "a"),
    ]
    assert sorted(stored.objects, key=lambda item: item.name) == sorted(
        written, key=lambda item: item.name
    )

    # Replacing with the same objects (in another order) changes nothing.
    assert store.replace_objects("prod", written[::-1]) == info

    # Replace: "zeta" changed, "b" and the runtime in "team" gone, "c" new.
    info = store.replace_objects("prod", [runtime("zeta", weight=5), runtime("c"), model(), isvc()])
    assert info.generation == 3
    assert _keys(store.read_catalog("prod")) == [
        ("BaseModel", "demo", "llama"),
        ("ClusterServingRuntime", None, "c"),
        ("ClusterServingRuntime", None, "zeta"),
        ("InferenceService", "demo", "svc"),
    ]
    zeta = store.read_catalog("prod").objects[2]
    assert zeta.document.entries[0].format.weight == 5

    # Apply adds and replaces by key, and leaves the rest.
    info = store.apply_objects("prod", [runtime("a", namespace="team"), runtime("c", weight=9)])
    assert info.generation == 4
    assert info.counts["ServingRuntime"] == 1 and info.counts["ClusterServingRuntime"] == 2
    assert len(store.read_catalog("prod").objects) == 5
    assert store.apply_objects("prod", [runtime("c", weight=9)]) == info  # no change

    # A manifest that differs only where selection does not read is still a change.
    relabelled = runtime("c", weight=9)
    relabelled.manifest["metadata"]["labels"] = {"team": "x"}
    assert store.apply_objects("prod", [relabelled]).generation == 5

    info = store.delete_object("prod", "ServingRuntime", "team", "a")
    assert info.generation == 6 and info.counts["ServingRuntime"] == 0
    assert store.delete_object("prod", "ServingRuntime", "team", "a") is None
    assert store.delete_object("prod", "ClusterServingRuntime", "other", "c") is None
    assert store.get_info("prod").generation == 6
    assert store.delete_object("prod", "ClusterServingRuntime", None, "c").generation == 7

    assert store.replace_objects("prod", [], allow_empty=True).counts == _counts()
    assert store.read_catalog("prod").objects == ()
    with pytest.raises(ClusterNotFound):
        store.apply_objects("nope", [])
    with pytest.raises(ClusterNotFound):
        store.delete_object("nope", "BaseModel", "demo", "llama")


def test_if_match(backend):
    store = backend.make()
    with pytest.raises(PreconditionFailed) as failed:
        store.put_settings("prod", ClusterSettings(), if_match=1)
    assert failed.value.current_generation is None
    assert store.get_info("prod") is None

    store.put_settings("prod", ClusterSettings())
    store.replace_objects("prod", [runtime("a")], if_match=1)
    writes = [
        lambda g: store.put_settings("prod", ClusterSettings(ome_version="1.1"), if_match=g),
        lambda g: store.replace_objects("prod", [runtime("b")], if_match=g),
        lambda g: store.apply_objects("prod", [runtime("b")], if_match=g),
        lambda g: store.delete_object("prod", "ClusterServingRuntime", None, "a", if_match=g),
        lambda g: store.delete_cluster("prod", if_match=g),
        # A write that would change nothing is refused all the same.
        lambda g: store.replace_objects("prod", [runtime("a")], if_match=g),
    ]
    before = store.read_catalog("prod")
    for write in writes:
        for stale in (1, 3):
            with pytest.raises(PreconditionFailed) as failed:
                write(stale)
            assert failed.value.current_generation == 2
    assert store.read_catalog("prod") == before

    assert store.apply_objects("prod", [runtime("b")], if_match=2).generation == 3
    assert store.delete_object("prod", "ClusterServingRuntime", None, "a", if_match=3)
    assert store.delete_cluster("prod", if_match=4)
    assert store.delete_cluster("prod", if_match=4) is False
    assert store.delete_cluster("prod") is False


def test_if_match_of_several_generations_or_any(backend):
    """RFC 9110 §13.1.1: a list matches when any of its tags does; ``*`` only a cluster that
    exists; a list naming no generation (only weak or foreign tags) never."""
    store = backend.make()
    with pytest.raises(PreconditionFailed) as failed:
        store.put_settings("prod", ClusterSettings(), if_match=Precondition.EXISTS)
    assert (failed.value.current_generation, store.get_info("prod")) == (None, None)
    assert store.delete_cluster("prod", if_match=Precondition.EXISTS) is False

    store.put_settings("prod", ClusterSettings())
    one_or_two = Precondition(frozenset({1, 2}))
    assert store.replace_objects("prod", [runtime("a")], if_match=one_or_two).generation == 2
    assert store.apply_objects("prod", [runtime("b")], if_match=one_or_two).generation == 3
    for never in (one_or_two, Precondition(frozenset())):
        with pytest.raises(PreconditionFailed) as failed:
            store.delete_object("prod", "ClusterServingRuntime", None, "a", if_match=never)
        assert failed.value.current_generation == 3
        with pytest.raises(PreconditionFailed):
            store.delete_cluster("prod", if_match=never)
    settings = ClusterSettings(ome_version="1.1")
    assert store.put_settings("prod", settings, if_match=Precondition.EXISTS)[0].generation == 4
    assert store.delete_cluster("prod", if_match=Precondition(frozenset({9, 4, 12})))
    assert store.get_info("prod") is None


def test_no_objects_over_some_is_refused_unless_allowed(backend):
    """rules §17 "No silent wipe", decided in the write's transaction on what it finds."""
    store = backend.make()
    store.put_settings("prod", ClusterSettings())
    assert store.replace_objects("prod", []).generation == 1  # nothing over nothing: no change
    info = store.replace_objects("prod", [runtime("a"), model()])
    with pytest.raises(EmptyReplace) as refused:
        store.replace_objects("prod", [])
    assert (refused.value.cluster, refused.value.stored) == ("prod", 2)
    assert store.get_info("prod") == info
    with pytest.raises(PreconditionFailed):  # the condition first, as for any write
        store.replace_objects("prod", [], if_match=1)
    emptied = store.replace_objects("prod", [], if_match=info.generation, allow_empty=True)
    assert (emptied.generation, emptied.counts) == (info.generation + 1, _counts())


def test_a_write_that_may_not_create_never_does(backend):
    store = backend.make()
    with pytest.raises(CreationRefused):
        store.put_settings("prod", ClusterSettings(), may_create=False)
    assert store.get_info("prod") is None
    store.put_settings("prod", ClusterSettings())
    settings = ClusterSettings(description="synced")
    info, created = store.put_settings("prod", settings, may_create=False)
    assert (info.settings, info.generation, created) == (settings, 2, False)


def test_a_deleted_cluster_is_not_created_again_by_a_write_that_may_not_create(single_backend):
    """One process updates the settings with ``may_create=False`` in a loop while another
    deletes the cluster, waits for two of those writes (the second begun after the deletion),
    checks that the cluster is still gone, and creates it again."""
    writer, admin = single_backend.make(), single_backend.make()
    admin.put_settings("prod", ClusterSettings())
    done = threading.Event()
    attempts = threading.Condition()
    outcomes: dict[str, int] = {"created": 0, "updated": 0, "refused": 0}

    def write_in_a_loop() -> None:
        settings = ClusterSettings(description="from the sync job")
        while not done.is_set():
            try:
                _info, created = writer.put_settings("prod", settings, may_create=False)
                outcome = "created" if created else "updated"
            except CreationRefused:
                outcome = "refused"
            with attempts:
                outcomes[outcome] += 1
                attempts.notify_all()

    thread = threading.Thread(target=write_in_a_loop)
    thread.start()
    try:
        for _ in range(100):
            assert admin.delete_cluster("prod")
            with attempts:
                seen = sum(outcomes.values())
                assert attempts.wait_for(lambda seen=seen: sum(outcomes.values()) >= seen + 2, 60)
            assert admin.get_info("prod") is None
            assert admin.put_settings("prod", ClusterSettings())[1]  # created, by the admin
    finally:
        done.set()
        thread.join()
    assert outcomes["created"] == 0
    assert outcomes["refused"] >= 100


def _at_once(writes: dict[str, Callable[[], object]]) -> dict[str, object]:
    """Run the writes at the same moment, each in its own thread: what each returned or
    raised."""
    barrier = threading.Barrier(len(writes))
    outcomes: dict[str, object] = {}

    def run(name: str, write: Callable[[], object]) -> None:
        barrier.wait()
        try:
            outcomes[name] = write()
        except StoreError as error:
            outcomes[name] = error

    threads = [threading.Thread(target=run, args=item) for item in writes.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_racing_writers_exactly_one_wins(backend):
    """Two service processes (two stores) replace the catalog with the same If-Match."""
    stores = {"one": backend.make(), "two": backend.make()}
    stores["one"].put_settings("prod", ClusterSettings())
    for round_number in range(5):
        generation = stores["one"].get_info("prod").generation
        objects = {
            name: [runtime(f"{name}-{round_number}-{n:02d}") for n in range(20)] for name in stores
        }
        outcomes = _at_once(
            {
                name: functools.partial(
                    store.replace_objects, "prod", objects[name], if_match=generation
                )
                for name, store in stores.items()
            }
        )
        [winner] = [name for name, outcome in outcomes.items() if isinstance(outcome, ClusterInfo)]
        [loser] = [outcome for outcome in outcomes.values() if isinstance(outcome, StoreError)]
        assert isinstance(loser, PreconditionFailed)
        assert loser.current_generation == outcomes[winner].generation == generation + 1
        stored = stores["two"].read_catalog("prod")
        assert stored.info.generation == generation + 1
        assert [item.name for item in stored.objects] == [item.name for item in objects[winner]]


def test_clusters_are_listed_by_name_and_deleted_whole(backend):
    store = backend.make()
    for name in ("staging", "prod-east", "dev", "prod"):
        store.put_settings(name, ClusterSettings(description=name))
    deleted = store.replace_objects("prod", [runtime("a"), model()])
    assert [info.name for info in store.list_infos()] == ["dev", "prod", "prod-east", "staging"]
    assert store.list_infos()[1] == store.get_info("prod")

    assert store.delete_cluster("prod")
    assert store.get_info("prod") is None
    assert store.read_catalog("prod") is None
    assert store.read_documents("prod") is None
    assert [info.name for info in store.list_infos()] == ["dev", "prod-east", "staging"]

    info, created = store.put_settings("prod", ClusterSettings())
    assert created and info.generation == 1 and info.counts == _counts()
    assert info.uid != deleted.uid  # another incarnation, although its generation is 1 again
    assert store.read_catalog("prod").objects == ()


def test_generations_are_the_infos_names_uids_and_generations(backend):
    """What a fleet's poll reads (``list_generations``): the infos' own, without the rest."""
    store = backend.make()
    assert store.list_generations() == []
    for name in ("staging", "prod", "dev"):
        store.put_settings(name, ClusterSettings(description=name))
    store.replace_objects("prod", [runtime("a"), model()])
    store.delete_cluster("staging")
    expected = [(info.name, info.uid, info.generation, None) for info in store.list_infos()]
    assert store.list_generations() == expected
    assert [name for name, _, _, _ in expected] == ["dev", "prod"]
    assert dict((name, generation) for name, _, generation, _ in expected)["prod"] == 2


def test_a_sync_is_noted_whether_it_changed_anything(backend):
    """``replace_and_mark``: the objects replaced, then the time noted (``sync_times``), also
    when nothing changed; a cluster that does not exist, or no longer, has none."""
    store = backend.make()
    assert store.sync_times() == {}
    store.put_settings("prod", ClusterSettings())
    store.put_settings("quiet", ClusterSettings())
    first = store.replace_and_mark("prod", [runtime("a")])
    noted = store.sync_times()
    assert list(noted) == ["prod"]
    later = datetime(2031, 5, 4, 3, 2, 1, tzinfo=UTC)
    store.clock = lambda: later
    again = store.replace_and_mark("prod", [runtime("a")])  # the same objects
    assert again.generation == first.generation and again.updated_at == first.updated_at
    assert noted["prod"] != store.sync_times()["prod"] == "2031-05-04T03:02:01.000Z"
    store.mark_synced("ghost", "2026-01-01T00:00:00.000Z")  # no such cluster: nothing noted
    assert "ghost" not in store.sync_times()
    store.delete_cluster("prod")
    assert store.sync_times() == {}
    store.put_settings("prod", ClusterSettings())
    assert store.sync_times() == {}  # another incarnation, never synced


def test_documents_for_ranking(backend):
    store = backend.make()
    store.put_settings("prod", ClusterSettings())
    written = [
        runtime("b"),
        runtime("a", namespace="team"),
        runtime("a"),
        model("m2", namespace=None),
        model("m1"),
        isvc("s2"),
        isvc("s1", namespace="other"),
    ]
    store.replace_objects("prod", written)
    documents = store.read_documents("prod")
    stored = store.read_catalog("prod")
    assert documents.info == stored.info
    by_kind = {
        kind: [item.document for item in stored.objects if item.kind == kind] for kind in KINDS
    }
    assert documents.runtimes == (
        *by_kind["ClusterServingRuntime"],
        *by_kind["ServingRuntime"],
    )
    assert [runtime.name for runtime in documents.runtimes] == ["a", "b", "a"]
    assert documents.models == (*by_kind["BaseModel"], *by_kind["ClusterBaseModel"])
    assert [service.namespace for service in documents.inference_services] == ["demo", "other"]


def test_documents_are_decoded_again_only_after_a_write(backend):
    reader, writer = backend.make(), backend.make()
    uncached = backend.make(documents_cache_size=0)
    writer.put_settings("prod", ClusterSettings())
    writer.replace_objects("prod", [runtime("a"), model()])
    first = reader.read_documents("prod")
    assert reader.read_documents("prod") is first
    assert uncached.read_documents("prod") == first
    assert uncached.read_documents("prod") is not uncached.read_documents("prod")

    # A write by another process: the reader sees it at once.
    writer.apply_objects("prod", [runtime("b")])
    second = reader.read_documents("prod")
    assert [item.name for item in second.runtimes] == ["a", "b"]
    assert second.info.generation == 3
    # Only the new object was decoded: the others are the documents the reader held.
    assert second.runtimes[0] is first.runtimes[0]
    assert second.models[0] is first.models[0]
    # A changed object (same key, another digest) is decoded again.
    writer.apply_objects("prod", [runtime("a", disabled=True)])
    changed = reader.read_documents("prod")
    assert changed.runtimes[0] is not second.runtimes[0]
    assert changed.runtimes[0].disabled is True
    assert changed.runtimes[1] is second.runtimes[1]

    # Deleted, then created again up to the same generation, with other objects.
    writer.delete_cluster("prod")
    writer.put_settings("prod", ClusterSettings())
    writer.replace_objects("prod", [runtime("c"), model()])
    writer.apply_objects("prod", [runtime("d")])
    assert writer.get_info("prod").generation == second.info.generation
    third = reader.read_documents("prod")
    assert third.info.uid != second.info.uid
    assert [item.name for item in third.runtimes] == ["c", "d"]
    writer.delete_cluster("prod")
    assert reader.read_documents("prod") is None


# --- the rest: SQLite and single-node Redis ------------------------------------------------------


class _InterleavedConnection:
    """A SQLite connection that runs ``between`` before each of its statements: another
    connection's commit between every two statements of a read, which a read that is not one
    snapshot would show."""

    def __init__(self, connection, between: Callable[[], object]) -> None:
        self._connection = connection
        self._between = between

    def execute(self, *args):
        self._between()
        return self._connection.execute(*args)

    def __getattr__(self, name: str):
        return getattr(self._connection, name)


def _interleave(store: SqliteCatalogStore, between: Callable[[], object]) -> None:
    connect = store._connect
    store._connect = lambda: _InterleavedConnection(connect(), between)


def test_readers_never_see_a_mix(single_backend):
    """A reader looping while another process replaces large catalogs sees one whole catalog
    each time, with the info that belongs to it. On SQLite, whose reads are several statements,
    a write commits before each of them; a Redis read is one script, which a writer in another
    thread races."""
    writer, reader = single_backend.make(), single_backend.make()
    writer.put_settings("prod", ClusterSettings())
    catalogs = {"even": catalog("even", 150), "odd": catalog("odd", 100)}
    writer.replace_objects("prod", catalogs["even"])  # generation 2
    generations = iter(range(3, 33))
    written = threading.Event()

    def write_one() -> None:
        n = next(generations, None)
        if n is None:
            written.set()
            return
        tag = "odd" if n % 2 else "even"
        assert writer.replace_objects("prod", catalogs[tag]).generation == n

    errors: list[BaseException] = []

    def write() -> None:
        try:
            while not written.is_set():
                write_one()
        except BaseException as error:
            errors.append(error)
            written.set()

    if isinstance(reader, SqliteCatalogStore):
        _interleave(reader, write_one)
        thread = None
    else:
        thread = threading.Thread(target=write)
        thread.start()
    seen = set()
    try:
        while not written.is_set():
            documents = reader.read_documents("prod")
            tag = "odd" if documents.info.generation % 2 else "even"
            expected = len(catalogs[tag]) - 1
            assert len(documents.runtimes) == expected
            assert {item.name.split("-")[0] for item in documents.runtimes} == {tag}
            assert documents.info.counts["ClusterServingRuntime"] == expected
            seen.add(documents.info.generation)
            full = reader.read_catalog("prod")
            tag = "odd" if full.info.generation % 2 else "even"
            assert [item.name for item in full.objects] == [item.name for item in catalogs[tag]]
            assert all(item.manifest["metadata"]["name"] == item.name for item in full.objects)
    finally:
        if thread is not None:
            thread.join()
    assert not errors, errors
    assert len(seen) > 1  # the reader did overlap the writer


def test_concurrent_applies_lose_nothing(single_backend):
    stores = [single_backend.make() for _ in range(4)]
    stores[0].put_settings("prod", ClusterSettings())
    barrier = threading.Barrier(len(stores))
    errors: list[BaseException] = []

    def apply(number: int) -> None:
        try:
            barrier.wait()
            for n in range(5):
                stores[number].apply_objects("prod", [runtime(f"w{number}-{n}")])
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=apply, args=(n,)) for n in range(len(stores))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    info = stores[0].get_info("prod")
    assert info.generation == 1 + 4 * 5
    assert info.counts["ClusterServingRuntime"] == 20
    assert len(stores[0].read_catalog("prod").objects) == 20


def test_object_limit(single_backend):
    store = single_backend.make(max_objects=3)
    store.put_settings("prod", ClusterSettings())
    three = [runtime("a"), runtime("b"), runtime("c")]
    assert store.replace_objects("prod", three).counts["ClusterServingRuntime"] == 3
    with pytest.raises(LimitExceeded, match="at most 3 objects"):
        store.replace_objects("prod", [*three, runtime("d")])
    with pytest.raises(LimitExceeded):
        store.apply_objects("prod", [runtime("d")])
    assert store.get_info("prod").generation == 2
    # Replacing one of the three, or the same one twice, is within the limit.
    assert store.apply_objects("prod", [runtime("c", weight=2), runtime("c", weight=3)])
    assert store.replace_objects("prod", [runtime("d")]).counts["ClusterServingRuntime"] == 1


def test_cluster_limit(single_backend):
    store = single_backend.make(max_clusters=2)
    store.put_settings("one", ClusterSettings())
    store.put_settings("two", ClusterSettings())
    with pytest.raises(LimitExceeded, match="at most 2 clusters"):
        store.put_settings("three", ClusterSettings())
    assert store.get_info("three") is None
    assert store.put_settings("two", ClusterSettings(ome_version="1.2"))[0].generation == 2
    store.delete_cluster("one")
    assert store.put_settings("three", ClusterSettings())[1]
    assert [info.name for info in store.list_infos()] == ["three", "two"]


def test_repeated_objects_in_one_write_the_last_wins(single_store):
    single_store.put_settings("prod", ClusterSettings())
    info = single_store.replace_objects("prod", [runtime("a", weight=1), runtime("a", weight=4)])
    assert info.counts["ClusterServingRuntime"] == 1
    [stored] = single_store.read_catalog("prod").objects
    assert stored.document.entries[0].format.weight == 4


def test_bad_input_is_refused_before_anything_is_written(single_store):
    single_store.put_settings("prod", ClusterSettings())
    good = runtime("a")
    with pytest.raises(ValueError, match="cannot be stored"):
        bad = runtime("b")
        bad.manifest["spec"]["when"] = datetime.now(UTC)  # not a JSON value
        single_store.replace_objects("prod", [good, bad])
    assert single_store.get_info("prod").generation == 1
    for name in ("Prod", "-prod", "a" * 64, "prod_east", "", "prod\n"):
        with pytest.raises(ValueError, match="DNS-1123"):
            single_store.put_settings(name, ClusterSettings())
    with pytest.raises(ValueError, match="no namespace"):
        StoredObject("ClusterServingRuntime", "demo", "a", good.manifest, good.document)
    namespaced = runtime("a", namespace="team")
    with pytest.raises(ValueError, match="needs a namespace"):
        StoredObject("ServingRuntime", None, "a", namespaced.manifest, namespaced.document)
    with pytest.raises(ValueError, match="needs a Model document"):
        StoredObject("BaseModel", "demo", "a", good.manifest, good.document)
    with pytest.raises(ValueError, match="does not hold"):
        StoredObject("Secret", "demo", "a", good.manifest, good.document)


def test_documents_kept_decoded_are_bounded_by_their_objects(backend):
    """rules §17 "Safe to share": the clusters read last stay decoded while they hold at most
    ``documents_cache_objects`` objects together; the one read last stays whatever its size."""
    writer = backend.make()
    reader = backend.make(documents_cache_objects=3)
    for cluster, names in (("small", ["a"]), ("pair", ["a", "b"]), ("large", ["a", "b", "c", "d"])):
        writer.put_settings(cluster, ClusterSettings())
        writer.replace_objects(cluster, [runtime(name) for name in names])
    small = reader.read_documents("small")
    pair = reader.read_documents("pair")  # 1 + 2 objects: both kept
    assert reader.read_documents("small") is small and reader.read_documents("pair") is pair
    large = reader.read_documents("large")  # 4 objects alone: over, but in use
    assert reader.read_documents("large") is large
    assert reader.read_documents("small") is not small  # evicted for the large one: decoded again
    assert reader.read_documents("pair") is not pair
