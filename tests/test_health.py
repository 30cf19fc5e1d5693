"""A probe reads a dependency's state from a check that runs beside it (app/health.py): it starts
one check at a time, at most every interval, and waits for it only as long as it is told."""

from __future__ import annotations

import threading

from app.health import BackgroundCheck
from tests.clock import ManualClock


class Blocking:
    """A check that returns only when the test lets it, counting how often it was started."""

    def __init__(self) -> None:
        self.started = 0
        self.release = threading.Event()
        self.result = "first"

    def __call__(self) -> str:
        self.started += 1
        self.release.wait(30)
        return self.result


def test_a_hung_check_holds_its_own_thread_and_is_started_once():
    check = Blocking()
    background = BackgroundCheck("test check", check, interval=2, clock=ManualClock())
    assert background.latest(wait=0) is None  # answered at once, before the check ends
    assert background.latest(wait=0.01) is None
    assert check.started == 1  # the check under way is not started again beside itself
    check.release.set()
    assert background.latest(wait=30) == "first"


def test_a_result_is_used_for_an_interval_then_checked_again():
    clock = ManualClock()
    check = Blocking()
    check.release.set()
    background = BackgroundCheck("test check", check, interval=2, clock=clock)
    assert background.latest(wait=30) == "first"
    check.result = "second"
    clock.advance(1.9)
    assert background.latest(wait=30) == "first" and check.started == 1
    clock.advance(0.1)
    assert background.latest(wait=30) == "second" and check.started == 2


def test_a_check_that_raises_keeps_the_last_result(caplog):
    clock = ManualClock()
    results = iter(["up"])

    def check() -> str:
        return next(results)  # StopIteration the second time: a bug in a check

    background = BackgroundCheck("test check", check, interval=1, clock=clock)
    assert background.latest(wait=30) == "up"
    clock.advance(1)
    background.latest(wait=30)
    assert background.latest(wait=30) == "up"
    assert "test check: the check failed" in caplog.text
