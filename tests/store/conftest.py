"""Every catalog store backend, behind one fixture, so that the same tests run on each.

``backend`` gives SQLite (a real file in the test's directory), Redis (the tests' database,
this test's prefix) and a throwaway three-node Redis Cluster (tests/conftest.py's
``redis_cluster``; forming it takes seconds, so only the core tests ask for it);
``single_backend`` gives the first two. A backend makes any number of stores on the same
storage: two stores are two service processes sharing it (``tests/store/support.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.store.base import CatalogStore
from tests.store.support import FACTORIES, Backend


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
