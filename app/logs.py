"""Structured logs: every line one JSON object on stderr.

Lines carry ``ts``, ``level``, ``logger``, ``msg``, ``pid`` (the gunicorn worker), the fields a
caller passes as ``extra={"fields": {...}}``, ``requestId`` inside a request, and ``exc`` with the
traceback when there is one. The handler goes on the root logger, so gunicorn's own lines
(routed there by config/gunicorn.conf.py) and any library's warnings come out in the same format.

This module imports nothing of the metrics: gunicorn's master loads it for its log config
before ``PROMETHEUS_MULTIPROC_DIR`` is set, and prometheus_client fixes its mode on import.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from app.http import record as request_record

# One encoder for every line: json.dumps builds a new one per call when given options.
_ENCODER = json.JSONEncoder(ensure_ascii=True, default=str, separators=(",", ":"))


class JsonFormatter(logging.Formatter):
    """One JSON object per record; never raises on an odd value (``default=str``)."""

    def format(self, record: logging.LogRecord) -> str:
        created = time.gmtime(record.created)
        line: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", created) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,
        }
        line.update(getattr(record, "fields", None) or {})
        if "requestId" not in line:
            current = request_record.current()
            if current is not None and current.request_id is not None:
                line["requestId"] = current.request_id
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exc"] = record.exc_text
        return _ENCODER.encode(line)


class StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time, like ``logging.lastResort``, so that
    replacing stderr (pytest's capture does) never leaves it writing to a closed stream."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonFormatter())

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def configure_logging(level: str) -> None:
    """JSON lines on the root logger (once per process), ``level`` for the service's loggers.

    Third-party loggers keep the root's WARNING; a root handler that already formats JSON
    (gunicorn's log config installs one in the master) is reused.
    """
    root = logging.getLogger()
    if not any(isinstance(handler.formatter, JsonFormatter) for handler in root.handlers):
        root.addHandler(StderrHandler())
    logging.getLogger("app").setLevel(level.upper())
