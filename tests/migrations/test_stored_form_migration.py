"""Catalogs an earlier release stored whole are rewritten in their stored form (SPEC §17), so an
upgraded service keeps none of the secrets it held: the SQLite store by itself when it first opens
its file, Redis by ``python -m migrations`` (0005). What selection reads does not change."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from app.schemas.stored import stored_form
from app.store import ClusterSettings, LimitExceeded
from app.store.redis import INDEX, INFO_FIELDS, RedisCatalogStore
from app.store.sqlite import SCHEMA_VERSION, SqliteCatalogStore
from migrations.runner import discover
from tests.builders import entry, isvc_doc, model_doc, runtime_doc
from tests.store.objects import stored

MARKER = "s3cr3t-m4rk3r"


def legacy_objects() -> list:
    """Objects as an earlier release stored them: the whole manifest, containers included."""
    # Larger than a page: old values live in overflow pages, which a rewrite frees.
    padded = "x" * 10_000 + MARKER
    runner = {"image": "vllm:1", "env": [{"name": "TOKEN", "value": padded}], "args": [MARKER]}
    runtime = runtime_doc("rt", entry(), engineConfig={"runner": runner})
    runtime["metadata"]["annotations"] = {
        "kubectl.kubernetes.io/last-applied-configuration": f'{{"token": "{MARKER}"}}',
        "team": "a",
    }
    isvc = isvc_doc("svc", model={"name": "llama"}, engine={"runner": runner})
    return [stored(runtime), stored(model_doc("llama")), stored(isvc)]


def _unchanged_answers(store) -> tuple:
    documents = store.read_documents("prod")
    return documents.runtimes, documents.models, documents.inference_services


def test_sqlite_rewrites_a_version_1_file_when_it_first_opens_it(tmp_path: Path):
    path = tmp_path / "catalog.sqlite3"
    old = SqliteCatalogStore(path)  # no manifest form: stores the manifests as given
    old.put_settings("prod", ClusterSettings())
    old.replace_objects("prod", legacy_objects())
    before = _unchanged_answers(old)
    generation = old.get_info("prod").generation
    old.close()
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA user_version = 1")  # as the earlier release left it
    assert MARKER.encode() in path.read_bytes() + _wal(path)

    upgraded = SqliteCatalogStore(path, manifest_form=stored_form)
    assert upgraded.get_info("prod").generation == generation + 1  # answers and ETags move on
    assert _unchanged_answers(upgraded) == before
    runtime = next(o for o in upgraded.read_catalog("prod").objects if o.name == "rt")
    assert runtime.manifest["metadata"]["annotations"] == {"team": "a"}
    assert "runner" not in runtime.manifest["spec"]["engineConfig"]
    assert MARKER.encode() not in path.read_bytes() + _wal(path)
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    upgraded.close()

    again = SqliteCatalogStore(path, manifest_form=stored_form)  # done once
    assert again.get_info("prod").generation == generation + 1
    again.close()


def _wal(path: Path) -> bytes:
    wal = Path(f"{path}-wal")
    return wal.read_bytes() if wal.exists() else b""


@pytest.fixture
def redis_store(redis_client, redis_prefix):
    def build(**limits) -> RedisCatalogStore:
        return RedisCatalogStore(lambda: redis_client, prefix=f"{redis_prefix}catalog:", **limits)

    return build


def _values(redis_client, prefix: str) -> bytes:
    held = []
    for key in redis_client.scan_iter(match=f"{prefix}*"):
        if redis_client.type(key) == b"hash":
            held += [b for pair in redis_client.hgetall(key).items() for b in pair]
        else:
            held.append(redis_client.get(key))
    return b"".join(held)


def test_migration_0005_rewrites_what_redis_holds(redis_client, redis_prefix, redis_store):
    old = redis_store()
    old.put_settings("prod", ClusterSettings())
    old.replace_objects("prod", legacy_objects())
    before = _unchanged_answers(old)
    generation = old.get_info("prod").generation
    assert MARKER.encode() in _values(redis_client, redis_prefix)

    [migration] = [m for m in discover() if m.id == "0005_stored_form_of_catalog_objects"]
    summary = migration.migrate(redis_client, redis_prefix)
    assert summary.startswith("rewrote 2 objects of 1 clusters in their stored form")
    assert "Redis keeps no append-only file" in summary  # the tests' Redis keeps nothing
    assert MARKER.encode() not in _values(redis_client, redis_prefix)
    upgraded = redis_store()
    assert upgraded.get_info("prod").generation == generation + 1
    assert _unchanged_answers(upgraded) == before
    assert migration.migrate(redis_client, redis_prefix).startswith("rewrote 0 objects")


def test_an_index_without_sizes_still_counts_every_byte(redis_client, redis_prefix, redis_store):
    """An index written by an earlier release holds no sizes: a write measures what it lacks."""
    old = redis_store()
    old.put_settings("prod", ClusterSettings())
    old.replace_objects("prod", legacy_objects())
    info_key = old.info_key("prod")
    index = redis_client.hget(info_key, "index")
    entries = json.loads(index)
    assert all(len(entry) == 5 for entry in entries)
    full = sum(entry[4] for entry in entries)
    redis_client.hset(info_key, "index", json.dumps([entry[:4] for entry in entries]))
    fields = redis_client.hmget(info_key, [*INFO_FIELDS, "index", "documents"])
    assert len(json.loads(fields[INDEX])[0]) == 4

    bounded = redis_store(max_bytes=full)  # exactly what is stored: one byte more is refused
    with pytest.raises(LimitExceeded) as refused:
        bounded.apply_objects("prod", [stored(model_doc("more"))])
    assert refused.value.bound == "bytes"
    assert refused.value.requested > full
    bounded.delete_object("prod", "BaseModel", "demo", "llama")  # a write that shrinks it
    entries = json.loads(redis_client.hget(info_key, "index"))
    assert all(len(entry) == 5 for entry in entries)  # the rewritten index has them all
    assert sum(entry[4] for entry in entries) < full
