"""The circuit breaker: closed, open for a cool-down, one half-open probe."""

from __future__ import annotations

import pytest

from app.breaker import CLOSED, HALF_OPEN, OPEN, CircuitBreaker
from tests.clock import ManualClock


@pytest.fixture
def clock():
    return ManualClock()


def test_opens_after_threshold_consecutive_failures(clock):
    breaker = CircuitBreaker(3, 10.0, clock)
    assert not breaker.record_failure()
    assert not breaker.record_failure()
    breaker.record_success()  # consecutive: a success starts the count again
    assert not breaker.record_failure()
    assert not breaker.record_failure()
    assert breaker.state == CLOSED and breaker.allow()
    assert breaker.record_failure()
    assert breaker.state == OPEN and breaker.times_opened == 1
    assert not breaker.allow()


def test_one_probe_after_the_cool_down(clock):
    breaker = CircuitBreaker(1, 10.0, clock)
    breaker.record_failure()
    clock.advance(9.9)
    assert not breaker.allow()
    clock.advance(0.1)
    assert breaker.allow()
    assert breaker.state == HALF_OPEN
    assert not breaker.allow()  # the probe is under way: nobody else
    assert breaker.record_success()
    assert breaker.state == CLOSED and breaker.allow()


def test_failed_probe_opens_for_another_cool_down(clock):
    breaker = CircuitBreaker(2, 10.0, clock)
    breaker.record_failure()
    breaker.record_failure()
    clock.advance(10)
    assert breaker.allow()
    assert not breaker.record_failure()  # re-opened, not newly opened
    assert breaker.state == OPEN and breaker.times_opened == 1
    clock.advance(5)
    assert not breaker.allow()
    clock.advance(5)
    assert breaker.allow()


def test_success_while_closed_is_not_a_recovery(clock):
    assert not CircuitBreaker(1, 1.0, clock).record_success()


def test_threshold_must_be_positive():
    with pytest.raises(ValueError):
        CircuitBreaker(0, 1.0)
