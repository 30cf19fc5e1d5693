"""The answers this process served last, decoded, in front of any backend.

A cache key names its answer for good: it is a digest of everything the answer depends on (the
raw request, or the canonical inputs, or a catalog's uid and generation, and the rules version).
So an answer once read and verified can be served again from memory without asking the backend,
decompressing or checking a signature: on a hit of a 1 000-runtime ranking that is most of the
cost. Each answer is held with its gzip member, so that a client that accepts gzip is sent the
stored bytes. Bounded by the bytes of the bodies it holds, both forms counted
(``OME_RANKER_CACHE_HOT_BYTES`` per worker); least recently used first out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping

from .framing import CachedAnswer


def _size(answer: CachedAnswer) -> int:
    return len(answer.body) + (0 if answer.gzipped is None else len(answer.gzipped))


class HotAnswers:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._answers: OrderedDict[str, CachedAnswer] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedAnswer | None:
        with self._lock:
            found = self._answers.get(key)
            if found is not None:
                self._answers.move_to_end(key)
            return found

    def put_many(self, entries: Mapping[str, CachedAnswer]) -> None:
        with self._lock:
            for key, answer in entries.items():
                size = _size(answer)
                if size > self.max_bytes // 4:  # one answer never pushes out everything else
                    continue
                old = self._answers.pop(key, None)
                if old is not None:
                    self.size -= _size(old)
                self._answers[key] = answer
                self.size += size
            while self.size > self.max_bytes:
                _, dropped = self._answers.popitem(last=False)
                self.size -= _size(dropped)

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()
            self.size = 0
