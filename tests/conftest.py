"""Fixtures shared by the whole suite: the app and its client, and a real Redis.

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
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest
import redis
from flask import Flask

from app import create_app
from app.cache import get_ranking_cache
from config.settings import TestConfig

REDIS_TEST_DB = 13
RUN_PREFIX = f"ome-ranker-test:{uuid.uuid4().hex[:12]}:"
_test_numbers = itertools.count()


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


@pytest.fixture
def make_app() -> Iterator[Callable[..., Flask]]:
    """Build apps from ``TestConfig`` with some settings changed; their caches are closed
    afterwards (a Redis client left open would be a ResourceWarning)."""
    apps: list[Flask] = []

    def build(**settings: Any) -> Flask:
        config = TestConfig()
        for name, value in settings.items():
            setattr(config, name, value)
        app = create_app(config)
        apps.append(app)
        return app

    yield build
    for app in apps:
        get_ranking_cache(app).close()


@pytest.fixture
def app(make_app: Callable[..., Flask]) -> Flask:
    """The app as the tests run it: TestConfig, so the in-process cache."""
    return make_app()


@pytest.fixture
def client(app: Flask):
    return app.test_client()


@pytest.fixture
def redis_app(make_app: Callable[..., Flask], redis_url: str, redis_prefix: str) -> Flask:
    """An app caching in the tests' Redis database under this test's prefix; every read goes to
    Redis (no decoded answers kept in front of it), since that is what these tests watch."""
    return make_app(REDIS_URL=redis_url, CACHE_PREFIX=redis_prefix, CACHE_HOT_BYTES=0)
