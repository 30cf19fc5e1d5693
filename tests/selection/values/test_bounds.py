"""Integers read from text as Go's strconv reads them, with no digit string ever converted whole
(CPython's int() refuses more than 4 300 digits), and the bound on strings the rules read."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.selection.values.bounds import MAX_VALUE_CHARS, length_problem, parse_go_int, too_long

HUGE = "1" * (sys.get_int_max_str_digits() + 700)  # int(HUGE) raises ValueError


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("-0", 0),
        ("+7", 7),
        ("007", 7),  # leading zeros are Go's too
        ("0" * 5000 + "42", 42),  # however many: only the significant digits are converted
        ("9223372036854775807", 2**63 - 1),
        ("-9223372036854775808", -(2**63)),
        ("9223372036854775808", None),  # ErrRange
        ("-9223372036854775809", None),
        ("99999999999999999999", None),
        (HUGE, None),
        ("-" + HUGE, None),
        ("", None),  # ErrSyntax, and everything below
        ("+", None),
        ("-", None),
        ("+-1", None),
        (" 1", None),
        ("1 ", None),
        ("1_000", None),  # underscores only with base 0
        ("0x10", None),
        ("1.0", None),
        ("\u0661", None),  # ARABIC-INDIC DIGIT ONE: Python's int() reads it, Go does not
        ("1\u0661", None),
    ],
)
def test_signed_as_parse_int(text, value):
    assert parse_go_int(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("18446744073709551615", 2**64 - 1),
        ("018446744073709551615", 2**64 - 1),
        ("18446744073709551616", None),
        ("+1", None),  # ParseUint takes no sign
        ("-0", None),
        (HUGE, None),
    ],
)
def test_unsigned_as_parse_uint(text, value):
    assert parse_go_int(text, signed=False) == value


def test_narrower_bit_sizes():
    assert parse_go_int("2147483647", 32) == 2**31 - 1
    assert parse_go_int("2147483648", 32) is None
    assert parse_go_int("255", 8, signed=False) == 255
    assert parse_go_int("256", 8, signed=False) is None


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1), st.integers(0, 30))
def test_every_int64_reads_back_whatever_its_zeros(number, zeros):
    sign = "-" if number < 0 else ""
    assert parse_go_int(f"{sign}{'0' * zeros}{abs(number)}") == number


@given(st.text(max_size=30))
def test_never_raises_and_agrees_with_int_where_go_would(text):
    value = parse_go_int(text)
    if value is not None:
        assert value == int(text)


def test_the_string_bound_names_itself_and_never_the_string():
    assert length_problem("v" * MAX_VALUE_CHARS) is None
    problem = length_problem("v" * (MAX_VALUE_CHARS + 1))
    assert problem == too_long(MAX_VALUE_CHARS)
    assert str(MAX_VALUE_CHARS) in problem and "vv" not in problem
    assert length_problem("x" * 11, limit=10) == too_long(10)
