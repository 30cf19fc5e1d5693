"""Cache settings are checked at start-up, with a message naming the variable."""

from __future__ import annotations

import pytest

from app.cache import get_ranking_cache
from config.settings import Config, SettingsError, TestConfig


@pytest.mark.parametrize(
    ("environment", "message"),
    [
        ({"OME_RANKER_REDIS_CLUSTER": "maybe"}, "OME_RANKER_REDIS_CLUSTER must be true or false"),
        (
            {"REDIS_URL": "http://cache:6379"},
            "REDIS_URL must be a URL starting redis://, rediss://, unix://",
        ),
        ({"REDIS_URL": "redis://cache:port/0"}, "REDIS_URL has an invalid port"),
        (
            {"REDIS_URL": "unix:///run/redis.sock", "OME_RANKER_REDIS_CLUSTER": "true"},
            "REDIS_URL must be a URL starting redis://, rediss://;",
        ),
        (
            {"REDIS_URL": "redis://node:7000/2", "OME_RANKER_REDIS_CLUSTER": "yes"},
            "REDIS_URL must use database 0",
        ),
        ({"OME_RANKER_CACHE_BREAKER_FAILURES": "0"}, "OME_RANKER_CACHE_BREAKER_FAILURES"),
        ({"OME_RANKER_CACHE_BREAKER_COOLDOWN": "-1"}, "OME_RANKER_CACHE_BREAKER_COOLDOWN"),
        ({"OME_RANKER_CACHE_LOG_INTERVAL": "soon"}, "OME_RANKER_CACHE_LOG_INTERVAL"),
        ({"OME_RANKER_CACHE_LOCAL_BYTES": "32Mi"}, "OME_RANKER_CACHE_LOCAL_BYTES must be an int"),
        ({"OME_RANKER_CACHE_LOCAL_BYTES": "-1"}, "OME_RANKER_CACHE_LOCAL_BYTES must be at least"),
    ],
)
def test_bad_cache_settings_stop_start_up(monkeypatch, environment, message):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=message.replace("?", r"\?")):
        Config()


def test_cache_settings(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "rediss://:secret@node-1:7000")
    monkeypatch.setenv("OME_RANKER_REDIS_CLUSTER", "TRUE")
    monkeypatch.setenv("OME_RANKER_CACHE_BREAKER_FAILURES", "2")
    monkeypatch.setenv("OME_RANKER_CACHE_BREAKER_COOLDOWN", "0.5")
    config = Config()
    assert config.REDIS_URL == "rediss://:secret@node-1:7000"
    assert config.REDIS_CLUSTER is True
    assert (config.CACHE_BREAKER_FAILURES, config.CACHE_BREAKER_COOLDOWN_SECONDS) == (2, 0.5)


def test_tests_never_use_the_developers_redis(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")
    assert TestConfig().REDIS_URL is None


def test_the_embedded_cache_is_bounded_by_bytes(monkeypatch, make_app):
    """32 MiB a worker by default (three workers in the shipped 1 GiB pod); the setting reaches
    the backend."""
    assert Config().CACHE_LOCAL_BYTES == 32 * 1024 * 1024
    monkeypatch.setenv("OME_RANKER_CACHE_LOCAL_BYTES", "1048576")
    assert Config().CACHE_LOCAL_BYTES == 1 << 20
    backend = get_ranking_cache(make_app(CACHE_LOCAL_BYTES=1 << 20)).backend
    assert backend.details()["max_bytes"] == 1 << 20
