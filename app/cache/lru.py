"""A least-recently-used map bounded by the bytes it holds, for the caches a worker keeps in its
own memory (the embedded backend, app/cache/backends.py, and the decoded answers in front of
every backend, app/cache/hot.py).

An entry counts what holding it really costs: its key and its value as the caller measures them
(``sys.getsizeof`` of their objects) plus ``ENTRY_BYTES`` for the map's own slot and node, so
that the bound is on the worker's memory, not on some of it: a bound on entries alone let a few
dozen large answers take a worker out of memory, and a bound on bodies alone lets many small
entries cost more in containers than in bodies.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")

# An OrderedDict's slot and node, and the small objects a value brings (a tuple, a float, a
# frozen dataclass): ~150 bytes an entry under tracemalloc, with room for the table's growth
# (tests/cache/test_cache_lru.py checks that the count never falls short of what is traced).
ENTRY_BYTES = 256


class BytesLRU(Generic[V]):
    """Values by key, least recently used out first, holding at most ``max_bytes`` and
    ``max_entries`` (``None``: no bound on entries). An entry over ``largest`` bytes is refused
    (one answer never pushes out everything else). Thread-safe."""

    def __init__(
        self,
        max_bytes: int,
        size_of: Callable[[str, V], int],
        *,
        largest: int | None = None,
        max_entries: int | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self.largest = max_bytes if largest is None else min(largest, max_bytes)
        self._size_of = size_of
        self._entries: OrderedDict[str, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """The bytes held, entries' overhead included."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def oldest_first(self) -> list[str]:
        """The keys held, least recently used first."""
        with self._lock:
            return list(self._entries)

    def get(self, key: str) -> V | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key: str, value: V) -> bool:
        """Hold ``value`` under ``key`` (replacing what was there) unless it is over
        ``largest``; False when refused, and then an older value under the key is dropped too
        (it answers the same question, so it is no fresher)."""
        size = self._size_of(key, value) + ENTRY_BYTES
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            if size > self.largest or self.max_entries == 0:
                return False
            # Room first, then the entry: the bound holds at every moment.
            while self._entries and (
                self._bytes + size > self.max_bytes
                or (self.max_entries is not None and len(self._entries) >= self.max_entries)
            ):
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped
            self._entries[key] = (value, size)
            self._bytes += size
            return True

    def discard(self, key: str) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
