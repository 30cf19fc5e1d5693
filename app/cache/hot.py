"""The answers this process served last, decoded, in front of any backend.

A cache key names its answer for good: it is a digest of everything the answer depends on (the
raw request, or the canonical inputs, or a catalog's uid and generation, and the rules version).
So an answer once read and verified can be served again from memory without asking the backend,
decompressing or checking a signature: on a hit of a 1 000-runtime ranking that is most of the
cost. Each answer is held with its gzip member, so that a client that accepts gzip is sent the
stored bytes. Bounded by the bytes it holds, both forms of each body, keys and containers
counted (``OME_RANKER_CACHE_HOT_BYTES`` per worker); least recently used first out.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from app.rendering.answers import Answer

from .lru import BytesLRU


def _held_answer(key: str, answer: Answer) -> int:
    """An answer held under two keys is counted under each: over the truth, never under."""
    gzipped = 0 if answer.gzipped is None else sys.getsizeof(answer.gzipped)
    return (
        sys.getsizeof(key)
        + sys.getsizeof(answer)
        + sys.getsizeof(answer.content_type)
        + sys.getsizeof(answer.body)
        + gzipped
    )


class HotAnswers:
    def __init__(self, max_bytes: int) -> None:
        # one answer never pushes out everything else
        self._answers: BytesLRU[Answer] = BytesLRU(max_bytes, _held_answer, largest=max_bytes // 4)

    @property
    def max_bytes(self) -> int:
        return self._answers.max_bytes

    @property
    def size(self) -> int:
        return self._answers.size

    def get(self, key: str) -> Answer | None:
        return self._answers.get(key)

    def put_many(self, entries: Mapping[str, Answer]) -> None:
        for key, answer in entries.items():
            self._answers.put(key, answer)

    def clear(self) -> None:
        self._answers.clear()
