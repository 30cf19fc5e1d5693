"""Settings read from the environment, with explicit conversion.

A bad value fails at start-up with a message naming the variable, never later.
"""

from __future__ import annotations

import os


class SettingsError(ValueError):
    pass


def _env_int(name: str, default: int, minimum: int = 0) -> int:
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


class Config:
    """Production defaults; every value can be set from the environment."""

    def __init__(self) -> None:
        # Request limits (SPEC §15): 16 MiB bodies by default.
        self.MAX_CONTENT_LENGTH = _env_int("OME_RANKER_MAX_BODY_BYTES", 16 * 1024 * 1024, 1)
        self.MAX_RUNTIMES = _env_int("OME_RANKER_MAX_RUNTIMES", 10_000, 1)
        # Cache (SPEC §16). No REDIS_URL: an in-process LRU cache.
        self.REDIS_URL = _env_str("REDIS_URL", None)
        self.CACHE_PREFIX = _env_str("OME_RANKER_CACHE_PREFIX", "ome-ranker:")
        self.CACHE_TTL_SECONDS = _env_int("OME_RANKER_CACHE_TTL", 3600, 1)
        self.CACHE_LOCAL_ENTRIES = _env_int("OME_RANKER_CACHE_LOCAL_ENTRIES", 1024, 0)
        self.REDIS_TIMEOUT_SECONDS = _env_float("OME_RANKER_REDIS_TIMEOUT", 0.05, 0.001)
        self.LOG_LEVEL = _env_str("OME_RANKER_LOG_LEVEL", "INFO")


class TestConfig(Config):
    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self) -> None:
        super().__init__()
        self.TESTING = True
