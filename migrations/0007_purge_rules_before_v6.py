"""Unlink ranking-cache entries of rules versions before 6: answers gained ``placement`` (rules
§20.8) and requests their AcceleratorClasses, so an answer cached without them is not read
again."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
