"""Unlink ranking-cache entries of rules versions before 9 (rules §18 "Kinds and versions as
kubectl maps them"): a manifest stream's object without a kind, or of ``ome.io`` with a kind or
version OME does not serve, is now listed under ``ignored`` in kubectl's words (``/v1/select``
gains ``ignored`` for them) where it was refused or listed as another kind, so an answer cached
before must not be served for the same body."""

from __future__ import annotations

from migrations.entries import RedisClient, unlink_older_rules


def migrate(client: RedisClient, prefix: str) -> str:
    return unlink_older_rules(client, prefix)
