"""Whoever can write to the shared Redis cannot make the service serve their bytes: forged,
replayed and inflating frames are misses, counted as corrupt, and overwritten."""

from __future__ import annotations

import functools
import gzip
import json
import re
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.cache.framing import FLAG_GZIP, FrameCodec
from app.rendering.answers import Answer
from tests.servers import HANG_SECONDS, SEED_YAML, YAML

SECRET = "hostile-suite-cache-secret-0123456789"
MAX_BODY = 1024 * 1024
# Not the 50 ms default: on a busy test machine a slow Redis reply would be a miss, not a hit.
REDIS_TIMEOUT = "2"


def _corrupt_count(service) -> float:
    _, _, text = service.request("GET", "/metrics")
    match = re.search(rb"^ome_ranker_cache_corrupt_entries_total (\S+)$", text, re.M)
    return float(match[1]) if match else 0.0


@functools.cache
def _bomb() -> bytes:
    return gzip.compress(b"\0" * (64 * 1024 * 1024), 9)  # 64 KB that inflate to 64 MiB


def _forgeries(key: str) -> dict[str, bytes]:
    attacker = FrameCodec(b"the attacker's own secret key", MAX_BODY)
    html = Answer(200, "text/html", b"<script>steal()</script>")
    payload = b"\x10application/json" + _bomb()
    old_fields = struct.pack(">2sBBHI", b"OR", 1, 0, 200, len(payload))
    crc_checked = (
        old_fields + struct.pack(">I", zlib.crc32(payload, zlib.crc32(old_fields))) + payload
    )
    return {
        "signed with another secret": attacker.encode(html, key),
        "inflating, signed with another secret": attacker.sign(key, 200, FLAG_GZIP, payload),
        "the old CRC-checked layout": crc_checked,
        "over the size bound": b"OR\x02" + b"\0" * (2 * MAX_BODY),
    }


@pytest.fixture
def cached_service(start_service, redis_url, redis_prefix):
    return start_service(
        REDIS_URL=redis_url,
        OME_RANKER_CACHE_PREFIX=redis_prefix,
        OME_RANKER_CACHE_SECRET=SECRET,
        OME_RANKER_MAX_BODY_BYTES=str(MAX_BODY),
        OME_RANKER_REDIS_TIMEOUT=REDIS_TIMEOUT,
        # Every read goes to Redis, where the forgeries are: none served from the worker's memory.
        OME_RANKER_CACHE_HOT_BYTES="0",
    )


FORGERIES = (
    "signed with another secret",
    "inflating, signed with another secret",
    "the old CRC-checked layout",
    "over the size bound",
)


@pytest.mark.parametrize("forgery", FORGERIES)
def test_forged_frames_are_never_served(cached_service, redis_client, redis_prefix, forgery):
    service = cached_service
    status, headers, genuine = service.request("POST", "/v1/rank", SEED_YAML, YAML)
    assert (status, headers["X-Cache"]) == (200, "miss")
    keys = sorted(key.decode() for key in redis_client.scan_iter(match=f"{redis_prefix}*"))
    assert len(keys) == 2  # req: and rank:
    for key in keys:
        redis_client.set(key, _forgeries(key)[forgery])

    # Answered, not stuck inflating or checking the forgery (HANG_SECONDS bounds the wait).
    status, headers, body = service.request(
        "POST", "/v1/rank", SEED_YAML, YAML, timeout=HANG_SECONDS
    )
    assert (status, headers["X-Cache"]) == (200, "miss")
    assert headers["Content-Type"] == "application/json"
    assert body == genuine
    assert _corrupt_count(service) == 2
    codec = FrameCodec(SECRET.encode(), MAX_BODY)
    for key in keys:  # overwritten with frames the service signed
        assert codec.decode(redis_client.get(key), key).body == genuine
    assert service.request("POST", "/v1/rank", SEED_YAML, YAML)[1]["X-Cache"] == "hit"
    service.assert_still_serving()


def test_a_genuine_frame_under_another_key_is_not_served(
    cached_service, redis_client, redis_prefix
):
    """Replaying one question's cached answer under another's key."""
    service = cached_service
    other = SEED_YAML.replace(b"llama-demo", b"other-namespace")
    assert service.request("POST", "/v1/rank", other, YAML)[0] == 200
    other_frames = {
        key: redis_client.get(key) for key in redis_client.scan_iter(match=f"{redis_prefix}*")
    }
    assert service.request("POST", "/v1/rank", SEED_YAML, YAML)[0] == 200
    seed_keys = [key for key in redis_client.scan_iter(match=f"{redis_prefix}*")]
    seed_keys = [key for key in seed_keys if key not in other_frames]
    assert len(seed_keys) == 2
    replayed = next(frame for key, frame in other_frames.items() if b":req:" in key)
    for key in seed_keys:
        redis_client.set(key, replayed)
    status, headers, body = service.request("POST", "/v1/rank", SEED_YAML, YAML)
    assert (status, headers["X-Cache"]) == (200, "miss")
    assert json.loads(body)["namespace"] == "llama-demo"
    assert _corrupt_count(service) == 2


def test_without_a_secret_the_workers_share_one(start_service, redis_url, redis_prefix):
    """Unset, the master makes one random key before the fork: every worker reads the entries
    of the others (and the master warns that other instances cannot)."""
    service = start_service(
        REDIS_URL=redis_url,
        OME_RANKER_CACHE_PREFIX=redis_prefix,
        OME_RANKER_REDIS_TIMEOUT=REDIS_TIMEOUT,
        OME_RANKER_CACHE_HOT_BYTES="0",  # every hit read from Redis, as the other worker wrote it
    )
    assert service.request("POST", "/v1/rank", SEED_YAML, YAML)[1]["X-Cache"] == "miss"
    results: list[str] = []
    # Concurrent bursts until both workers have taken some: on a busy machine one worker can
    # take many bursts in a row, so the bound is generous (it stops at the first that does).
    for _ in range(100):
        with ThreadPoolExecutor(8) as pool:
            burst = pool.map(
                lambda _: service.request("POST", "/v1/rank", SEED_YAML, YAML)[1]["X-Cache"],
                range(8),
            )
            results.extend(burst)
        pids = {
            line["pid"]
            for line in service.log_lines()
            if line.get("logger") == "app.access" and line.get("path") == "/v1/rank"
        }
        if len(pids) == 2:
            break
    assert len(pids) == 2, "one worker answered every request"
    assert set(results) == {"hit"}, results
    assert _corrupt_count(service) == 0
    assert service.log().count("OME_RANKER_CACHE_SECRET is unset") == 1
