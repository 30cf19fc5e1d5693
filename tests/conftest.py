"""Fixtures shared by the whole suite: the app and its client, a catalog store of each kind, a
real Redis, and real servers a test may break; a directory that needs more adds them in its own
conftest.py (docs/development.md, "Fixtures"). Helpers are in builder modules, not here.

Redis is found through ``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``), but the tests use
their own database number and a key prefix unique to the run and to the test, delete only keys
under that prefix, and never flush anything. An unreachable Redis skips the Redis tests, except
under ``CI=true``, where it fails them.
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest
import redis
from flask import Flask
from hypothesis import settings

from app import create_app
from app.cache import get_ranking_cache
from config.settings import TestConfig
from tests.servers import HungServer, RedisServer, Service, free_port, require_redis_server
from tests.waiting import wait_for

# Hypothesis's profiles, chosen by HYPOTHESIS_PROFILE: `dev` (the default) runs a few dozen
# examples a property test, so that the developer's loop stays fast; `ci` (.ci/run exports it)
# runs hypothesis's own 100, the full count. A test that wants more names a multiple of the
# profile's count (`max_examples=8 * settings.default.max_examples`): 800 in CI, 160 locally.
# Neither has a deadline: property tests judge answers, not speed, and on a busy machine one
# example can take longer than hypothesis's default 200 ms.
settings.register_profile("ci", deadline=None, max_examples=100)
settings.register_profile("dev", deadline=None, max_examples=20)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# service_log_state: every test finds the service's loggers enabled, at the levels found.
pytest_plugins = ("tests.service_logs",)

REDIS_TEST_DB = 13
GENEROUS_REDIS_TIMEOUT = 5.0
TESTS = Path(__file__).resolve().parent
# The slow groups (pyproject.toml declares the markers): by directory, by the fixtures that start
# real servers, and by the parameters that pick a Redis Cluster.
GROUP_OF_DIRECTORY = {
    "web": "browser",
    "hostile": "hostile",
    "deploy": "kubectl",
    "contract": "contract",
}
GROUP_OF_FIXTURE = {
    "start_service": "gunicorn",
    "service": "gunicorn",
    "redis_cluster": "redis_cluster",
}
SLOW_GROUPS = ("browser", "gunicorn", "hostile", "redis_cluster", "kubectl", "contract", "scale")
RUN_PREFIX = f"ome-ranker-test:{uuid.uuid4().hex[:12]}:"
_test_numbers = itertools.count()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        groups = {GROUP_OF_DIRECTORY.get(Path(item.path).relative_to(TESTS).parts[0])}
        groups |= {GROUP_OF_FIXTURE.get(name) for name in getattr(item, "fixturenames", ())}
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "redis-cluster" in callspec.params.values():
            groups.add("redis_cluster")
        groups |= {group for group in SLOW_GROUPS if item.get_closest_marker(group)}
        groups.discard(None)
        for group in groups:
            item.add_marker(group)
        if groups:
            item.add_marker("slow")


def url_of_test_database(url: str) -> str:
    """``url`` pointed at the tests' own database."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = dict(parse_qsl(parts.query))
        query["db"] = str(REDIS_TEST_DB)
        return urlunsplit(parts._replace(query=urlencode(query)))
    return urlunsplit(parts._replace(path=f"/{REDIS_TEST_DB}"))


def delete_keys(client: redis.Redis, prefix: str) -> None:
    """UNLINK every key under ``prefix`` (which holds no glob characters), in batches."""
    batch: list[bytes] = []
    for key in client.scan_iter(match=f"{prefix}*", count=1000):
        batch.append(key)
        if len(batch) >= 500:
            client.unlink(*batch)
            batch.clear()
    if batch:
        client.unlink(*batch)


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = url_of_test_database(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    probe = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        probe.ping()
    except redis.RedisError as error:
        message = f"no Redis at {url} ({error}); start one or set REDIS_URL"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    finally:
        probe.close()
    return url


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A key prefix of this test alone; its keys are deleted afterwards."""
    prefix = f"{RUN_PREFIX}{next(_test_numbers)}:"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    try:
        delete_keys(client, prefix)
    finally:
        client.close()


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A plain client on the tests' database, to look at what the app stored."""
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


def _app_factory(directory: Path) -> tuple[Callable[..., Flask], Callable[[], None]]:
    """Build apps from ``TestConfig`` with some settings changed, each with a SQLite catalog file
    of its own under ``directory`` (unless the settings name one); and the function that closes
    their caches (a Redis client left open would be a ResourceWarning)."""
    apps: list[Flask] = []

    def build(**settings: Any) -> Flask:
        config = TestConfig()
        config.STORE_PATH = str(directory / f"catalog-{len(apps)}.sqlite3")
        # A busy machine can keep a live Redis from answering within the service's 50 ms, and
        # a hit would then read as a miss: the tests of a Redis that does not answer set theirs.
        config.REDIS_TIMEOUT_SECONDS = GENEROUS_REDIS_TIMEOUT
        for name, value in settings.items():
            setattr(config, name, value)
        app = create_app(config)
        apps.append(app)
        return app

    def close() -> None:
        for app in apps:
            get_ranking_cache(app).close()

    return build, close


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Callable[..., Flask]]:
    """``make_app(**settings)``: an app of ``TestConfig`` with those settings changed."""
    build, close = _app_factory(tmp_path)
    yield build
    close()


@pytest.fixture(scope="session")
def fuzz_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One app's client for the property tests, whose examples all run inside one test."""
    build, close = _app_factory(tmp_path_factory.mktemp("fuzz"))
    yield build().test_client()
    close()


@pytest.fixture
def app(make_app: Callable[..., Flask]) -> Flask:
    """The app as the tests run it: TestConfig, so the in-process cache."""
    return make_app()


@pytest.fixture
def client(app: Flask):
    return app.test_client()


@pytest.fixture(params=["sqlite", "redis"])
def backend_settings(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The settings of a catalog store of each kind: a SQLite file, the tests' Redis."""
    if request.param == "sqlite":
        return {"STORE_PATH": str(tmp_path / "catalog.sqlite3")}
    redis_url = request.getfixturevalue("redis_url")
    prefix = request.getfixturevalue("redis_prefix")
    return {"REDIS_URL": redis_url, "CACHE_PREFIX": prefix}


@pytest.fixture
def redis_app(make_app: Callable[..., Flask], redis_url: str, redis_prefix: str) -> Flask:
    """An app caching in the tests' Redis database under this test's prefix; every read goes to
    Redis (no decoded answers kept in front of it), since that is what these tests watch."""
    return make_app(REDIS_URL=redis_url, CACHE_PREFIX=redis_prefix, CACHE_HOT_BYTES=0)


# --- real servers a test may break (tests/servers.py) -------------------------------------------

SLOT_RANGES = ((0, 5460), (5461, 10922), (10923, 16383))


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


@pytest.fixture
def redis_cluster(redis_server: Callable[..., RedisServer]) -> list[RedisServer]:
    """Three masters sharing the 16384 slots; returns their servers."""
    nodes = [
        redis_server(
            *("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
            *("--cluster-port", str(free_port()), "--cluster-node-timeout", "5000"),
        )
        for _ in SLOT_RANGES
    ]
    clients = [node.client() for node in nodes]
    try:
        for client, (first, last) in zip(clients, SLOT_RANGES, strict=True):
            client.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
        for node in nodes[1:]:
            bus_port = node.options[node.options.index("--cluster-port") + 1]
            clients[0].execute_command("CLUSTER", "MEET", "127.0.0.1", node.port, bus_port)
        wait_for(
            lambda: all(
                client.cluster("info")["cluster_state"] == "ok"
                and len(client.cluster("nodes")) == len(nodes)
                for client in clients
            ),
            "the test cluster forms",
        )
    finally:
        for client in clients:
            client.close()
    return nodes


@pytest.fixture
def start_service(tmp_path: Path) -> Iterator[Callable[..., Service]]:
    """Start real gunicorn servers of this test's own, with settings changed; stopped afterwards."""
    servers: list[Service] = []

    def start(**environment: str) -> Service:
        server = Service(tmp_path, **environment)
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        server.stop()
