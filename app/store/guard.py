"""The catalog store's circuit breaker, and what ``/readyz`` says of the store.

rules §17: a store that cannot be reached is a 503 ``StoreUnavailable`` with ``Retry-After``.
Without a breaker, a Redis that accepts connections and never answers held every catalog
request's thread for the store's timeout (2 s), the probes' thread among them, and a dashboard's
poll paid it twice (the poll path, then Flask's). So every backend call goes through
``StoreGuard.calling``: a call that gets no answer (a timeout, a refused connection) opens the
breaker, and until its cool-down has passed every call is refused at once (``StoreNotAsked``);
then one call, a request's or the readiness check's, tries again. An error the store answers
(wrong credentials, a full disk, a locked file) does not open it: it costs no waiting.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from types import TracebackType

from app.breaker import CircuitBreaker

from .records import StoreNotAsked, StoreUnavailable

# One call without an answer opens the breaker: it has already waited for the store's whole
# timeout, so the next one would most likely wait as long for nothing.
BREAKER_FAILURES = 1
# As long as the Retry-After of the 503 (app/errors.py StoreUnavailable).
BREAKER_COOLDOWN_SECONDS = 5.0

UP = "up"
DOWN = "down"
REFUSED = "refused"
UNKNOWN = "unknown"

log = logging.getLogger("app.store")


@dataclass(frozen=True, slots=True)
class StoreHealth:
    """What ``/readyz`` says of the store: ``state`` (``up``; ``down``: not answering or
    failing; ``refused``: it refuses this service's credentials, or its file cannot be opened
    or written; ``unknown``: no check has ended yet) and, unless up, the ``reason`` in words
    fit for anyone to read."""

    backend: str
    state: str
    reason: str | None = None


class StoreGuard:
    """One per store, shared by its threads; ``breaker`` injectable for tests."""

    def __init__(self, backend: str, breaker: CircuitBreaker | None = None) -> None:
        self.backend = backend
        self.breaker = breaker or CircuitBreaker(BREAKER_FAILURES, BREAKER_COOLDOWN_SECONDS)
        self._calls = threading.local()  # calls under way in this thread (a backend nests)

    def calling(self) -> StoreGuard:
        """Around one backend call (``with guard.calling():``), whose failures are already
        ``StoreUnavailable``; a call inside another (a backend nests) is the outer one's."""
        return self

    def __enter__(self) -> None:
        depth = getattr(self._calls, "depth", 0)
        if depth == 0 and not self.breaker.allow():
            raise StoreNotAsked(
                f"catalog store ({self.backend}): not asked, it stopped answering",
                problem=(
                    f"not answering; asked again at most {self.breaker.cooldown:g} s after "
                    "the last try"
                ),
                answered=False,
            )
        self._calls.depth = depth + 1

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._calls.depth -= 1
        if self._calls.depth:
            return  # the outermost call records the outcome
        if isinstance(error, StoreUnavailable) and not error.answered:
            if self.breaker.record_failure():
                log.warning(
                    "catalog store (%s): %s; catalog requests are refused at once for %g s",
                    self.backend,
                    error.problem,
                    self.breaker.cooldown,
                )
        elif self.breaker.record_success():  # an answer, or an error the store answered
            log.warning("catalog store (%s): answering again", self.backend)
