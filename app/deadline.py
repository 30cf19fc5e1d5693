"""A deadline for every request: an answer that would come too late becomes a JSON 503.

``init_app`` starts the clock in a ``before_request`` hook (``OME_RANKER_REQUEST_DEADLINE``
seconds) and clears it on teardown. Code that can run long calls ``check()``, which raises
``DeadlineExceeded`` (503, ``{"error": {"code": "DeadlineExceeded", ...}}``) once the deadline
has passed; the error handlers turn it into the answer like any other ``ApiError``.

How to call it from a long loop::

    from app import deadline

    for runtime in runtimes:
        deadline.check()      # ~0.1 us: a context-variable read and a clock read
        ...one runtime's work...

Check once per unit of work that takes microseconds to milliseconds (a runtime, a document, a
batch of a few hundred items), never inside a tight inner loop over characters or bytes. Check
only where stopping is safe: nothing half-written to the cache (answers are stored after they are
complete, so any point before ``session.store`` is). Outside a request, and in code that never
called ``start`` (the pure selection tests, a CLI), ``check()`` does nothing.

The state is a ``ContextVar``: each gunicorn thread, and each request in it, has its own. The
worker (app/worker/) answers 503 itself for a request whose code never checks, a little after the
deadline (``config.settings.DEADLINE_MARGIN_SECONDS``).
"""

from __future__ import annotations

import time
from contextvars import ContextVar

from flask import Flask, current_app

from .errors import DeadlineExceeded

# (monotonic time of the deadline, the seconds it was given) of the current request.
_deadline: ContextVar[tuple[float, float] | None] = ContextVar(
    "ome_ranker_request_deadline", default=None
)


def start(seconds: float) -> None:
    """Give the current request (context) ``seconds`` from now."""
    _deadline.set((time.monotonic() + seconds, seconds))


def clear() -> None:
    _deadline.set(None)


def remaining() -> float | None:
    """Seconds left, negative once past; None without a deadline."""
    current = _deadline.get()
    return None if current is None else current[0] - time.monotonic()


def check() -> None:
    """Raise ``DeadlineExceeded`` when the current request is past its deadline."""
    current = _deadline.get()
    if current is not None and time.monotonic() > current[0]:
        raise DeadlineExceeded(
            f"the request took longer than this service's deadline ({current[1]:g} s); "
            "try again later"
        )


def init_app(app: Flask) -> None:
    app.before_request(_start_request)
    app.teardown_request(_end_request)


def _start_request() -> None:
    start(current_app.config["REQUEST_DEADLINE_SECONDS"])


def _end_request(_error: BaseException | None) -> None:
    clear()
