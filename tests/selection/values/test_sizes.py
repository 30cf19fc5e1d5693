"""Size strings (SPEC §9): Go's strconv.ParseFloat grammar and OME's suffixes."""

from __future__ import annotations

import math
import re
import struct
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.selection.values.sizes import is_plain_size, parse_go_float, parse_size

ERR = None  # Go returned an error (syntax or range): OME reads the size as 0


def _bits(value: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def _same(actual: float | None, expected: float | None) -> bool:
    """Bit-for-bit equality (keeps -0.0 apart from 0.0); any NaN equals any NaN."""
    if actual is None or expected is None:
        return actual is expected
    if math.isnan(expected):
        return math.isnan(actual)
    return _bits(actual) == _bits(expected)


# Every expected value below was checked against Go 1.27's strconv.ParseFloat(s, 64)
# (ERR = Go returned an error) with a differential harness, bit for bit.
GO_PARSE_FLOAT = [
    # plain decimals
    ("0", 0.0),
    ("-0", -0.0),
    ("+1", 1.0),
    (".5", 0.5),
    ("5.", 5.0),
    ("1e5", 1e5),
    ("1E+5", 1e5),
    ("1e-5", 1e-5),
    ("3.21", 3.21),
    ("", ERR),
    (".", ERR),
    ("+", ERR),
    ("1e", ERR),
    ("1e+", ERR),
    ("e5", ERR),
    ("1.2.3", ERR),
    ("--1", ERR),
    ("1,000", ERR),
    # Go rejects all whitespace and every non-ASCII digit (Python's float() does not)
    (" 1", ERR),
    ("1 ", ERR),
    ("1\n", ERR),
    ("\u0661", ERR),  # Arabic-Indic one
    ("\uff11", ERR),  # fullwidth one
    # underscores: only between digits or right after a base prefix
    ("1_000", 1000.0),
    ("0_1", 1.0),
    ("1e1_0", 1e10),  # also inside the exponent
    ("1__000", ERR),
    ("_1", ERR),
    ("1_", ERR),
    ("1_.5", ERR),
    ("1._5", ERR),
    ("1_e5", ERR),
    ("1e_5", ERR),
    ("+_1", ERR),
    # hex floats need the p exponent; e is a hex digit there
    ("0x1p-2", 0.25),
    ("0x1.8p1", 3.0),
    ("0X1P+2", 4.0),
    ("0x.8p1", 1.0),
    ("0x1.p1", 2.0),
    ("0x1e1p0", 481.0),
    ("-0x0p0", -0.0),
    ("0x_1p0", 1.0),
    ("0x1p1_0", 1024.0),
    ("0x10", ERR),
    ("0x", ERR),
    ("0x0", ERR),
    ("0xp1", ERR),
    ("0x.p1", ERR),
    ("0x1_p0", ERR),
    ("0x1p_0", ERR),
    ("0x1p", ERR),
    ("0b1", ERR),  # no binary or octal floats
    ("0o7", ERR),
    ("0b_1", ERR),
    # special values
    ("inf", math.inf),
    ("+Inf", math.inf),
    ("-infinity", -math.inf),
    ("INFINITY", math.inf),
    ("infinit", ERR),
    ("infs", ERR),
    ("infinityy", ERR),
    ("++inf", ERR),
    ("NaN", math.nan),
    ("nAn", math.nan),
    ("+nan", ERR),  # NaN takes no sign
    ("-nan", ERR),
    ("\u212anf", ERR),  # no Unicode case folding
    # range: overflow is an error, underflow is not
    ("1e400", ERR),
    ("-1e400", ERR),
    ("1e99999999999999999999", ERR),
    ("0e99999999999", 0.0),
    ("1.7976931348623157e308", 1.7976931348623157e308),
    (str(2**1024 - 2**970), ERR),  # max + ulp/2 rounds up (to even) and overflows
    (str(2**1024 - 2**970 - 1), 1.7976931348623157e308),
    ("1e-400", 0.0),
    ("-1e-400", -0.0),
    ("4e-324", 5e-324),
    ("2.4703282292062328e-324", 5e-324),
    ("2.4703282292062327e-324", 0.0),
    ("0x1p1024", ERR),
    ("0x1.fffffffffffff8p1023", ERR),
    ("0x1.fffffffffffff7ffffffp1023", 1.7976931348623157e308),
    ("0x1p-1075", 0.0),  # half the smallest denormal: ties to even
    ("0x1.0000000000001p-1075", 5e-324),
    ("0x1.8p-1074", 1e-323),
    # correct rounding, half to even, with long mantissas
    ("0.1000000000000000055511151231257827021181583404541015625", 0.1),
    ("9007199254740993." + "0" * 800, 9007199254740992.0),
    ("9007199254740993." + "0" * 800 + "1", 9007199254740994.0),
    ("9007199254740995" + "0" * 800 + "e-800", 9007199254740996.0),
    ("0x1.00000000000008p0", 1.0),
    ("0x1.000000000000080000000000000001p0", 1.0000000000000002),
    ("0x1.00000000000018p0", 1.0000000000000004),
    ("0x1" + "0" * 3000 + "p-12100", 2.0**-100),
    # Go stops accumulating an exponent once it reaches 10000: this reads as 1e55
    ("1" + "0" * 12400 + "e-123456", 1e55),
    ("0." + "0" * 12400 + "1e123456", 1e-56),
]

# parse_size checked against the Go version of OME's function (SPEC §9).
GO_PARSE_SIZE = [
    ("7B", 7e9),
    ("3.21B", 3210000000.0),
    ("4.1B", 4099999999.9999995),
    ("16.1B", 16100000000.000002),
    ("1.5T", 1.5e12),
    ("350M", 350e6),
    ("7", 7.0),
    ("", 0.0),
    ("B", 0.0),
    ("T", 0.0),
    ("7b", 0.0),  # suffixes are case-sensitive
    ("4b", 0.0),
    ("7K", 0.0),
    (" 7B", 0.0),
    ("7 B", 0.0),
    ("7BB", 0.0),  # only one suffix is stripped
    ("1e300T", math.inf),  # the product overflows; no error
    ("1e400B", 0.0),
    ("1e-400T", 0.0),
    ("-0B", -0.0),
    ("nanB", math.nan),
    ("+nanB", 0.0),
    ("infT", math.inf),
    ("-infB", -math.inf),
    ("0x1p0T", 1e12),
    ("1_000B", 1e12),
    ("1e1_0B", 1e19),
    ("1e5M", 1e11),
]


@pytest.mark.parametrize(("text", "expected"), GO_PARSE_FLOAT)
def test_parse_go_float_matches_go(text: str, expected: float | None) -> None:
    assert _same(parse_go_float(text), expected)


@pytest.mark.parametrize(("text", "expected"), GO_PARSE_SIZE)
def test_parse_size_matches_go(text: str, expected: float) -> None:
    assert _same(parse_size(text), expected)


def test_parse_size_multiplies_like_float64() -> None:
    # Go computes v * 1e9 in float64, which is not always the double nearest to
    # the decimal: Go gives 4099999999.9999995 for "4.1B", not 4.1e9.
    assert _bits(parse_size("4.1B")) == _bits(4099999999.9999995)
    assert parse_size("4.1B") != 4.1e9
    assert parse_size("1.07B") == 1070000000.0000001


finite_floats = st.floats(allow_nan=False, allow_infinity=False)


@given(finite_floats)
def test_repr_round_trips(value: float) -> None:
    assert _same(parse_go_float(repr(value)), value)


@given(finite_floats)
def test_hex_round_trips(value: float) -> None:
    assert _same(parse_go_float(value.hex()), value)


@given(finite_floats, st.integers(-400, 400))
def test_long_exponents_take_the_general_path_consistently(value: float, shift: int) -> None:
    # A zero-padded 6-digit exponent bypasses the fast path but must read the same.
    mantissa = f"{abs(value):.17e}".split("e")[0]
    exponent = int(f"{value:.17e}".split("e")[1]) + shift
    fast = parse_go_float(f"{mantissa}e{exponent}")
    slow = parse_go_float(f"{mantissa}e{exponent:+07d}")
    assert _same(slow, fast)


plain_sizes = st.from_regex(r"\A[0-9]{1,40}(\.[0-9]{1,40})?[TBM]?\Z")


@given(plain_sizes)
def test_plain_sizes_read_as_correctly_rounded_decimals(text: str) -> None:
    multiplier = {"T": 1e12, "B": 1e9, "M": 1e6}.get(text[-1], 1.0)
    number = text[:-1] if multiplier != 1.0 else text
    assert is_plain_size(text)
    assert _same(parse_size(text), float(Decimal(number)) * multiplier)


@given(st.text(alphabet="0123456789_", min_size=1, max_size=20))
def test_underscores_are_digit_separators_or_errors(text: str) -> None:
    valid = re.fullmatch(r"[0-9]+(_[0-9]+)*", text) is not None
    expected = float(text.replace("_", "")) if valid else None
    assert _same(parse_go_float(text), expected)


@given(st.sampled_from(["+", "-", ""]), finite_floats.map(abs))
def test_sign_applies_to_the_value(sign: str, value: float) -> None:
    expected = -value if sign == "-" else value
    assert _same(parse_go_float(sign + repr(value)), expected)


@given(finite_floats, st.sampled_from([" ", "\t", "\n", "\u00a0", "\u0661", "\x00"]))
def test_whitespace_and_non_ascii_are_errors(value: float, junk: str) -> None:
    text = repr(value)
    assert parse_go_float(junk + text) is None
    assert parse_go_float(text + junk) is None


go_alphabet = st.text(alphabet="0123456789._+-eEpPxXinfaINFAtyTBM", max_size=12)


@given(go_alphabet, st.sampled_from([("T", 1e12), ("B", 1e9), ("M", 1e6)]))
def test_suffix_multiplies_the_number_or_gives_zero(number: str, suffix: tuple[str, float]) -> None:
    letter, multiplier = suffix
    value = parse_go_float(number)
    expected = 0.0 if value is None else value * multiplier
    assert _same(parse_size(number + letter), expected)


@settings(max_examples=5 * settings.default.max_examples)
@given(st.one_of(st.text(), go_alphabet))
def test_parse_size_never_raises(text: str) -> None:
    result = parse_size(text)
    assert isinstance(result, float)
    value = parse_go_float(text)
    assert value is None or isinstance(value, float)


@given(st.one_of(st.text(), go_alphabet, plain_sizes))
def test_is_plain_size_agrees_with_regex(text: str) -> None:
    expected = re.fullmatch(r"[0-9]+(\.[0-9]+)?[TBM]?", text, flags=re.ASCII) is not None
    assert is_plain_size(text) is expected


@pytest.mark.parametrize("text", ["7B", "1.5e3M", "0x1p4B", "x" * 64, "1" * 65 + "B", "9" * 400])
def test_cached_and_uncached_paths_agree_and_long_strings_are_not_kept(text):
    from app.selection.values import sizes

    before = sizes._parse_size_cached.cache_info().currsize
    assert sizes.parse_size(text) == sizes._parse_size(text)
    if len(text) > 64:
        assert sizes._parse_size_cached.cache_info().currsize == before
