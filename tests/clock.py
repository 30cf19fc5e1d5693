"""A clock for tests of the request deadline (app/selection/budget.py) that no busy machine can
make late or early: each reading is one tick later, so "stopped after N checks" is exact."""

from __future__ import annotations


class TickingClock:
    """Stands in for the ``time`` module of ``app.selection.budget``."""

    def __init__(self) -> None:
        self.now = 0.0
        self.readings = 0

    def monotonic(self) -> float:
        self.readings += 1
        self.now += 1.0
        return self.now
