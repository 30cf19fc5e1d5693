"""What a probe reads of a dependency without waiting on it.

A readiness probe has a timeout of its own (Kubernetes' default is 1 s): a probe that asks a
hung Redis itself, or waits behind requests that do, is a failed probe. So a probe never asks
a dependency: ``BackgroundCheck`` asks it in a thread of its own, at most every ``interval``
seconds and one check at a time, and the probe reads the latest result, waiting for the check
under way for at most a bound it gives. A check that hangs holds its own thread, never the
probe's, and the next probe starts no second one beside it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
# How old a result may be before a probe starts a check: Kubernetes probes every few seconds
# (docs/operations.md's example: 2 s), so each probe finds a result at most one period old.
CHECK_INTERVAL_SECONDS = 2.0

log = logging.getLogger(__name__)


class BackgroundCheck(Generic[T]):
    """``check`` (which reports what it finds and never raises) run in a daemon thread when
    its last result is ``interval`` seconds old; ``clock`` is injectable for tests."""

    def __init__(
        self,
        name: str,
        check: Callable[[], T],
        *,
        interval: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.interval = interval
        self._check = check
        self._clock = clock
        self._lock = threading.Lock()
        self._latest: T | None = None
        self._checked_at: float | None = None
        self._running: threading.Event | None = None  # set when the check under way ends

    def start(self) -> None:
        """Start a check if the last result is ``interval`` old and none is under way."""
        with self._lock:
            due = self._checked_at is None or self._clock() - self._checked_at >= self.interval
            if due and self._running is None:
                self._running = threading.Event()
                threading.Thread(
                    target=self._run, args=(self._running,), name=self.name, daemon=True
                ).start()

    def latest(self, wait: float) -> T | None:
        """The latest result (None before the first check ends), after starting a check if
        one is due, and waiting at most ``wait`` seconds for the check under way."""
        self.start()
        with self._lock:
            running = self._running
        if running is not None and wait > 0:
            running.wait(wait)
        with self._lock:
            return self._latest

    def _run(self, done: threading.Event) -> None:
        result: T | None
        try:
            result = self._check()
        except Exception:  # a check reports what it finds; this is a bug, not an outage
            log.exception("%s: the check failed", self.name)
            result = None
        with self._lock:
            if result is not None:
                self._latest = result
            self._checked_at = self._clock()
            self._running = None
        done.set()
