"""Every catalog store backend, behind one fixture, so that the same tests run on each.

``backend`` gives SQLite (a real file in the test's directory), Redis (the tests' database,
this test's prefix) and a throwaway three-node Redis Cluster (tests/cache's ``cluster``
fixture; forming it takes seconds, so only the core tests ask for it); ``single_backend``
gives the first two. A backend makes any number of stores on the same storage: two stores are
two service processes sharing it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
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


def _backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    backend = Backend(request.param, FACTORIES[request.param](request, tmp_path))
    yield backend
    backend.close()


@pytest.fixture(params=["sqlite", "redis", "redis-cluster"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    yield from _backend(request, tmp_path)


@pytest.fixture(params=["sqlite", "redis"])
def single_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    yield from _backend(request, tmp_path)


@pytest.fixture
def store(backend: Backend) -> CatalogStore:
    return backend.make()


@pytest.fixture
def single_store(single_backend: Backend) -> CatalogStore:
    return single_backend.make()
