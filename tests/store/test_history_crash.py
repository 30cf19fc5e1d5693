"""A worker killed (SIGKILL) while it writes never leaves a generation whose catalog is stored
without its history, or history without its catalog (rules §17.1 "Kept with the catalog"): on
SQLite and real Redis, a process writing in a loop is killed at random points, and what the store
holds is checked after each kill."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.store.base import CatalogStore
from app.store.history import HistoryQuery
from app.store.redis import RedisCatalogStore
from app.store.sqlite import SqliteCatalogStore
from tests.paths import ROOT
from tests.store.history_writer import CLUSTER, SERVICES, catalog

pytestmark = pytest.mark.hostile
KILLS = 4


def _crash(arguments: list[str], seed: int) -> None:
    """Run a writer until it kills itself mid-write (``history_writer``)."""
    writer = subprocess.run(
        [sys.executable, "-m", "tests.store.history_writer", str(seed), *arguments],
        cwd=ROOT,
        check=False,
    )
    assert writer.returncode == -signal.SIGKILL


def _check(store: CatalogStore) -> int:
    """Every generation that wrote objects has exactly its write's changes, and the newest
    ones are the catalog as stored; no history past the stored generation."""
    info = store.get_info(CLUSTER)
    assert info is not None
    by_generation: dict[int, list] = {}
    cursor = None
    while True:
        page = store.read_history(CLUSTER, HistoryQuery(limit=1000, cursor=cursor))
        assert page is not None and page.info.generation == info.generation
        for entry in page.entries:
            by_generation.setdefault(entry.generation, []).append(entry)
        cursor = page.next
        if cursor is None:
            break
    assert sorted(by_generation) == list(range(2, info.generation + 1))
    assert {len(entries) for entries in by_generation.values()} == {SERVICES}
    stored = {item.name for item in store.read_catalog(CLUSTER).objects}  # type: ignore[union-attr]
    assert stored == {item.name for item in catalog(info.generation)}
    newest_runtime = "b" if info.generation % 2 else "a"
    assert {entry.after["runtime"] for entry in by_generation[info.generation]} == {newest_runtime}
    return info.generation


def _crash_and_check(arguments: list[str], store: CatalogStore, seed: int) -> None:
    generation = 1
    for kill in range(KILLS):
        _crash(arguments, seed * 100 + kill)
        later = _check(store)
        assert later > generation  # each writer wrote before it died
        generation = later


@pytest.mark.parametrize("seed", [1, 2])
def test_sqlite_never_keeps_a_catalog_without_its_history(tmp_path: Path, seed: int):
    path = tmp_path / "crash.sqlite3"
    store = SqliteCatalogStore(path)
    try:
        _crash_and_check(["sqlite", str(path)], store, seed)
    finally:
        store.close()


@pytest.mark.parametrize("seed", [1, 2])
def test_redis_never_keeps_a_catalog_without_its_history(
    redis_url: str, redis_prefix: str, seed: int
):
    prefix = f"{redis_prefix}catalog:"
    store = RedisCatalogStore.from_url(redis_url, prefix=prefix)
    try:
        _crash_and_check(["redis", redis_url, prefix], store, seed)
    finally:
        store.close()
