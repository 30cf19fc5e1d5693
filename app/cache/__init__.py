"""The ranking cache of rules §16, bound to an app in ``create_app``.

Following the Flask extension pattern, the per-app object lives in
``app.extensions["ranking_cache"]`` (never in a module global): every gunicorn worker builds its
app, and so its own connection pool, after the fork.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from typing import Any

from flask import Flask

from app.breaker import CircuitBreaker
from config.settings import UNSHARED_CACHE_SECRET_WARNING

from .backends import MemoryBackend, RedisBackend
from .framing import FrameCodec
from .ranking_cache import BYPASS, HIT, MISS, CacheSession, RankingCache

EXTENSION_NAME = "ranking_cache"

log = logging.getLogger(__name__)

__all__ = [
    "BYPASS",
    "EXTENSION_NAME",
    "HIT",
    "MISS",
    "CacheSession",
    "RankingCache",
    "build_ranking_cache",
    "get_ranking_cache",
    "init_app",
]


def build_ranking_cache(config: Mapping[str, Any]) -> RankingCache:
    """The cache the settings ask for: Redis (or Redis Cluster) with ``REDIS_URL``, else an
    in-process LRU. Makes no connection. Entries are signed with ``CACHE_SECRET``; without one
    (under gunicorn the master makes one before the fork, see config/gunicorn.conf.py), with a
    random key of this app, and a warning when that key would sign entries in a Redis."""
    url = config["REDIS_URL"]
    secret = config["CACHE_SECRET"]
    if secret is None:
        secret = secrets.token_bytes(32)
        if url:
            log.warning(UNSHARED_CACHE_SECRET_WARNING)
    codec = FrameCodec(secret, config["MAX_CONTENT_LENGTH"])
    if url:
        timeout, cluster = config["REDIS_TIMEOUT_SECONDS"], config["REDIS_CLUSTER"]
        backend: MemoryBackend | RedisBackend = RedisBackend(
            url, timeout, cluster=cluster, codec=codec
        )
    else:
        backend = MemoryBackend(
            config["CACHE_LOCAL_BYTES"], max_entries=config["CACHE_LOCAL_ENTRIES"], codec=codec
        )
    return RankingCache(
        backend,
        prefix=config["CACHE_PREFIX"],
        ttl=config["CACHE_TTL_SECONDS"],
        breaker=CircuitBreaker(
            config["CACHE_BREAKER_FAILURES"], config["CACHE_BREAKER_COOLDOWN_SECONDS"]
        ),
        log_interval=config["CACHE_LOG_INTERVAL_SECONDS"],
        hot_bytes=config["CACHE_HOT_BYTES"],
    )


def init_app(app: Flask) -> RankingCache:
    cache = build_ranking_cache(app.config)
    app.extensions[EXTENSION_NAME] = cache
    return cache


def get_ranking_cache(app: Flask) -> RankingCache:
    """The app's cache (what /metrics and /readyz read ``describe()`` and the counters of)."""
    return app.extensions[EXTENSION_NAME]
