import pytest


@pytest.fixture(params=["sqlite", "redis"])
def backend_settings(request, tmp_path) -> dict:
    """The settings of a catalog store of each kind: a SQLite file, the tests' Redis."""
    if request.param == "sqlite":
        return {"STORE_PATH": str(tmp_path / "catalog.sqlite3")}
    redis_url = request.getfixturevalue("redis_url")
    prefix = request.getfixturevalue("redis_prefix")
    return {"REDIS_URL": redis_url, "CACHE_PREFIX": prefix}
