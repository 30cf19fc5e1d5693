"""Helpers for migrations that clean up ranking-cache entries."""

from __future__ import annotations

import re
from collections.abc import Callable

import redis
from redis.cluster import RedisCluster

from app.cache.keys import ENTRY_KEY
from app.selection import RULES_VERSION

RedisClient = redis.Redis | RedisCluster

SCAN_COUNT = 1000
UNLINK_BATCH = 500
_GLOB_SPECIAL = re.compile(r"([*?\[\]\\])")


def glob_escape(text: str) -> str:
    """``text`` as a literal inside a SCAN MATCH pattern."""
    return _GLOB_SPECIAL.sub(r"\\\1", text)


def unlink_entries(
    client: RedisClient, prefix: str, should_unlink: Callable[[str, int], bool]
) -> int:
    """UNLINK every cache entry under ``prefix`` for which ``should_unlink(keyspace,
    rules_version)`` holds; returns how many went.

    SCAN, never KEYS, so a large database is walked without blocking it; UNLINK frees memory in
    the background, in batches. With a ``RedisCluster`` client, SCAN visits every primary and
    redis-py splits each UNLINK by slot, so no command ever spans two slots. Keys that are not
    entries (the migrations hash, anything a neighbour put under a longer prefix) are left alone.
    """
    unlinked = 0
    batch: list[bytes] = []
    for key in client.scan_iter(match=f"{glob_escape(prefix)}*", count=SCAN_COUNT):
        name = key.decode("utf-8", "replace")[len(prefix) :]
        found = ENTRY_KEY.match(name)
        if found is None or not should_unlink(found["space"], int(found["rules"])):
            continue
        batch.append(key)
        if len(batch) >= UNLINK_BATCH:
            unlinked += client.unlink(*batch)
            batch.clear()
    if batch:
        unlinked += client.unlink(*batch)
    return unlinked


def unlink_older_rules(client: RedisClient, prefix: str) -> str:
    """Entries of rules older than this release's ``RULES_VERSION`` (newer ones are kept: during
    a rolling update the new release is already writing them)."""
    unlinked = unlink_entries(client, prefix, lambda _space, rules: rules < RULES_VERSION)
    return f"unlinked {unlinked} entries of rules before v{RULES_VERSION}"
