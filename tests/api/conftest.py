import pytest

from app import create_app
from config.settings import TestConfig


@pytest.fixture
def api():
    """A test client of a fresh app (its own in-process cache)."""
    app = create_app(TestConfig())
    return app.test_client()


@pytest.fixture(params=["sqlite", "redis"])
def backend_settings(request, tmp_path) -> dict:
    """The settings of a catalog store of each kind: a SQLite file, the tests' Redis."""
    if request.param == "sqlite":
        return {"STORE_PATH": str(tmp_path / "catalog.sqlite3")}
    redis_url = request.getfixturevalue("redis_url")
    prefix = request.getfixturevalue("redis_prefix")
    return {"REDIS_URL": redis_url, "CACHE_PREFIX": prefix}
