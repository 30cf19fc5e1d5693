"""Unlink ranking-cache entries of rules versions before 10 (rules §16): every map an answer
echoes (``acceleratorConfig``, ``nodeSelector``, ``resources``) is written with its keys sorted,
so an entry cached before holds the key order of the request that computed it, which a request
writing the same map in another order would have been sent; a cached answer is byte for byte the
one the service would compute now."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
