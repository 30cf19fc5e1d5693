"""``to_yaml`` (app/rendering/yaml_writer.py) writes what ``yaml.safe_load`` reads back equal,
for every JSON value, and stops at the request's deadline."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings

from app.rendering.yaml_writer import to_yaml
from app.selection.values import budget
from tests.clock import TickingClock
from tests.json_values import json_values


@settings(max_examples=20 * settings.default.max_examples, deadline=None)
@given(json_values)
def test_every_json_value_reads_back_equal(value):
    assert yaml.safe_load(to_yaml(value)) == value


@pytest.mark.parametrize(
    "text",
    [
        *("yes", "No", "on", "null", "~", "", "1.0", "1_000", "0x1f", "0o17", "12:30", ".inf"),
        *("2024-01-01", "=", "<<", "- a", "-", "? x", "x: y", "a #b", "#c", " lead", "trail "),
        *("'quoted'", '"quoted"', "back\\slash", "@x", "`x", "%x", "!x", "&x", "*x", "|", ">"),
        *("line\nbreak", "\r\n", "\t", "\x00", "\x1b[31m", "\x7f", "\x85", "\u2028", "\u2029"),
        *("\ufeff", "\ufffe", "\uffff", "\ud800", "\udfff", "😀", "ünïcödé", "\u202e"),
    ],
)
def test_strings_yaml_reads_otherwise_are_quoted(text):
    written = to_yaml({"key": text, text: "as a key", "list": [text]})
    assert yaml.safe_load(written) == {"key": text, text: "as a key", "list": [text]}


def test_plain_where_plain_reads_the_same():
    written = to_yaml({"name": "team-llama", "message": "Runtime team-llama will be selected"})
    assert written == b"name: team-llama\nmessage: Runtime team-llama will be selected\n"


def test_keys_too_long_for_a_simple_key_are_explicit():
    """The reader refuses a simple key over 1 024 characters (labels and annotations of stored
    objects may have keys that long)."""
    long_key = "k" * 1500
    value = {"labels": {long_key: {"nested": [1]}, "short": 1}, "list": [{long_key: []}]}
    written = to_yaml(value)
    assert f"? {long_key}\n".encode() in written
    assert yaml.safe_load(written) == value


def test_numbers_as_pyyaml_writes_them():
    value = {"i": -3, "big": 2**70, "f": 0.5, "tiny": 1e-05, "huge": 1e16, "zero": -0.0}
    written = to_yaml(value)
    assert b"tiny: 1.0e-05\n" in written
    assert b"huge: 1.0e+16\n" in written
    assert yaml.safe_load(written) == value


def test_block_layout():
    value = {"a": {"b": [1, [2, 3], {"c": {}, "d": []}]}, "e": []}
    assert to_yaml(value) == (b"a:\n  b:\n  - 1\n  - - 2\n    - 3\n  - c: {}\n    d: []\ne: []\n")


def test_the_deadline_stops_the_writing(monkeypatch):
    """Each reading of the ticking clock is one second later: started at 1, the deadline of
    100 s is 101, passed at the 101st check, and nothing is read or written after it."""
    clock = TickingClock()
    monkeypatch.setattr(budget, "time", clock)
    rows = [{"name": f"runtime-{n}", "scope": "Cluster", "score": n} for n in range(10_000)]
    budget.start(100)  # reading 1
    try:
        with pytest.raises(budget.DeadlinePassed):
            to_yaml({"runtimes": rows})
    finally:
        budget.clear()
    assert clock.readings == 1 + 101


def test_without_a_deadline_nothing_is_checked(monkeypatch):
    """The CLI writes YAML outside any request."""
    clock = TickingClock()
    monkeypatch.setattr(budget, "time", clock)
    to_yaml({"rows": [{"n": n} for n in range(1000)]})
    assert clock.readings == 0
