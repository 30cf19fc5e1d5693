"""A failing Redis is logged once per interval, not once per request."""

from __future__ import annotations

import logging

from app.cache.ranking_cache import ThrottledLog
from tests.clock import ManualClock


def test_one_line_per_interval_with_the_count_suppressed(caplog):
    caplog.set_level(logging.WARNING, "test.throttle")
    clock = ManualClock()
    throttled = ThrottledLog(logging.getLogger("test.throttle"), 60.0, clock)
    for _ in range(5):
        throttled.warning("redis %s", "down")
    clock.advance(59)
    throttled.warning("redis %s", "down")
    clock.advance(1)
    throttled.warning("redis %s", "still down")
    assert [record.getMessage() for record in caplog.records] == [
        "redis down",
        "redis still down (5 similar since the last report)",
    ]
