"""The in-process LRU: the cache when no REDIS_URL is set, bounded by the bytes it holds."""

from __future__ import annotations

import os
import random
import sys

import pytest

from app.cache.backends import MemoryBackend
from app.cache.framing import HEADER_SIZE, CorruptEntry, compressed
from app.cache.lru import ENTRY_BYTES
from app.rendering.answers import Answer
from tests.clock import ManualClock

KEY = "ome-ranker:req:v7:" + "0" * 64


def _answer(n: int) -> Answer:
    return Answer(200, "application/json", str(n).encode())


def _incompressible(size: int) -> Answer:
    """An answer whose frame is its body plus the header: gzip cannot shrink random bytes."""
    return Answer(200, "application/json", os.urandom(size))


def _held(key: str, frame_size: int) -> int:
    """What holding a frame of ``frame_size`` bytes under ``key`` counts."""
    return sys.getsizeof(key) + sys.getsizeof(b"x" * frame_size) + ENTRY_BYTES


def _frame_size(body_size: int) -> int:
    return HEADER_SIZE + 1 + len("application/json") + body_size


def _counted(backend: MemoryBackend) -> int:
    """The bytes of what the backend holds, counted from its entries."""
    held = backend._entries
    return sum(_held(key, len(held.get(key)[1])) for key in held.oldest_first())


def test_the_bytes_held_never_pass_the_bound():
    bound = 64 * 1024
    backend = MemoryBackend(bound)
    sizes = random.Random(7)
    for n in range(300):
        backend.put_many({f"{KEY}{n}": _incompressible(sizes.randrange(1, bound // 8))}, ttl=60)
        assert backend.held_bytes() == _counted(backend) <= bound
    assert backend.held_bytes() > bound // 2  # it is used, not emptied
    assert backend.details()["bytes"] == backend.held_bytes()
    assert backend.details()["max_bytes"] == bound


def test_least_recently_used_goes_first_when_bytes_run_out():
    each = _held(KEY + "a", _frame_size(1000))
    backend = MemoryBackend(8 * each + 10)
    backend.put_many({KEY + k: _incompressible(1000) for k in "abcdefgh"}, ttl=60)
    assert backend.get(KEY + "a") is not None  # "b" is now the least recently used
    backend.put_many({KEY + "i": _incompressible(1000)}, ttl=60)
    assert backend.get(KEY + "b") is None
    assert all(backend.get(KEY + k) is not None for k in "acdefghi")
    assert backend.details()["entries"] == 8


def test_a_frame_over_an_eighth_of_the_bound_is_not_kept():
    bound = 8 * _held(KEY + "a", _frame_size(1000))
    backend = MemoryBackend(bound)
    backend.put_many({KEY + "s": _incompressible(1000)}, ttl=60)
    backend.put_many({KEY + "b": _incompressible(1001)}, ttl=60)
    assert backend.get(KEY + "b") is None
    assert backend.get(KEY + "s") is not None  # nothing was pushed out for it
    assert backend.held_bytes() == _held(KEY + "s", _frame_size(1000))


def test_least_recently_used_goes_first_when_keys_run_out():
    backend = MemoryBackend(1 << 20, max_entries=2)
    backend.put_many({"a": _answer(1), "b": _answer(2)}, ttl=60)
    assert backend.get("a") == _answer(1)  # "b" is now the least recently used
    backend.put_many({"c": _answer(3)}, ttl=60)
    assert backend.get("b") is None
    assert backend.get("a") == _answer(1)
    assert backend.get("c") == _answer(3)
    assert backend.details()["entries"] == 2


def test_entries_expire():
    clock = ManualClock()
    backend = MemoryBackend(1 << 20, clock)
    backend.put_many({"a": _answer(1)}, ttl=60)
    clock.advance(59.9)
    assert backend.get("a") == _answer(1)
    clock.advance(0.1)
    assert backend.get("a") is None
    assert backend.details()["entries"] == 0
    assert backend.held_bytes() == 0


@pytest.mark.parametrize(("max_bytes", "max_entries"), [(0, None), (1 << 20, 0)])
def test_zero_caches_nothing(max_bytes, max_entries):
    backend = MemoryBackend(max_bytes, max_entries=max_entries)
    backend.put_many({"a": _answer(1)}, ttl=60)
    assert backend.get("a") is None


def test_close_empties_it():
    backend = MemoryBackend(1 << 20)
    backend.put_many({"a": _answer(1)}, ttl=60)
    backend.close()
    assert backend.get("a") is None
    assert backend.held_bytes() == 0


def test_frames_are_compressed_in_memory_too():
    answer = Answer(200, "application/json", b"[" + b"0," * 2000 + b"0]")
    backend = MemoryBackend(1 << 20)
    backend.put_many({"req": answer, "rank": answer}, ttl=60)
    frame = backend._entries.get("req")[1]
    assert len(frame) < len(answer.body) // 10
    assert backend.get("req") == backend.get("rank") == compressed(answer)
    assert backend.get("req").body == answer.body


def test_a_frame_read_under_another_key_is_corrupt():
    backend = MemoryBackend(1 << 20)
    backend.put_many({"a": _answer(1)}, ttl=60)
    backend._entries.put("b", backend._entries.get("a"))
    with pytest.raises(CorruptEntry):
        backend.get("b")
