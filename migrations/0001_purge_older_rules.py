"""Unlink ranking-cache entries written under older selection rules.

Their keys carry the rules version (``<prefix>rank:v<N>:…``, ``<prefix>req:v<N>:…``); this
release never reads them, but they hold memory until their TTL runs out. Entries of a newer
version are kept. When ``RULES_VERSION`` is bumped, add ``NNNN_purge_rules_before_v<N>.py``
calling ``unlink_older_rules`` again (a migration runs once).
"""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
