"""Unlink ranking-cache entries of rules versions before 8: every string the rules read is
bounded and integers are read as Go reads them (rules §17 "Safe to share"), so a body that is now
refused at its field must not be answered from an entry cached when it was not."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
