"""The ranking cache (rules §16): an accelerator, never a dependency.

Every backend operation goes through ``RankingCache.guarded``: it is skipped while the circuit
breaker is open, and whatever it raises is counted, logged at most once per interval, and turned
into "not cached". A request therefore pays at most one failed operation (``CacheSession``
gives up on the cache for the rest of the request after a failure) and never an error.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from redis.exceptions import ClusterError, RedisClusterException, RedisError, ResponseError

from app.breaker import CLOSED, CircuitBreaker
from app.rendering.answers import Answer
from config.redaction import redact_urls

from .backends import Backend
from .framing import CorruptEntry
from .hot import HotAnswers

log = logging.getLogger(__name__)

HIT = "hit"
MISS = "miss"
BYPASS = "bypass"
COUNTERS = ("hits", "misses", "bypasses", "errors", "corrupt", "skipped")

T = TypeVar("T")


class ThrottledLog:
    """Logs a recurring failure once per ``interval``, with how many were suppressed since."""

    def __init__(self, logger: logging.Logger, interval: float, clock: Callable[[], float]) -> None:
        self.logger = logger
        self.interval = interval
        self.clock = clock
        self._last: float | None = None
        self._suppressed = 0
        self._lock = threading.Lock()

    def warning(self, message: str, *args: Any, exc_info: BaseException | None = None) -> None:
        now = self.clock()
        with self._lock:
            if self._last is not None and now - self._last < self.interval:
                self._suppressed += 1
                return
            suppressed, self._suppressed, self._last = self._suppressed, 0, now
        if suppressed:
            message += " (%d similar since the last report)"
            args = (*args, suppressed)
        self.logger.warning(message, *args, exc_info=exc_info)


class Flights:
    """One lock per answer being computed in this process, so that the requests that miss the
    same key at once (a recycled worker's first polls, a catalog just written) wait for one
    computation instead of each making its own. A lock lives while someone holds or waits."""

    def __init__(self) -> None:
        self._locks: dict[str, list] = {}  # key -> [lock, holders and waiters]
        self._guard = threading.Lock()

    @contextlib.contextmanager
    def computing(self, key: str) -> Iterator[bool]:
        """Hold ``key``'s lock; True when another request held it first (its answer may be
        stored by now)."""
        with self._guard:
            entry = self._locks.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        lock = entry[0]
        waited = not lock.acquire(blocking=False)
        if waited:
            lock.acquire()
        try:
            yield waited
        finally:
            lock.release()
            with self._guard:
                entry[1] -= 1
                if entry[1] == 0:
                    del self._locks[key]

    def requests(self) -> int:
        """The requests holding or waiting for a key's lock, all keys together."""
        with self._guard:
            return sum(entry[1] for entry in self._locks.values())


def _server_answered(error: Exception) -> bool:
    """An error reply (OOM on SET, a read-only replica, ACLs) means Redis is up and fast: it is
    counted, but does not open the breaker, so reads that still work keep being served."""
    return isinstance(error, ResponseError) and not isinstance(error, ClusterError)


class RankingCache:
    """Counters, breaker and logging around one backend; stored in ``app.extensions``."""

    def __init__(
        self,
        backend: Backend,
        *,
        prefix: str,
        ttl: int,
        breaker: CircuitBreaker,
        log_interval: float,
        hot_bytes: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backend = backend
        self.hot = HotAnswers(hot_bytes) if hot_bytes > 0 else None
        self.prefix = prefix
        self.ttl = ttl
        self.breaker = breaker
        self.counts = dict.fromkeys(COUNTERS, 0)
        self.flights = Flights()
        self.last_error: str | None = None
        self._counts_lock = threading.Lock()
        self._failure_log = ThrottledLog(log, log_interval, clock)
        self._opened_log = ThrottledLog(log, log_interval, clock)
        self._recovered_log = ThrottledLog(log, log_interval, clock)

    def count(self, counter: str) -> None:
        with self._counts_lock:
            self.counts[counter] += 1

    def stats(self) -> dict[str, int]:
        with self._counts_lock:
            return dict(self.counts)

    def held(self, key: str) -> Answer | None:
        """The answer under ``key`` if this process holds it decoded (``HotAnswers``); asks
        nothing of the backend and counts nothing (a caller that serves it counts the hit)."""
        return None if self.hot is None else self.hot.get(key)

    def held_bytes(self) -> dict[str, int]:
        """The bytes this process holds in each in-process layer: the decoded answers
        (``hot``) and the embedded backend's frames (``local``; 0 with Redis)."""
        return {
            "hot": 0 if self.hot is None else self.hot.size,
            "local": self.backend.held_bytes(),
        }

    def session(self, *, bypass: bool = False, counted: bool = True) -> CacheSession:
        """The cache as one request sees it; ``bypass`` skips reads (``no-cache``). A session
        not ``counted`` leaves the hits, misses and bypasses alone: it serves no answer (a
        scrape's reads of the fleet's counts, docs/operations.md "Metrics")."""
        return CacheSession(self, bypass, counted)

    def describe(self) -> dict[str, Any]:
        """State for /readyz and /metrics, without any I/O."""
        breaker = self.breaker.state
        return {
            "backend": self.backend.name,
            "state": "up" if breaker == CLOSED else "down",
            "breaker": breaker,
            "prefix": self.prefix,
            "ttl_seconds": self.ttl,
            "hot_bytes": 0 if self.hot is None else self.hot.size,
            **self.backend.details(),
            **self.stats(),
            "last_error": self.last_error,
        }

    def ping(self) -> bool:
        """One guarded round trip (the probe, when the breaker is half-open)."""

        def ping() -> bool:
            self.backend.ping()
            return True

        return self.guarded(ping)[0] is True

    def close(self) -> None:
        self.backend.close()

    def guarded(self, operation: Callable[[], T]) -> tuple[T | None, bool]:
        """Run one backend operation: ``(result, True)``, or ``(None, available)`` when it was
        skipped or failed; ``available`` is False when Redis is not answering (breaker open,
        connection refused, timeout), so the caller should not try again for this request."""
        if not self.breaker.allow():
            self.count("skipped")
            return None, False
        try:
            result = operation()
        except CorruptEntry as error:
            self._record_error(error, answered=True)
            return None, True
        except Exception as error:
            # Deliberately broad: nothing the cache raises may fail a request (rules §16).
            answered = _server_answered(error)
            self._record_error(error, answered=answered)
            return None, answered
        self._reachable()
        return result, True

    def _reachable(self) -> None:
        if self.breaker.record_success():
            self._recovered_log.warning("ranking cache: %s is reachable again", self.backend.name)

    def _record_error(self, error: Exception, *, answered: bool) -> None:
        corrupt = isinstance(error, CorruptEntry)
        self.count("errors")
        if corrupt:
            self.count("corrupt")
        # Redacted: it is logged, and a client's error may quote a node's URL.
        self.last_error = f"{type(error).__name__}: {redact_urls(str(error))}"
        if answered:
            self._reachable()
        elif self.breaker.record_failure():
            self._opened_log.warning(
                "ranking cache: %s failed %d times in a row; not using it for %.1fs",
                self.backend.name,
                self.breaker.threshold,
                self.breaker.cooldown,
            )
        # A traceback only for what we did not foresee (not a Redis error nor a bad value).
        expected = corrupt or isinstance(error, RedisError | RedisClusterException | OSError)
        self._failure_log.warning(
            "ranking cache: %s: %s; answering uncached",
            self.backend.name,
            self.last_error,
            exc_info=None if expected else error,
        )


class CacheSession:
    """One request's view of the cache: after the first failed operation the rest of the
    request skips the cache, so a slow Redis costs at most one timeout per request."""

    def __init__(self, cache: RankingCache, bypass: bool, counted: bool = True) -> None:
        self.cache = cache
        self.bypass = bypass
        self.counted = counted
        self.result = BYPASS if bypass else MISS
        self.failed = False

    def lookup(self, key: str) -> Answer | None:
        if self.bypass:
            return None
        hot = self.cache.hot
        answer = None if hot is None else hot.get(key)
        if answer is None:
            answer = self._run(lambda: self.cache.backend.get(key))
            if answer is not None and hot is not None:
                hot.put_many({key: answer})
        if answer is not None:
            self.result = HIT
            if self.counted:
                self.cache.count("hits")
        return answer

    def store(self, entries: Mapping[str, Answer], *, fresh: bool) -> None:
        """Write entries; ``fresh`` marks an answer computed by this request (a miss/bypass)."""
        if fresh and self.counted:
            self.cache.count("bypasses" if self.bypass else "misses")
        if self.cache.hot is not None:
            self.cache.hot.put_many(entries)
        self._run(lambda: self.cache.backend.put_many(entries, self.cache.ttl))

    def _run(self, operation: Callable[[], T]) -> T | None:
        if self.failed:
            self.cache.count("skipped")
            return None
        result, available = self.cache.guarded(operation)
        self.failed = not available
        return result
