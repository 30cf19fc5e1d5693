"""Rewrite every stored catalog object in its stored form (rules §17 "Stored is what is read"):
containers, their ``env`` and ``args``, and every other field no rule reads are dropped from
what earlier releases stored, so that an upgraded service keeps none of the secrets it held.

Each cluster is rewritten in one transaction (its generation grows when something changed, so
cached answers and ETags move on); what was stored is kept otherwise, whatever the bounds.
Then, when Redis keeps an append-only file (``appendonly yes``), it is rewritten
(``BGREWRITEAOF``), so that the dropped values leave the file too; a Redis that refuses the
command (a managed one) is named in the summary: rewrite its AOF, or let its next automatic
rewrite do it. The SQLite store does the
same by itself, the first time an upgraded service opens its file.
"""

from __future__ import annotations

import redis
from redis.cluster import RedisCluster

from app.schemas.stored import stored_form
from app.store.redis import RedisCatalogStore
from migrations.entries import RedisClient

CATALOG_PREFIX = "catalog:"  # under the cache prefix, as app/catalog.py builds it


def migrate(client: RedisClient, prefix: str) -> str:
    store = RedisCatalogStore(
        lambda: client,
        prefix=f"{prefix}{CATALOG_PREFIX}",
        max_objects=None,
        max_bytes=None,
        max_runtimes=None,
        max_clusters=None,
    )
    clusters, objects = store.rewrite_manifests(stored_form)
    summary = f"rewrote {objects} objects of {clusters} clusters in their stored form"
    if objects:
        summary += f"; {_rewrite_append_only_file(client)}"
    return summary


def _rewrite_append_only_file(client: RedisClient) -> str:
    try:
        if client.config_get("appendonly").get("appendonly") == "no":
            return "Redis keeps no append-only file"
    except redis.RedisError:
        pass  # CONFIG disabled (a managed Redis): try the rewrite itself
    try:
        if isinstance(client, RedisCluster):
            client.bgrewriteaof(target_nodes=RedisCluster.PRIMARIES)
        else:
            client.bgrewriteaof()
    except redis.RedisError as error:
        return f"BGREWRITEAOF refused ({error}): rewrite the append-only file yourself"
    return "BGREWRITEAOF started"
