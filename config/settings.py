"""Settings read from the environment, with explicit conversion.

A bad value fails at start-up with a message naming the variable, never later.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit


class SettingsError(ValueError):
    pass


def env_int(name: str, default: int, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise SettingsError(f"{name} must be at least {minimum}, got {value}")
    return value


def _env_float(name: str, default: float, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number, got {raw!r}") from None
    if not value >= minimum:
        raise SettingsError(f"{name} must be at least {minimum}, got {raw!r}")
    return value


def _env_str(name: str, default: str | None) -> str | None:
    raw = os.environ.get(name)
    return default if raw is None or raw == "" else raw


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    if raw.strip().lower() in _TRUE | _FALSE:
        return raw.strip().lower() in _TRUE
    raise SettingsError(f"{name} must be true or false, got {raw!r}")


def _redis_url(name: str, cluster: bool) -> str | None:
    """The URL, checked here so that a typo stops start-up instead of silently not caching."""
    url = _env_str(name, None)
    if url is None:
        return None
    parts = urlsplit(url)
    schemes = ("redis", "rediss") if cluster else ("redis", "rediss", "unix")
    if parts.scheme not in schemes:
        allowed = ", ".join(f"{scheme}://" for scheme in schemes)
        raise SettingsError(f"{name} must be a URL starting {allowed}; got {url!r}")
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise SettingsError(f"{name} has an invalid port: {url!r}") from None
    if cluster and parts.path.strip("/") not in ("", "0"):
        raise SettingsError(f"{name} must use database 0 with OME_RANKER_REDIS_CLUSTER=true")
    return url


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def env_log_level(name: str, default: str) -> str:
    """Upper-cased; gunicorn (config/gunicorn.conf.py) reads the same variable."""
    raw = _env_str(name, default)
    level = raw.strip().upper()
    if level not in LOG_LEVELS:
        raise SettingsError(f"{name} must be one of {', '.join(LOG_LEVELS)}, got {raw!r}")
    return level


class Config:
    """Production defaults; every value can be set from the environment."""

    def __init__(self) -> None:
        # Request limits (SPEC §15): 16 MiB bodies by default.
        self.MAX_CONTENT_LENGTH = env_int("OME_RANKER_MAX_BODY_BYTES", 16 * 1024 * 1024, 1)
        self.MAX_RUNTIMES = env_int("OME_RANKER_MAX_RUNTIMES", 10_000, 1)
        # Cache (SPEC §16). No REDIS_URL: an in-process LRU cache.
        self.REDIS_CLUSTER = _env_bool("OME_RANKER_REDIS_CLUSTER", False)
        self.REDIS_URL = _redis_url("REDIS_URL", self.REDIS_CLUSTER)
        self.CACHE_PREFIX = _env_str("OME_RANKER_CACHE_PREFIX", "ome-ranker:")
        self.CACHE_TTL_SECONDS = env_int("OME_RANKER_CACHE_TTL", 3600, 1)
        self.CACHE_LOCAL_ENTRIES = env_int("OME_RANKER_CACHE_LOCAL_ENTRIES", 1024, 0)
        self.REDIS_TIMEOUT_SECONDS = _env_float("OME_RANKER_REDIS_TIMEOUT", 0.05, 0.001)
        # Circuit breaker: after this many consecutive Redis failures, leave Redis alone for the
        # cool-down, then let one request probe it.
        self.CACHE_BREAKER_FAILURES = env_int("OME_RANKER_CACHE_BREAKER_FAILURES", 5, 1)
        self.CACHE_BREAKER_COOLDOWN_SECONDS = _env_float(
            "OME_RANKER_CACHE_BREAKER_COOLDOWN", 5.0, 0.0
        )
        # A failing Redis is logged once per interval, not once per request.
        self.CACHE_LOG_INTERVAL_SECONDS = _env_float("OME_RANKER_CACHE_LOG_INTERVAL", 60.0, 0.0)
        self.LOG_LEVEL = env_log_level("OME_RANKER_LOG_LEVEL", "INFO")


class TestConfig(Config):
    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self) -> None:
        super().__init__()
        self.TESTING = True
        # Tests opt in to Redis with their own database and key prefix (tests/conftest.py);
        # a developer's REDIS_URL must not send test entries to their Redis.
        self.REDIS_URL = None
        self.REDIS_CLUSTER = False
