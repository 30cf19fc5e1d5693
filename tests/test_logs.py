"""The JSON log format, and that configuring it twice installs it once."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from app.logs import JsonFormatter, StderrHandler, configure_logging


def record(message: str = "hello %s", *args, **extra) -> logging.LogRecord:
    made = logging.LogRecord(
        "app.test", logging.WARNING, __file__, 1, message, args or ("x",), exc_info=None
    )
    for key, value in extra.items():
        setattr(made, key, value)
    return made


def test_a_line_is_one_json_object():
    line = json.loads(JsonFormatter().format(record(fields={"count": 3, "path": Path("/x")})))
    assert list(line)[:5] == ["ts", "level", "logger", "msg", "pid"]
    assert line["level"] == "warning"
    assert line["logger"] == "app.test"
    assert line["msg"] == "hello x"
    assert line["count"] == 3
    assert line["path"] == "/x"  # anything not JSON is written as text
    assert "requestId" not in line  # outside a request


def test_a_traceback_goes_into_exc():
    try:
        raise ValueError("broken")
    except ValueError:
        made = record(exc_info=sys.exc_info())
    formatted = JsonFormatter().format(made)
    assert "\n" not in formatted
    assert "ValueError: broken" in json.loads(formatted)["exc"]


def test_configuring_twice_installs_one_handler():
    configure_logging("info")
    configure_logging("DEBUG")
    root = logging.getLogger()
    ours = [h for h in root.handlers if isinstance(h.formatter, JsonFormatter)]
    assert len(ours) == 1
    assert logging.getLogger("app").level == logging.DEBUG
    configure_logging("INFO")


def test_the_handler_follows_sys_stderr(capsys):
    handler = StderrHandler()
    handler.stream = None  # what logging.StreamHandler.setStream would do: ignored
    handler.handle(record("to %s", "stderr"))
    assert json.loads(capsys.readouterr().err)["msg"] == "to stderr"
