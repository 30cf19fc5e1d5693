"""Unlink ranking-cache entries of rules versions before 5: `/v1/rank`'s answers gained each
`No` row's `wayOut` and `wayOutNote` and the answer's `summary`, so an answer cached without them
is not read again."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
