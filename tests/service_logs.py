"""The service's loggers as every test finds them, one fixture for the whole suite (registered in
``tests/conftest.py`` by ``pytest_plugins``): an app made with another ``LOG_LEVEL`` sets the
"app" logger's level process-wide, which would hide a later test's logs, and a logging
configuration that disables the loggers it finds would keep a module's warnings from ``caplog``."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import pytest

SERVICE_LOGGER = "app"


def service_loggers() -> list[logging.Logger]:
    """The "app" logger and every logger under it made so far."""
    prefix = SERVICE_LOGGER + "."
    return [logging.getLogger(SERVICE_LOGGER)] + [
        logger
        for name, logger in list(logging.root.manager.loggerDict.items())
        if name.startswith(prefix) and isinstance(logger, logging.Logger)
    ]


@contextlib.contextmanager
def kept_service_loggers() -> Iterator[None]:
    """Every service logger enabled inside; their levels as found, afterwards."""
    levels = [(logger, logger.level) for logger in service_loggers()]
    for logger, _level in levels:
        logger.disabled = False
    try:
        yield
    finally:
        for logger, level in levels:
            logger.setLevel(level)


@pytest.fixture(autouse=True)
def service_log_state() -> Iterator[None]:
    with kept_service_loggers():
        yield
