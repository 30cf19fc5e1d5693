"""The settings of the worker model, the request deadline and the cache secret: checked at
start-up, with a message naming the variable."""

from __future__ import annotations

import pytest

from config.settings import Config, ServerSettings, SettingsError, TestConfig

SERVER_VARIABLES = (
    "OME_RANKER_THREADS",
    "OME_RANKER_WORKER_CONNECTIONS",
    "OME_RANKER_WORKER_TIMEOUT",
    "OME_RANKER_GRACEFUL_TIMEOUT",
    "OME_RANKER_DRAIN_SECONDS",
    "OME_RANKER_KEEPALIVE",
    "OME_RANKER_CLIENT_TIMEOUT",
    "OME_RANKER_REQUEST_DEADLINE",
    "OME_RANKER_MAX_BODY_BYTES",
    "OME_RANKER_CACHE_SECRET",
)


@pytest.fixture(autouse=True)
def defaults(monkeypatch):
    for variable in SERVER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def test_defaults():
    settings = ServerSettings.from_environment(default_workers=3)
    assert settings.workers == 3
    assert (settings.threads, settings.worker_connections) == (4, 1000)
    assert (settings.timeout, settings.graceful_timeout, settings.drain_seconds) == (30, 20, 5)
    assert (settings.client_timeout, settings.request_deadline) == (10.0, 10.0)
    assert settings.max_body_bytes == Config().MAX_CONTENT_LENGTH == 16 * 1024 * 1024
    assert Config().REQUEST_DEADLINE_SECONDS == 10.0
    assert Config().CACHE_SECRET is None


def test_values_from_the_environment(monkeypatch):
    monkeypatch.setenv("OME_RANKER_DRAIN_SECONDS", "0")
    monkeypatch.setenv("OME_RANKER_CLIENT_TIMEOUT", "2.5")
    monkeypatch.setenv("OME_RANKER_WORKER_TIMEOUT", "60")
    monkeypatch.setenv("OME_RANKER_REQUEST_DEADLINE", "45")
    monkeypatch.setenv("OME_RANKER_CACHE_SECRET", "0123456789abcdef")
    settings = ServerSettings.from_environment()
    assert (settings.drain_seconds, settings.client_timeout) == (0, 2.5)
    assert settings.request_deadline == Config().REQUEST_DEADLINE_SECONDS == 45
    assert Config().CACHE_SECRET == b"0123456789abcdef"


@pytest.mark.parametrize(
    ("environment", "message"),
    [
        (
            {"OME_RANKER_REQUEST_DEADLINE": "28"},
            r"OME_RANKER_REQUEST_DEADLINE must be below OME_RANKER_WORKER_TIMEOUT \(30\)",
        ),
        (
            {"OME_RANKER_WORKER_TIMEOUT": "5", "OME_RANKER_REQUEST_DEADLINE": "3"},
            r"below OME_RANKER_WORKER_TIMEOUT \(5\) by more than 2 s",
        ),
        ({"OME_RANKER_REQUEST_DEADLINE": "0"}, "OME_RANKER_REQUEST_DEADLINE must be at least"),
        ({"OME_RANKER_REQUEST_DEADLINE": "soon"}, "OME_RANKER_REQUEST_DEADLINE must be a number"),
        ({"OME_RANKER_CACHE_SECRET": "short"}, "OME_RANKER_CACHE_SECRET must be at least 16"),
    ],
)
def test_bad_values_stop_start_up(monkeypatch, environment, message):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=message):
        Config()
    with pytest.raises(SettingsError, match=message.split()[0]):
        ServerSettings.from_environment() if "SECRET" not in message else Config()


def test_tests_sign_with_a_fixed_secret(monkeypatch):
    monkeypatch.setenv("OME_RANKER_CACHE_SECRET", "a developer's own secret")
    assert TestConfig().CACHE_SECRET == b"ome-ranker test cache secret"
