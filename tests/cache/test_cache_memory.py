"""The in-process LRU: the cache when no REDIS_URL is set."""

from __future__ import annotations

import pytest

from app.cache.backends import MemoryBackend
from app.cache.framing import CachedAnswer, CorruptEntry, compressed
from tests.clock import ManualClock


def _answer(n: int) -> CachedAnswer:
    return CachedAnswer(200, "application/json", str(n).encode())


def test_least_recently_used_goes_first():
    backend = MemoryBackend(2)
    backend.put_many({"a": _answer(1), "b": _answer(2)}, ttl=60)
    assert backend.get("a") == _answer(1)  # "b" is now the least recently used
    backend.put_many({"c": _answer(3)}, ttl=60)
    assert backend.get("b") is None
    assert backend.get("a") == _answer(1)
    assert backend.get("c") == _answer(3)
    assert backend.details() == {"entries": 2, "max_entries": 2}


def test_entries_expire():
    clock = ManualClock()
    backend = MemoryBackend(10, clock)
    backend.put_many({"a": _answer(1)}, ttl=60)
    clock.advance(59.9)
    assert backend.get("a") == _answer(1)
    clock.advance(0.1)
    assert backend.get("a") is None
    assert backend.details()["entries"] == 0


def test_zero_entries_caches_nothing():
    backend = MemoryBackend(0)
    backend.put_many({"a": _answer(1)}, ttl=60)
    assert backend.get("a") is None


def test_close_empties_it():
    backend = MemoryBackend(10)
    backend.put_many({"a": _answer(1)}, ttl=60)
    backend.close()
    assert backend.get("a") is None


def test_frames_are_compressed_in_memory_too():
    answer = CachedAnswer(200, "application/json", b"[" + b"0," * 2000 + b"0]")
    backend = MemoryBackend(10)
    backend.put_many({"req": answer, "rank": answer}, ttl=60)
    frame = backend._entries["req"][1]
    assert len(frame) < len(answer.body) // 10
    assert backend.get("req") == backend.get("rank") == compressed(answer)
    assert backend.get("req").body == answer.body


def test_a_frame_read_under_another_key_is_corrupt():
    backend = MemoryBackend(10)
    backend.put_many({"a": _answer(1)}, ttl=60)
    backend._entries["b"] = backend._entries["a"]
    with pytest.raises(CorruptEntry):
        backend.get("b")
