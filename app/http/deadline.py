"""A deadline for every request: an answer that would come too late becomes a JSON 503.

``init_app`` starts the clock in a ``before_request`` hook (``OME_RANKER_REQUEST_DEADLINE``
seconds) and clears it on teardown. The clock itself lives in ``app.selection.values.budget``,
so that the pure rules can stop inside their own loops (``checkpoint()``, raising
``DeadlinePassed``); the error handlers answer that as 503 ``DeadlineExceeded``, like
``check()`` here, which the HTTP layer calls between its stages.

Check only where stopping is safe: nothing half-written to the cache (answers are stored after
they are complete, so any point before ``session.store`` is). Outside a request, and in code that
never called ``start`` (the pure selection tests, a CLI), ``check()`` does nothing.

The worker (app/worker/) answers 503 itself for a request whose code never checks, a little after
the deadline (``config.settings.DEADLINE_MARGIN_SECONDS``).
"""

from __future__ import annotations

from flask import Flask, current_app

from app.errors import DeadlineExceeded
from app.selection.values import DeadlinePassed, checkpoint, clear, remaining, start

__all__ = ["check", "clear", "init_app", "remaining", "start"]


def check() -> None:
    """Raise ``DeadlineExceeded`` when the current request is past its deadline."""
    try:
        checkpoint()
    except DeadlinePassed as passed:
        raise DeadlineExceeded(str(passed)) from None


def init_app(app: Flask) -> None:
    app.before_request(_start_request)
    app.teardown_request(_end_request)


def _start_request() -> None:
    seconds = current_app.config["REQUEST_DEADLINE_SECONDS"]
    if seconds is not None:  # None: no deadline (the command line's app, docs/cli.md)
        start(seconds)


def _end_request(_error: BaseException | None) -> None:
    clear()
