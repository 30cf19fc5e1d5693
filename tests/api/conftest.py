"""The catalog every reading endpoint's test starts from: one empty cluster on each store; and
a Redis address where nothing answers."""

import socket
from collections.abc import Iterator

import pytest

from tests.api.reading_endpoints import CLUSTER


@pytest.fixture
def empty_cluster(make_app, backend_settings):
    """(app, test client) of an app on each store holding one empty cluster, ``CLUSTER``."""
    app = make_app(**backend_settings)
    client = app.test_client()
    assert client.put(f"/v1/clusters/{CLUSTER}", json={}).status_code == 201
    return app, client


@pytest.fixture
def dead_redis_port() -> Iterator[int]:
    """A port with nothing listening: bound, never listened on, so connecting is refused."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        yield holder.getsockname()[1]
