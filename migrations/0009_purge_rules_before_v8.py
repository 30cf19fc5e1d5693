"""Unlink ranking-cache entries of rules versions before 8: YAML answers are written by the
service's own writer (app/rendering/yaml_writer.py), equal when read but not the same bytes, and
a cached answer is byte for byte the one the service would compute now."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
