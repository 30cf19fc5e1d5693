"""Quantities as OME reads them through resource.Quantity (rules §20.1, §20.10 item 19)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.selection.values.quantities import GIB, QuantityError, parse_quantity


@pytest.mark.parametrize(
    ("text", "whole_gib", "gib"),
    [
        ("80Gi", 80, 80.0),
        ("80G", 74, 74.50580596923828),  # rules §20.1: 80G is 74 whole GiB
        ("80", 0, 80 / GIB),  # 80 bytes
        ("141Gi", 141, 141.0),
        ("1.5Gi", 1, 1.5),
        ("0.5Ki", 0, 512 / GIB),
        ("-1.5Gi", -1, -1.5),  # Go's int64 division truncates toward zero
    ],
)
def test_memory_reads_in_whole_gib_and_as_a_double(text, whole_gib, gib):
    quantity = parse_quantity(text)
    assert quantity.whole_gib == whole_gib
    assert quantity.gib == gib


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1.5", 2),
        ("-1.5", -2),  # away from zero
        ("500m", 1),
        ("1e3", 1000),
        ("1E3", 1000),
        ("1E", 10**18),  # the exa suffix, not an exponent
        ("1.5Ki", 1536),
        (".5", 1),
        ("1.", 1),
        ("+7", 7),
        ("-0", 0),
        ("0.000", 0),
        ("12e-1", 2),
        ("9223372036854775807", 2**63 - 1),
        ("7Ei", 7 * 2**60),
        (3350, 3350),
    ],
)
def test_integer_value_rounds_up_away_from_zero(text, value):
    assert parse_quantity(text).integer_value == value


def test_values_below_1n_round_up_to_1n_as_kubernetes_does():
    assert parse_quantity("0.0000000001").nanos == 1
    assert parse_quantity("-0.0000000001").nanos == -1
    assert parse_quantity("1e-400").nanos == 1
    # Every value is rounded up to a multiple of 1n, so these two compare as equal.
    assert parse_quantity("1.0000000001").nanos == parse_quantity("1.000000001").nanos


def test_equal_values_written_differently_compare_equal():
    assert parse_quantity("1").nanos == parse_quantity("1000m").nanos == parse_quantity("1e0").nanos
    assert parse_quantity("1Ki").nanos == parse_quantity("1024").nanos


def test_the_text_is_kept_as_written():
    assert parse_quantity("1000m").raw == "1000m"
    assert parse_quantity(12).raw == "12"


@pytest.mark.parametrize(
    "text",
    [
        "",
        " 1",
        "1 ",
        "1\n",
        "1Ki5",
        "1e",
        "e3",
        "1.2.3",
        "1ki",
        "1K",  # decimal kilo is k
        "+-1",
        "1e1.5",  # rules §20.10 item 19: a fractional exponent
        "1e3.",
        "1e.5",
        "١",  # a non-ASCII digit
        "9223372036854775808",  # beyond int64
        "8Ei",
        "1e19",
        "1e99999999999999999999999",
    ],
)
def test_refused_quantities(text):
    with pytest.raises(QuantityError):
        parse_quantity(text)


@pytest.mark.parametrize("value", [True, 1.5, None, [1], 2**63])
def test_refused_values(value):
    with pytest.raises(QuantityError):
        parse_quantity(value)


def test_long_inputs_are_read_exactly():
    assert parse_quantity("0." + "0" * 100_000 + "1").nanos == 1
    assert parse_quantity("1." + "3" * 100_000 + "Ki").nanos == 1_365_333_333_334
    assert parse_quantity("1" + "0" * 100_000 + "e-100000").nanos == 10**9
    assert parse_quantity("1e-" + "9" * 10_000).nanos == 1
    with pytest.raises(QuantityError):
        parse_quantity("1e" + "9" * 10_000)


SUFFIXES = {"": Fraction(1), "m": Fraction(1, 1000), "k": Fraction(1000), "M": Fraction(10**6)}
SUFFIXES |= {"G": Fraction(10**9), "n": Fraction(1, 10**9), "u": Fraction(1, 10**6)}
SUFFIXES |= {"Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30)}


@given(
    sign=st.sampled_from(["", "+", "-"]),
    whole=st.text("0123456789", min_size=1, max_size=12),
    fraction=st.one_of(st.none(), st.text("0123456789", max_size=14)),
    suffix=st.one_of(
        st.sampled_from(sorted(SUFFIXES)),
        st.integers(-15, 8).map(lambda power: f"e{power}"),
    ),
)
def test_nanos_match_an_exact_reference(sign, whole, fraction, suffix):
    text = sign + whole + ("" if fraction is None else "." + fraction) + suffix
    value = Fraction(whole + ("" if fraction is None else "." + (fraction or "0")))
    value *= SUFFIXES[suffix] if suffix in SUFFIXES else Fraction(10) ** int(suffix[1:])
    if value > 2**63 - 1:  # rules §20.10 item 19
        with pytest.raises(QuantityError):
            parse_quantity(text)
        return
    nanos = -((-value * 10**9) // 1)  # ceil: Kubernetes rounds up to a multiple of 1n
    expected = -nanos if sign == "-" else nanos
    assert parse_quantity(text).nanos == expected
