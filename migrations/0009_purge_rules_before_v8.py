"""Unlink ranking-cache entries of rules versions before 8 (rules §17 "Safe to share"): every
string the rules read is bounded and integers are read as Go reads them, so a body now refused at
its field must not be answered from an entry cached when it was not; and YAML answers are written
by the service's own writer (app/rendering/yaml_writer.py), equal when read but not the same
bytes, while a cached answer is byte for byte the one the service would compute now."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
