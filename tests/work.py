"""Hang guards that no busy machine can trip: a bound on the CPU time this process spends on one
piece of work. Waiting for a core adds to the time on the clock, not to the CPU time, so a bound
well under what a quadratic scan of the input would cost (minutes) holds at any load.

The tests that use it feed inputs at the service's real bounds: they are in a slow group (``scale``
for the most part), which ``make test`` runs and ``make test-fast`` leaves out."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator


@contextlib.contextmanager
def cpu_seconds_under(bound: float) -> Iterator[None]:
    """Fail if the block takes ``bound`` seconds of this process's CPU time, or more."""
    started = time.process_time()
    yield
    spent = time.process_time() - started
    assert spent < bound, f"{spent:.1f} s of CPU: more work than the input calls for"
