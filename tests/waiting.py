"""Waiting for what a test cannot be told of directly (a file re-read, a check ended, a server
up, threads all inside): the condition is asked again until it holds. The bound only stops a
broken run: generous, so that no busy machine reaches it, and no test waits for a clock."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

GENEROUS_SECONDS = 60.0


def wait_for(
    condition: Callable[[], T], what: str, *, bound: float = GENEROUS_SECONDS, every: float = 0.02
) -> T:
    """The first true value ``condition()`` returns; fails, saying ``what`` did not happen, if
    none came within ``bound`` seconds."""
    deadline = time.monotonic() + bound
    while not (found := condition()):
        assert time.monotonic() < deadline, f"{what}: not within {bound:g} s"
        time.sleep(every)
    return found
