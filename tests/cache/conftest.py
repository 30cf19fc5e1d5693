from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cache.servers import HungServer, RedisServer, require_redis_server


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[Callable[..., RedisServer]]:
    """Start redis-server processes of this test's own; all are killed afterwards."""
    require_redis_server()
    servers: list[RedisServer] = []

    def start(*options: str) -> RedisServer:
        directory = tmp_path / f"redis-{len(servers)}"
        directory.mkdir()
        server = RedisServer(directory, *options)
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def hung_server() -> Iterator[HungServer]:
    server = HungServer()
    yield server
    server.close()
