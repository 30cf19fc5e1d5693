"""Clocks for tests that no busy machine can make late or early: ``TickingClock`` for the request
deadline (app/selection/values/budget.py), each reading one tick later, so "stopped after N
checks" is exact; ``ManualClock``, moved by hand, for cool-downs, reload intervals and deadlines
that must pass (or not) between two steps; ``TickingCalendar`` for the times a store writes
down."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class TickingClock:
    """Stands in for the ``time`` module of ``app.selection.values.budget``."""

    def __init__(self) -> None:
        self.now = 0.0
        self.readings = 0

    def monotonic(self) -> float:
        self.readings += 1
        self.now += 1.0
        return self.now


class ManualClock:
    """A monotonic clock the test moves by hand: cool-downs pass without sleeping. Called, it is
    the ``clock`` the breaker, the token file and the checks take; ``monotonic`` lets it stand
    in for the ``time`` module of ``app.selection.values.budget`` too."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class TickingCalendar:
    """A store's ``clock`` of UTC datetimes, each reading one second later than the last."""

    def __init__(self) -> None:
        self.now = datetime(2025, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now
