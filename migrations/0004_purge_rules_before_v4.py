"""Unlink ranking-cache entries of rules versions before 4: object names must be Kubernetes
names and text answers never carry a control character (rules §17 "Safe to share"), so an answer
cached for a request that is now refused, or printed with raw control characters, is not read
again."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
