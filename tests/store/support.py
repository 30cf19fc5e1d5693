"""The catalog store backends the store tests run on: each a factory of stores over one storage
(a SQLite file in the test's directory, the tests' Redis under this test's prefix, a throwaway
three-node Redis Cluster), found through the fixtures it asks for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.store.base import CatalogStore
from app.store.redis import RedisCatalogStore
from app.store.sqlite import SqliteCatalogStore

CLUSTER_PREFIX = "ome-ranker-test:catalog:"


@dataclass
class Backend:
    name: str
    factory: Callable[..., CatalogStore]
    stores: list[CatalogStore] = field(default_factory=list)

    def make(self, **options) -> CatalogStore:
        store = self.factory(**options)
        self.stores.append(store)
        return store

    def close(self) -> None:
        for store in self.stores:
            store.close()


def _sqlite(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., CatalogStore]:
    path = tmp_path / "var" / "catalogs.sqlite3"
    return lambda **options: SqliteCatalogStore(path, **options)


def _redis(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., CatalogStore]:
    url = request.getfixturevalue("redis_url")
    prefix = request.getfixturevalue("redis_prefix") + "catalog:"
    return lambda **options: RedisCatalogStore.from_url(url, prefix=prefix, **options)


def _redis_cluster(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., CatalogStore]:
    nodes = request.getfixturevalue("redis_cluster")
    url = nodes[0].url
    return lambda **options: RedisCatalogStore.from_url(
        url, prefix=CLUSTER_PREFIX, cluster=True, **options
    )


FACTORIES = {"sqlite": _sqlite, "redis": _redis, "redis-cluster": _redis_cluster}
