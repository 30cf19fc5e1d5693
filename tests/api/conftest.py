import pytest

from tests.api.reading_endpoints import CLUSTER


@pytest.fixture(params=["sqlite", "redis"])
def backend_settings(request, tmp_path) -> dict:
    """The settings of a catalog store of each kind: a SQLite file, the tests' Redis."""
    if request.param == "sqlite":
        return {"STORE_PATH": str(tmp_path / "catalog.sqlite3")}
    redis_url = request.getfixturevalue("redis_url")
    prefix = request.getfixturevalue("redis_prefix")
    return {"REDIS_URL": redis_url, "CACHE_PREFIX": prefix}


@pytest.fixture
def empty_cluster(make_app, backend_settings):
    """(app, test client) of an app on each store holding one empty cluster, ``CLUSTER``."""
    app = make_app(**backend_settings)
    client = app.test_client()
    assert client.put(f"/v1/clusters/{CLUSTER}", json={}).status_code == 201
    return app, client
