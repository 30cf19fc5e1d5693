"""Clocks for tests that no busy machine can make late or early: ``TickingClock`` for the request
deadline (app/selection/values/budget.py), each reading one tick later, so "stopped after N
checks" is exact; ``ManualClock``, moved by hand, for the cache's cool-downs."""

from __future__ import annotations


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
    """A monotonic clock the test moves by hand: cool-downs pass without sleeping."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
