"""How long a question may take (rules §17 "Bounded work"): the current request's deadline,
checked cooperatively inside every loop that grows with the input.

The HTTP layer (``app/http/deadline.py``) starts the clock for each request; the rules call
``checkpoint()`` once per unit of work (a runtime ranked, a document validated, an
InferenceService resolved), which raises ``DeadlinePassed`` once the deadline has passed, so the
thread stops and returns instead of finishing an answer nobody will read. Outside a request (the
pure tests, the CLI in process) nothing is set and ``checkpoint()`` does nothing.

A check is a context-variable read and a clock read: call it per unit that costs many times
that, never inside a loop over characters; ``checked(items, every=n)`` checks
once per ``n`` items of a loop whose steps are cheaper (``python -m bench.deadline`` measures
what the checks cost). Stopping is always safe here: the rules build new values and change
nothing shared.

The state is a ``ContextVar``: each gunicorn thread, and each request in it, has its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")

# (monotonic time of the deadline, the seconds it was given) of the current request.
_deadline: ContextVar[tuple[float, float] | None] = ContextVar(
    "ome_ranker_request_deadline", default=None
)


class DeadlinePassed(Exception):
    """The current request ran past its deadline; ``seconds`` is the deadline it was given."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"the request took longer than this service's deadline ({seconds:g} s); try again later"
        )
        self.seconds = seconds


def start(seconds: float) -> None:
    """Give the current request (context) ``seconds`` from now."""
    _deadline.set((time.monotonic() + seconds, seconds))


def clear() -> None:
    _deadline.set(None)


def remaining() -> float | None:
    """Seconds left, negative once past; None without a deadline."""
    current = _deadline.get()
    return None if current is None else current[0] - time.monotonic()


@contextmanager
def sharing(fraction: float) -> Iterator[None]:
    """The current request's deadline brought closer for the work inside: ``fraction`` of the
    time left, so that what must follow that work (a write's commit, its answer) keeps the
    rest. Outside a request, nothing changes."""
    current = _deadline.get()
    if current is None:
        yield
        return
    now = time.monotonic()
    token = _deadline.set((now + max(0.0, current[0] - now) * fraction, current[1]))
    try:
        yield
    finally:
        _deadline.reset(token)


def checkpoint() -> None:
    """Raise ``DeadlinePassed`` when the current request is past its deadline."""
    current = _deadline.get()
    if current is not None and time.monotonic() > current[0]:
        raise DeadlinePassed(current[1])


def checked(items: Iterable[T], every: int = 1) -> Iterable[T]:
    """``items``, with a ``checkpoint()`` before each ``every`` of them: for loops whose every
    step is a unit of work (``every`` > 1 where a step is cheap, so that the checks stay under
    1 % of the work). Outside a request, ``items`` as they are."""
    if _deadline.get() is None:
        return items
    if every == 1:
        return _each_checked(items)
    if isinstance(items, list | tuple) and 0 < len(items) <= every:
        checkpoint()  # one run: the check now, and no generator (most runtimes' entries)
        return items
    return _checked_in_runs(items, every)


def _each_checked(items: Iterable[T]) -> Iterator[T]:
    for item in items:
        checkpoint()
        yield item


def _checked_in_runs(items: Iterable[T], every: int) -> Iterator[T]:
    sequence = items if isinstance(items, list | tuple) else list(items)
    for start in range(0, len(sequence), every):
        checkpoint()
        yield from sequence[start : start + every]
