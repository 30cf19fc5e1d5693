"""The embedded cache (no REDIS_URL) is bounded by the bytes it holds: a stream of distinct
questions with large answers cannot grow a worker until it is killed for its memory. A real
gunicorn worker's resident set is read from /proc while it answers them."""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path

from tests.builders import model_doc, rank_body, runtime_doc

JSON = {"Content-Type": "application/json"}
MiB = 1024 * 1024
LOCAL_BYTES = 4 * MiB
HOT_BYTES = 4 * MiB
# Room for what the allocator keeps after the requests that came and went.
SLACK = 8 * MiB


def _resident(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)[1]) * 1024


def _large_answer_question(rng: random.Random, n: int) -> bytes:
    """A ranking of 600 runtimes whose 253-character random names gzip poorly: an answer of
    ~270 KB, framed ~110 KB, distinct for each ``n``."""
    alphabet = string.ascii_lowercase + string.digits
    names = ("".join(rng.choices(alphabet, k=253)) for _ in range(600))
    return json.dumps(rank_body(model_doc(f"model-{n}"), *map(runtime_doc, names))).encode()


def _cache_bytes(metrics: str, layer: str, pid: int) -> float:
    pattern = rf'^ome_ranker_cache_bytes{{layer="{layer}",pid="{pid}"}} (\S+)$'
    return float(re.search(pattern, metrics, re.M)[1])


def test_distinct_large_answers_leave_the_worker_bounded(start_service):
    service = start_service(
        OME_RANKER_WORKERS="1",
        OME_RANKER_CACHE_LOCAL_BYTES=str(LOCAL_BYTES),
        OME_RANKER_CACHE_HOT_BYTES=str(HOT_BYTES),
    )
    (worker,) = service.worker_pids()
    rng = random.Random(17)
    resident, asked = [], []
    for n in range(170):
        asked = [*asked[:1], _large_answer_question(rng, n)]  # the first and the latest
        status, headers, _ = service.request("POST", "/v1/rank", asked[-1], JSON, timeout=30)
        assert (status, headers["X-Cache"]) == (200, "miss")
        if n >= 19 and n % 10 == 9:  # from the 20th on: the code and its first answers loaded
            resident.append(_resident(worker))
    # Unbounded, the cache alone would hold 170 answers x 2 keys x ~110 KB, over 35 MB.
    assert max(resident) - resident[0] < LOCAL_BYTES + HOT_BYTES + SLACK, [
        size // MiB for size in resident
    ]
    metrics = service.request("GET", "/metrics")[2].decode()
    local, hot = _cache_bytes(metrics, "local", worker), _cache_bytes(metrics, "hot", worker)
    assert LOCAL_BYTES * 3 / 4 < local <= LOCAL_BYTES  # full, never over
    assert HOT_BYTES * 3 / 4 < hot <= HOT_BYTES
    # The latest answer is held, the first long gone.
    hit, miss = (service.request("POST", "/v1/rank", body, JSON)[1] for body in asked[::-1])
    assert (hit["X-Cache"], miss["X-Cache"]) == ("hit", "miss")
