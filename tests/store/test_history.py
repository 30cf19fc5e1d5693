"""The selection history (rules §17): every write keeps, with the catalog and in its
transaction, what it did to the InferenceServices' outcomes; on SQLite and real Redis."""

from __future__ import annotations

import sqlite3
from functools import partial
from pathlib import Path

import pytest
from redis.crc import key_slot

from app.rendering.selection_history import selection_history
from app.store import ClusterSettings
from app.store.base import CatalogStore
from app.store.history import HistoryQuery
from app.store.redis import RedisCatalogStore
from app.store.sqlite import SCHEMA_VERSION, SqliteCatalogStore
from tests.builders import entry as runtime_entry
from tests.builders import runtime_doc
from tests.store.history_support import (
    HISTORY,
    fleet_step,
    history_as_moves,
    impact_between,
)
from tests.store.objects import isvc, model, runtime, stored
from tests.store.support import Backend


def _all(store: CatalogStore, cluster: str = "c", **query):
    page = store.read_history(cluster, HistoryQuery(limit=1000, **query))
    assert page is not None
    return page.entries


def _by_generation(entries) -> dict[int, list]:
    found: dict[int, list] = {}
    for entry in entries:
        found.setdefault(entry.generation, []).append(entry)
    return found


def test_history_after_pushes_equals_the_impacts_between_them(single_backend: Backend):
    store = single_backend.make(history=HISTORY)
    store.put_settings("c", ClusterSettings())
    steps = [fleet_step(step) for step in range(5)]
    generations = []
    for objects in steps:
        generations.append(store.replace_objects("c", objects).generation)
    by_generation = _by_generation(_all(store))
    assert sorted(by_generation) == generations
    previous: list = []
    for generation, objects in zip(generations, steps, strict=True):
        expected = impact_between(previous, objects)
        assert expected  # every step moves something
        assert history_as_moves(by_generation[generation]) == expected
        previous = objects


def test_entries_are_newest_first_numbered_and_timed_by_their_write(single_backend: Backend):
    store = single_backend.make(history=HISTORY)
    store.put_settings("c", ClusterSettings())
    first = store.replace_objects("c", fleet_step(0, services=2))
    second = store.replace_objects("c", fleet_step(1, services=2))
    entries = _all(store)
    assert [entry.seq for entry in entries] == list(range(len(entries), 0, -1))
    assert [(e.generation, e.at) for e in entries[:3]] == [
        (second.generation, second.updated_at)
    ] * 3
    assert [e.name for e in entries[:3]] == ["svc-0", "svc-1", "svc-2"]
    assert {(e.generation, e.at) for e in entries[3:]} == {(first.generation, first.updated_at)}
    moved = entries[0]
    assert moved.before == {
        "runtime": "a",
        "scope": "Cluster",
        "engineClass": None,
        "decoderClass": None,
        "outcome": "selected",
    }
    assert moved.after is not None and moved.after["runtime"] == "b"
    assert entries[-1].before is None  # appeared with the first push


def test_a_write_that_moves_nothing_records_nothing(single_backend: Backend):
    store = single_backend.make(history=HISTORY)
    store.put_settings("c", ClusterSettings(description="one"))
    store.replace_objects("c", fleet_step(0, services=2))
    before = _all(store)
    labelled = fleet_step(0, services=2)
    labelled[-1].manifest["metadata"]["labels"] = {"team": "x"}  # the manifest only
    store.replace_objects("c", labelled)
    store.put_settings("c", ClusterSettings(description="two"))
    store.apply_objects("c", [runtime("z-unrelated", weight=1, supportedModelFormats=[])])
    assert _all(store) == before


def test_settings_deletes_and_one_object_are_recorded(single_backend: Backend):
    store = single_backend.make(history=HISTORY)
    store.put_settings("c", ClusterSettings())
    store.replace_objects("c", [model("llama"), runtime("a"), isvc("svc")])
    deleted = store.delete_object("c", "ClusterServingRuntime", None, "a")
    assert deleted is not None
    newest = _all(store)[0]
    assert (newest.generation, newest.name) == (deleted.generation, "svc")
    assert newest.before is not None and newest.before["runtime"] == "a"
    assert newest.after is not None and newest.after["outcome"] == "noRuntime"
    store.apply_objects("c", [runtime("a")])
    gone = store.delete_object("c", "InferenceService", "demo", "svc")
    assert gone is not None
    newest = _all(store)[0]
    assert (newest.generation, newest.after) == (gone.generation, None)


def test_the_bound_drops_the_oldest_first(single_backend: Backend):
    store = single_backend.make(history=HISTORY, history_max_changes=5)
    store.put_settings("c", ClusterSettings())
    for step in range(4):
        store.replace_objects("c", fleet_step(step, services=1))  # 1, 2, 3, 4 changes
    entries = _all(store)
    assert [entry.seq for entry in entries] == [10, 9, 8, 7, 6]
    info = store.get_info("c")
    assert info is not None
    assert [entry.generation for entry in entries] == [info.generation] * 4 + [info.generation - 1]


def test_each_clusters_count_of_changes_is_its_newest_seq_dropped_ones_included(
    single_backend: Backend,
):
    """``history_counts``: what ``ome_ranker_selection_changes_total`` reads at scrape time."""
    store = single_backend.make(history=HISTORY, history_max_changes=5)
    assert store.history_counts() == {}
    store.put_settings("c", ClusterSettings())
    store.put_settings("quiet", ClusterSettings())
    for step in range(4):
        store.replace_objects("c", fleet_step(step, services=1))  # 1, 2, 3, 4 changes
    assert store.history_counts() == {"c": 10, "quiet": 0}  # 5 kept, 10 recorded
    store.delete_cluster("c")
    assert store.history_counts() == {"quiet": 0}


def test_a_write_over_the_bound_leaves_one_mark(single_backend: Backend):
    store = single_backend.make(history=HISTORY, history_max_changes=3)
    store.put_settings("c", ClusterSettings())
    info = store.replace_objects("c", fleet_step(0, services=4))
    (mark,) = _all(store)
    assert (mark.generation, mark.namespace, mark.name, mark.before, mark.after) == (
        info.generation,
        None,
        None,
        None,
        None,
    )
    assert mark.truncated is not None and "OME_RANKER_HISTORY_MAX_CHANGES" in mark.truncated


def test_work_over_the_bound_leaves_one_mark_and_the_write_lands(single_backend: Backend):
    history = partial(selection_history, max_runtime_checks=1, max_runtimes=10_000)
    store = single_backend.make(history=history)
    store.put_settings("c", ClusterSettings())
    info = store.replace_objects("c", fleet_step(1))
    (mark,) = _all(store)
    assert mark.generation == info.generation
    assert mark.truncated is not None and "OME_RANKER_MAX_RUNTIME_CHECKS" in mark.truncated
    # a mark stands for every InferenceService
    assert _all(store, namespace="demo", name="svc-0") == (mark,)


def test_filters_since_and_pages(single_backend: Backend):
    store = single_backend.make(history=HISTORY)
    store.put_settings("c", ClusterSettings())
    generations = [
        store.replace_objects("c", fleet_step(s, services=2)).generation for s in range(4)
    ]
    everything = _all(store)
    assert _all(store, since=generations[1]) == tuple(
        e for e in everything if e.generation > generations[1]
    )
    assert _all(store, namespace="demo", name="svc-1") == tuple(
        e for e in everything if e.name == "svc-1"
    )
    assert _all(store, namespace="other") == ()
    pages, cursor = [], None
    while True:
        page = store.read_history("c", HistoryQuery(limit=3, cursor=cursor))
        assert page is not None
        pages.append(page.entries)
        cursor = page.next
        if cursor is None:
            break
    assert tuple(e for entries in pages for e in entries) == everything
    assert all(len(entries) == 3 for entries in pages[:-1])
    filtered = store.read_history(
        "c", HistoryQuery(limit=1, name="svc-0", cursor=everything[0].seq)
    )
    assert filtered is not None and filtered.entries[0].name == "svc-0"
    assert filtered.entries[0].seq < everything[0].seq


def test_no_cluster_no_history_and_a_deleted_cluster_takes_its_history(single_backend: Backend):
    store = single_backend.make(history=HISTORY)
    assert store.read_history("c", HistoryQuery()) is None
    store.put_settings("c", ClusterSettings())
    store.replace_objects("c", fleet_step(0, services=1))
    assert _all(store)
    assert store.delete_cluster("c")
    store.put_settings("c", ClusterSettings())
    assert _all(store) == ()
    store.replace_objects("c", fleet_step(0, services=1))
    assert [entry.seq for entry in _all(store)] == [1]


@pytest.mark.parametrize("bound", [0])
def test_no_history_kept_without_a_bound(single_backend: Backend, bound: int):
    store = single_backend.make(history=HISTORY, history_max_changes=bound)
    store.put_settings("c", ClusterSettings())
    store.replace_objects("c", fleet_step(0))
    assert _all(store) == ()


def test_a_sqlite_file_of_version_2_gains_the_history_when_first_opened(tmp_path: Path):
    path = tmp_path / "catalog.sqlite3"
    old = SqliteCatalogStore(path)
    old.put_settings("c", ClusterSettings())
    old.replace_objects("c", fleet_step(0, services=1))
    old.close()
    with sqlite3.connect(path) as connection:  # as the release before the history left it
        connection.execute("DROP TABLE history")
        connection.execute("PRAGMA user_version = 2")
    upgraded = SqliteCatalogStore(path, history=HISTORY)
    assert _all(upgraded) == ()  # the history starts with the first write after it
    upgraded.replace_objects("c", fleet_step(1, services=1))
    assert len(_all(upgraded)) == 2  # svc-0 moves to b, svc-1 appears
    upgraded.close()
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


def test_on_every_backend_the_history_is_the_impacts_under_the_catalogs_hash_tag(
    backend: Backend,
):
    store = backend.make(history=HISTORY)
    store.put_settings("c", ClusterSettings())
    first = store.replace_objects("c", fleet_step(0, services=2)).generation
    second = store.replace_objects("c", fleet_step(1, services=2)).generation
    by_generation = _by_generation(_all(store))
    assert history_as_moves(by_generation[second]) == impact_between(
        fleet_step(0, services=2), fleet_step(1, services=2)
    )
    assert history_as_moves(by_generation[first]) == impact_between([], fleet_step(0, services=2))
    if isinstance(store, RedisCatalogStore):
        # one slot for every key of the cluster: the commit script may touch them all
        slots = {key_slot(key.encode()) for key in store.cluster_keys("c")}
        assert len(slots) == 1
        assert store.client.llen(store.history_key("c")) == 5
    assert store.delete_cluster("c")
    if isinstance(store, RedisCatalogStore):
        assert store.client.exists(store.history_key("c")) == 0


def test_a_setting_that_moves_outcomes_is_recorded(single_backend: Backend):
    store = single_backend.make(history=HISTORY)
    store.put_settings("c", ClusterSettings())
    cached = stored(runtime_doc("a", runtime_entry(modelCacheProviders=["DragonFly"])))
    store.replace_objects("c", [model("llama", distribution="Sharded"), cached, isvc("svc")])
    assert _all(store)[0].after["outcome"] == "noRuntime"  # type: ignore[index]
    info, _created = store.put_settings("c", ClusterSettings(model_cache_provider="DragonFly"))
    newest = _all(store)[0]
    assert (newest.generation, newest.name) == (info.generation, "svc")
    assert (newest.before, newest.after) == (
        OUTCOME_NONE,
        {
            "runtime": "a",
            "scope": "Cluster",
            "engineClass": None,
            "decoderClass": None,
            "outcome": "selected",
        },
    )


OUTCOME_NONE = {
    "runtime": None,
    "scope": None,
    "engineClass": None,
    "decoderClass": None,
    "outcome": "noRuntime",
}


def test_sqlite_works_the_history_out_without_the_write_lock(tmp_path: Path):
    """Another writer (another cluster, another process) is not kept waiting while a write
    works out its history: the history is worked out on a snapshot, and the write's
    transaction finds it there."""
    path = tmp_path / "catalog.sqlite3"
    other = SqliteCatalogStore(path, busy_timeout=0)  # a held lock would be a refusal at once
    calls = []

    def history(before, after):
        calls.append(other.put_settings(f"other-{len(calls)}", ClusterSettings())[0])
        return HISTORY(before, after)

    store = SqliteCatalogStore(path, history=history)
    try:
        store.put_settings("c", ClusterSettings())
        store.replace_objects("c", fleet_step(0, services=2))
        store.replace_objects("c", fleet_step(1, services=2))
        assert len(calls) == 2  # once per write, not again under the lock
        assert len(_all(store)) == 5
    finally:
        store.close()
        other.close()
