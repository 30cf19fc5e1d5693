"""The byte-bounded LRU behind the in-process caches (app/cache/lru.py)."""

from __future__ import annotations

import sys
import tracemalloc

from app.cache.lru import ENTRY_BYTES, BytesLRU


def _bytes_size(key: str, value: bytes) -> int:
    return sys.getsizeof(key) + sys.getsizeof(value)


def test_the_count_is_never_under_what_holding_the_entries_costs():
    """Many small entries, where the map's own slots and nodes weigh most: tracemalloc sees
    every allocation of the map, the keys and the values."""
    lru: BytesLRU[tuple[float, bytes]] = BytesLRU(
        1 << 30, lambda key, value: sys.getsizeof(key) + sys.getsizeof(value[1])
    )
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(20_000):
            lru.put(f"ome-ranker:req:v7:{n:064x}", (float(n), b"%064x" % n))
        traced = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert traced <= lru.size < 2 * traced


def test_room_is_made_before_an_entry_comes_in():
    each = _bytes_size("a", b"x" * 100) + ENTRY_BYTES
    lru: BytesLRU[bytes] = BytesLRU(2 * each, _bytes_size)
    lru.put("a", b"x" * 100)
    lru.put("b", b"x" * 100)
    assert lru.size == 2 * each
    assert lru.put("c", b"x" * 100)
    assert (lru.get("a"), len(lru), lru.size) == (None, 2, 2 * each)


def test_a_refused_entry_drops_the_older_one_under_its_key():
    lru: BytesLRU[bytes] = BytesLRU(10_000, _bytes_size, largest=1000)
    lru.put("a", b"x" * 10)
    assert not lru.put("a", b"x" * 2000)
    assert (lru.get("a"), lru.size, len(lru)) == (None, 0, 0)


def test_replacing_an_entry_counts_it_once():
    lru: BytesLRU[bytes] = BytesLRU(10_000, _bytes_size)
    lru.put("a", b"x" * 10)
    lru.put("a", b"y" * 20)
    assert (lru.get("a"), lru.size) == (b"y" * 20, _bytes_size("a", b"y" * 20) + ENTRY_BYTES)
    lru.discard("a")
    assert (lru.size, len(lru)) == (0, 0)
