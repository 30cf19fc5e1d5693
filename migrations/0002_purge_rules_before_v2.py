"""Unlink ranking-cache entries of rules version 1: revision 2 of the selection rules (OME's
no-runtime text, explicit runtimes looked up by kind and resolved through inheritance, sharded
models, manifest streams) answers many requests differently, so no v1 answer is read again."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
