"""Unlink ranking-cache entries of rules versions before 7: catalogs store AcceleratorClasses
(rules §20.8), so answers about a catalog carry the placement its classes give, and selections
rows gained each component's class; an answer cached without them is not read again."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
