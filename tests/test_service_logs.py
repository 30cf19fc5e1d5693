"""The suite's one fixture for the service's loggers (tests/service_logs.py): what a test does to
them does not reach the next test, and a logger a logging configuration disabled is enabled."""

from __future__ import annotations

import logging

from tests.service_logs import kept_service_loggers, service_loggers


def test_levels_come_back_and_disabled_loggers_are_enabled():
    service, store = logging.getLogger("app"), logging.getLogger("app.store")
    found = (service.level, store.level)
    store.disabled = True  # as logging.config.dictConfig leaves the loggers it does not name
    with kept_service_loggers():
        assert not store.disabled
        service.setLevel(logging.ERROR)  # as create_app(LOG_LEVEL="ERROR") does
        store.setLevel(logging.CRITICAL)
    assert (service.level, store.level) == found


def test_the_service_loggers_are_the_app_family_only():
    logging.getLogger("app.http.record")
    logging.getLogger("application")  # a name that only starts like it
    names = [logger.name for logger in service_loggers()]
    assert names[0] == "app" and "app.http.record" in names
    assert all(name == "app" or name.startswith("app.") for name in names)


def test_each_test_starts_with_the_store_loggers_warnings_reaching_caplog(caplog):
    """What tests/store/test_guard.py needs: no fixture of its own."""
    logging.getLogger("app.store.guard").warning("the store is down")
    assert "the store is down" in caplog.text
