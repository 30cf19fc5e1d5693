"""Section 3: a cache hit through the app, against a SHA-256 of the body plus one Redis GET.

The baseline is what SPEC §16 promises a repeat costs ("a hash and a GET"): ``hashlib.sha256`` of
the raw body and one ``GET`` of a value as large as the cached frame, with redis-py directly.
The hit is measured with the Redis backend and with the in-process one, and so is ``GET
/healthz`` through the same app: the floor that Flask and the observability hooks put under any
request, which the baseline does not pay.
"""

from __future__ import annotations

import hashlib
import os
from contextlib import closing

import redis

from .report import Table
from .timing import Budget, compare, microseconds, size_label
from .wsgi import WsgiCall, build_app

JSON_HEADERS = {"Content-Type": "application/json"}


def delete_prefix(client: redis.Redis, prefix: str) -> int:
    """UNLINK our keys only (SCAN by prefix, batches of 500); never a flush."""
    deleted = 0
    batch: list[bytes] = []
    for key in client.scan_iter(match=f"{prefix}*", count=1000):
        batch.append(key)
        if len(batch) >= 500:
            deleted += client.unlink(*batch)
            batch.clear()
    if batch:
        deleted += client.unlink(*batch)
    return deleted


def _our_keys(client: redis.Redis, prefix: str) -> set[bytes]:
    return set(client.scan_iter(match=f"{prefix}*", count=1000))


def hot_requests(
    bodies: dict[int, bytes], budget: Budget, redis_url: str | None, prefix: str
) -> tuple[Table, dict[int, dict[str, float]]]:
    """Per size: hit via Redis, hit via the in-process LRU, /healthz, and the baseline."""
    table = Table(
        "3. Hot request: POST /v1/rank answered from the cache, in process",
        (
            "runtimes",
            "body",
            "frame",
            "hash+GET µs",
            "Redis hit µs",
            "Redis hit / baseline",
            "memory hit µs",
            "memory hit / baseline",
            "/healthz µs",
        ),
    )
    memory_app = build_app(redis_url=None, prefix=prefix)
    redis_app = build_app(redis_url=redis_url, prefix=prefix) if redis_url else None
    client = redis.Redis.from_url(redis_url) if redis_url else None
    ratios: dict[int, dict[str, float]] = {}
    try:
        healthz = WsgiCall(memory_app, "/healthz", method="GET")
        for count, raw in bodies.items():
            candidates = {"healthz": healthz}
            memory_hit = WsgiCall(memory_app, "/v1/rank", body=raw, headers=JSON_HEADERS)
            memory_hit()  # the miss that fills the cache
            memory_hit.expect_cache = "hit"
            candidates["memory"] = memory_hit
            frame_size = None
            if redis_app is not None and client is not None:
                before = _our_keys(client, prefix)
                redis_hit = WsgiCall(redis_app, "/v1/rank", body=raw, headers=JSON_HEADERS)
                redis_hit()
                redis_hit.expect_cache = "hit"
                stored = _our_keys(client, prefix) - before
                # The answer is stored under its request key and its ranking key, as one frame.
                frame_size = max(client.strlen(key) for key in stored)
                baseline_key = f"{prefix}baseline:{count}"
                client.set(baseline_key, os.urandom(frame_size), ex=3600)
                candidates["redis"] = redis_hit
                candidates["baseline"] = _hash_and_get(client, raw, baseline_key)
            stats = compare(candidates, budget)
            row = ratios[count] = {}
            cells = [count, size_label(len(raw)), "-", "-", "-", "-"]
            if "baseline" in stats:
                base = stats["baseline"].median
                row["redis"] = stats["redis"].median / base
                row["memory"] = stats["memory"].median / base
                cells[2:] = [
                    size_label(frame_size or 0),
                    microseconds(base),
                    microseconds(stats["redis"].median),
                    f"{row['redis']:.2f}",
                ]
                memory_ratio = f"{row['memory']:.2f}"
            else:
                memory_ratio = "-"
            table.add(
                *cells,
                microseconds(stats["memory"].median),
                memory_ratio,
                microseconds(stats["healthz"].median),
            )
    finally:
        if client is not None:
            with closing(client):
                delete_prefix(client, prefix)
        if redis_app is not None:
            redis_app.extensions["ranking_cache"].close()
    if redis_url is None:
        table.notes.append("no Redis reachable: Redis hits and the baseline were not measured")
    table.notes.append(
        "baseline: hashlib.sha256(body) + GET of a random value as large as the stored frame "
        "(redis-py, same Redis and database); every hit is checked to carry X-Cache: hit"
    )
    return table, ratios


def _hash_and_get(client: redis.Redis, raw: bytes, key: str):
    def baseline() -> None:
        hashlib.sha256(raw).digest()
        if client.get(key) is None:
            raise RuntimeError("baseline value vanished from Redis")

    return baseline
