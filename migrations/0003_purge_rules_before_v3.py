"""Unlink ranking-cache entries of rules versions before 3: revision 3 adds ``decidedBy``,
``toWin`` and ``toWinNote`` to every row of a JSON or YAML ranking (rules §19), so no older
answer is read again."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
