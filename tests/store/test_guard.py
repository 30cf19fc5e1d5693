"""The store's circuit breaker and its check (app/store/guard.py), against real servers and files:
a store that does not answer is asked nothing for a cool-down; one that refuses this service
(credentials, a file it cannot open or write) says so, and costs no waiting."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from app.breaker import OPEN, CircuitBreaker
from app.store import ClusterSettings, StoreNotAsked, StoreUnavailable
from app.store.guard import DOWN, REFUSED, UP, StoreHealth
from app.store.redis import RedisCatalogStore
from app.store.sqlite import SqliteCatalogStore
from tests.clock import ManualClock
from tests.files import read_only

PASSWORD = "s3cret-of-the-store"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def redis_store(url: str, clock: ManualClock, timeout: float = 0.2) -> RedisCatalogStore:
    breaker = CircuitBreaker(1, 5.0, clock)
    return RedisCatalogStore.from_url(url, prefix="svc:catalog:", timeout=timeout, breaker=breaker)


def test_a_hung_redis_is_asked_once_per_cool_down(hung_server, clock, caplog):
    store = redis_store(hung_server.url, clock)
    try:
        with pytest.raises(StoreUnavailable) as first:
            store.get_info("prod")
        assert not isinstance(first.value, StoreNotAsked) and not first.value.answered
        assert hung_server.connections() == 1
        assert store.guard.breaker.state == OPEN
        assert "catalog requests are refused at once for 5 s" in caplog.text
        for call in (lambda: store.get_info("prod"), store.list_infos, store.ping):
            with pytest.raises(StoreNotAsked):
                call()
        assert store.check() == StoreHealth(
            "redis", DOWN, "not answering; asked again at most 5 s after the last try"
        )
        clock.advance(5)
        with pytest.raises(StoreUnavailable) as again:
            store.put_settings("prod", ClusterSettings())
        assert not isinstance(again.value, StoreNotAsked)  # the cool-down's one try
        assert hung_server.connections() == 2  # the cool-down's one try: one more connection
        with pytest.raises(StoreNotAsked):
            store.get_info("prod")
    finally:
        store.close()
    assert hung_server.connections() == 2


def test_a_redis_back_closes_the_breaker(redis_server, clock, caplog):
    server = redis_server()
    store = redis_store(server.url, clock)
    try:
        assert store.check() == StoreHealth("redis", UP)
        server.stop()
        assert store.check() == StoreHealth(
            "redis", DOWN, "Redis cannot be reached (ConnectionError)"
        )
        server.start()
        assert store.check().state == DOWN  # not asked before the cool-down has passed
        clock.advance(5)
        assert store.check() == StoreHealth("redis", UP)
        assert "catalog store (redis): answering again" in caplog.text
    finally:
        store.close()


@pytest.mark.parametrize("given", ["a wrong password", "no password"])
def test_a_redis_that_refuses_the_credentials(redis_server, clock, caplog, given):
    server = redis_server("--requirepass", "the-right-one")
    password = f":{PASSWORD}@" if given == "a wrong password" else ""
    store = redis_store(f"redis://{password}127.0.0.1:{server.port}/0", clock)
    caplog.set_level(logging.DEBUG)
    try:
        for _ in range(3):  # answered at once: nothing to wait for, the breaker stays closed
            with pytest.raises(StoreUnavailable) as refused:
                store.get_info("prod")
            assert refused.value.refused and not isinstance(refused.value, StoreNotAsked)
        assert store.check() == StoreHealth(
            "redis", REFUSED, "Redis refuses the credentials of REDIS_URL (AuthenticationError)"
        )
        assert PASSWORD not in str(refused.value)
    finally:
        store.close()
    assert PASSWORD not in caplog.text


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "catalogs.sqlite3"


@pytest.mark.parametrize(
    ("where", "reason"),
    [
        ("a directory", "the SQLite file cannot be used: unable to open database file"),
        ("under a file", "the SQLite file cannot be used: File exists"),
        ("under /proc", "the SQLite file cannot be used: No such file or directory"),
    ],
)
def test_a_sqlite_file_that_cannot_be_opened_is_refused(tmp_path, where, reason):
    if where == "a directory":
        path = tmp_path / "catalogs.sqlite3"
        path.mkdir()
    elif where == "under a file":
        (tmp_path / "file").write_text("")
        path = tmp_path / "file" / "catalogs.sqlite3"
    else:
        path = Path("/proc/self/no-such-directory/catalogs.sqlite3")
    store = SqliteCatalogStore(path)
    try:
        assert store.check() == StoreHealth("sqlite", REFUSED, reason)
        with pytest.raises(StoreUnavailable) as refused:
            store.list_infos()
        assert refused.value.refused
        assert store.guard.breaker.state != OPEN  # failing at once: nothing to spare
    finally:
        store.close()


def test_a_read_only_sqlite_file_is_refused_while_reads_go_on(sqlite_path):
    store = SqliteCatalogStore(sqlite_path)
    try:
        store.put_settings("prod", ClusterSettings())
        assert store.check() == StoreHealth("sqlite", UP)
    finally:
        store.close()
    with read_only(sqlite_path):
        store = SqliteCatalogStore(sqlite_path)
        try:
            found = store.check()
            assert (found.state, found.reason[:30]) == (REFUSED, "the SQLite file cannot be used")
            with pytest.raises(StoreUnavailable) as refused:
                store.put_settings("dev", ClusterSettings())
            assert refused.value.refused
        finally:
            store.close()


def test_a_locked_sqlite_file_is_down_not_refused(sqlite_path):
    store = SqliteCatalogStore(sqlite_path, busy_timeout=0.1)
    try:
        store.put_settings("prod", ClusterSettings())
        with sqlite3.connect(sqlite_path, isolation_level=None) as other:
            other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
            assert store.check() == StoreHealth(
                "sqlite",
                DOWN,
                "the SQLite file stayed locked by another writer past the busy timeout",
            )
            assert store.get_info("prod").generation == 1  # the breaker did not open
            other.execute("ROLLBACK")
        assert store.check() == StoreHealth("sqlite", UP)
    finally:
        store.close()
