"""Values in messages as OME's Go code formats them (app/selection/values/gotext.py): ``%q``, as
``strconv.Quote`` writes a string, and ``%v`` of a ``[]string``."""

from __future__ import annotations

import pytest

from app.selection.values.gotext import go_list, go_quote


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("llama", '"llama"'),
        ("", '""'),
        ("with space", '"with space"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        ("a\nb\tc\rd", '"a\\nb\\tc\\rd"'),
        ("\a\b\f\v", '"\\a\\b\\f\\v"'),
        ("\x00\x1f\x7f", '"\\x00\\x1f\\x7f"'),
        ("é, 模型, 😀", '"é, 模型, 😀"'),  # printable runes are kept as they are
        ("\u00a0\u00ad\u2028", '"\\u00a0\\u00ad\\u2028"'),  # spaces, format and separators
        ("\U000e0001", '"\\U000e0001"'),
        ("\ud800x", '"\ufffdx"'),  # a lone surrogate decodes to U+FFFD in Go's JSON
    ],
)
def test_go_quote_writes_a_go_string_literal(text, quoted):
    assert go_quote(text) == quoted


@pytest.mark.parametrize(
    ("items", "printed"),
    [
        ([], "[]"),
        (["a"], "[a]"),
        (["invalid-class-1", "invalid-class-2"], "[invalid-class-1 invalid-class-2]"),
        (("x y", ""), "[x y ]"),
    ],
)
def test_go_list_prints_a_slice_as_fmt_does(items, printed):
    assert go_list(items) == printed
