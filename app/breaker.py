"""A circuit breaker, so that a dead Redis costs each request nothing instead of a timeout: the
ranking cache's (rules §16) and the catalog store's (rules §17) each have one.

closed
    every call goes through; ``threshold`` consecutive failures open the breaker.
open
    no call goes through (no connection attempt at all) until ``cooldown`` seconds have passed.
half-open
    exactly one caller is let through as a probe: its success closes the breaker, its failure
    opens it again for another ``cooldown``. Everyone else keeps skipping the cache meanwhile.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

CLOSED = "closed"
OPEN = "open"
HALF_OPEN = "half-open"


class CircuitBreaker:
    """Thread-safe; ``clock`` is injectable so tests can pass the cool-down without sleeping."""

    def __init__(
        self,
        threshold: int,
        cooldown: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if threshold < 1:
            raise ValueError("threshold must be at least 1")
        self.threshold = threshold
        self.cooldown = cooldown
        self.clock = clock
        self._lock = threading.Lock()
        self._state = CLOSED
        self._failures = 0
        self._opened_at = 0.0
        self.times_opened = 0

    @property
    def state(self) -> str:
        with self._lock:
            return self._state

    def allow(self) -> bool:
        """May the caller talk to Redis now? In half-open, only the first caller may."""
        if self._state == CLOSED:  # every call asks: no lock for the common answer
            return True
        with self._lock:
            if self._state == CLOSED:
                return True
            if self._state == OPEN and self.clock() - self._opened_at >= self.cooldown:
                self._state = HALF_OPEN
                return True
            return False

    def record_success(self) -> bool:
        """Returns True when this success closed an open breaker (Redis is back)."""
        if self._state == CLOSED and not self._failures:  # nothing to change: no lock
            return False
        with self._lock:
            recovered = self._state != CLOSED
            self._state = CLOSED
            self._failures = 0
            return recovered

    def record_failure(self) -> bool:
        """Returns True when this failure opened the breaker."""
        with self._lock:
            self._failures += 1
            if self._state == HALF_OPEN or (
                self._state == CLOSED and self._failures >= self.threshold
            ):
                was_closed = self._state == CLOSED
                self._state = OPEN
                self._opened_at = self.clock()
                self.times_opened += was_closed
                return was_closed
            return False
