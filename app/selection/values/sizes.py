"""Model-size strings read as OME reads them (rules §9).

OME turns a size such as ``"7B"`` into a float64 number of parameters with
Go's ``strconv.ParseFloat`` and silently uses 0 when that fails. The ranking
compares those floats, so this module reproduces Go's grammar and rounding
bit for bit rather than Python's ``float()``, which accepts things Go refuses
(surrounding whitespace, non-ASCII digits such as ``"١"``, ``"+nan"``) and
refuses things Go accepts (``"0x1p-2"``, ``"0x_1p0"``). A count read is written back as
users write it (``format_parameters``), in the warnings and notes that quote it.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

# Fast path: the plain decimals that almost every size string is. With an
# exponent of at most four digits Go's exponent accumulator never saturates,
# so Go's (correctly rounded) answer is exactly Python's float() of the text.
# [0-9] rather than \d: \d would admit non-ASCII digits that Go refuses.
# The fraction's digits only follow its dot: with an optional dot between two digit runs
# (`[0-9]+\.?[0-9]*`) a long digit string that fails to match is split every possible way,
# quadratic in its length.
_SIMPLE_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")
_PLAIN_SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?)([TBM]?)")

# rules §9: only the last character, checked T, then B, then M; case-sensitive.
_MULTIPLIERS = {"T": 1e12, "B": 1e9, "M": 1e6}

_DEC_DIGITS = frozenset("0123456789")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def parse_go_float(text: str) -> float | None:
    """Emulate Go's strconv.ParseFloat(text, 64): the float, or None where Go returns an error
    (syntax error OR range error such as '1e400').

    OME discards the error kind (both read as 0), so one sentinel is enough.
    Underflow is not an error in Go: '1e-400' gives 0.0, not None.
    """
    if _SIMPLE_DECIMAL.fullmatch(text):
        value = float(text)
        return None if math.isinf(value) else value  # overflow is ErrRange
    # Go works on bytes: a non-ASCII byte never matches its grammar. Checking
    # here also keeps str.lower() below from folding e.g. the Kelvin sign to 'k'.
    if not text.isascii():
        return None
    lowered = text.lower()
    if lowered == "nan":  # Go accepts NaN only unsigned
        return math.nan
    body = lowered[1:] if lowered[:1] in ("+", "-") else lowered
    if body in ("inf", "infinity"):  # any case, optional sign
        return -math.inf if lowered[0] == "-" else math.inf
    return _parse_general(text)


def _parse_general(text: str) -> float | None:
    """Go's readFloat scan for the rarer forms: underscores, hex floats, long exponents.

    The scan only validates and extracts (mantissa, exponent); the value then
    comes from float()/float.fromhex, which round correctly as Go does.
    """
    n = len(text)
    i = 1 if text[:1] in ("+", "-") else 0
    sign = "-" if text[:1] == "-" else ""
    # Go's prefix test is `i+2 < len(s)`: a bare "0x" is decimal 0 then junk.
    is_hex = n - i > 2 and text[i] == "0" and text[i + 1] in "xX"
    if is_hex:
        i += 2
    digits = _HEX_DIGITS if is_hex else _DEC_DIGITS
    start = i
    saw_digits = saw_dot = False
    while i < n:
        c = text[i]
        if c in digits:
            saw_digits = True
        elif c == "." and not saw_dot:
            saw_dot = True
        elif c != "_":
            break
        i += 1
    if not saw_digits:
        return None
    mantissa = text[start:i].replace("_", "")

    exponent = 0
    if i < n and text[i] in ("pP" if is_hex else "eE"):
        i += 1
        exp_negative = i < n and text[i] == "-"
        if i < n and text[i] in "+-":
            i += 1
        if i >= n or text[i] not in _DEC_DIGITS:
            return None
        while i < n and (text[i] in _DEC_DIGITS or text[i] == "_"):
            # Go stops accumulating once the exponent reaches 10000 (it may
            # still grow to five digits); only matters for >10000-digit inputs.
            if text[i] != "_" and exponent < 10000:
                exponent = exponent * 10 + int(text[i])
            i += 1
        if exp_negative:
            exponent = -exponent
    elif is_hex:
        return None  # ParseFloat requires the p exponent on hex floats
    if i != n or ("_" in text and not _underscore_ok(text)):
        return None

    if is_hex:
        try:
            return float.fromhex(f"{sign}0x{mantissa}p{exponent}")
        except OverflowError:
            return None  # Go: ±Inf with ErrRange
    value = float(f"{sign}{mantissa}e{exponent}")
    return None if math.isinf(value) else value


def _underscore_ok(text: str) -> bool:
    """Go's underscoreOK: '_' only between digits, or right after a base prefix.

    Go scans past every '_' while reading the number and validates them all
    afterwards with this rule, which also applies to the exponent ('1e1_0').
    """
    saw = "^"  # '^' start, '0' digit or prefix, '_' underscore, '!' other
    if text[:1] in ("+", "-"):
        text = text[1:]
    i = 0
    is_hex = False
    if len(text) >= 2 and text[0] == "0" and text[1] in "bBoOxX":
        i, saw, is_hex = 2, "0", text[1] in "xX"
    for c in text[i:]:
        if c in _DEC_DIGITS or (is_hex and c in _HEX_DIGITS):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


# A request reads the same few size strings thousands of times (each runtime's bounds, by the
# checks, the distance, the warnings and the ways out): parsed once per process while short.
_CACHED_SIZE_LENGTH = 64


def parse_size(text: str) -> float:
    """Number of parameters OME reads from a size string (rules §9). Never raises."""
    if len(text) <= _CACHED_SIZE_LENGTH:
        return _parse_size_cached(text)
    return _parse_size(text)


@lru_cache(maxsize=4096)
def _parse_size_cached(text: str) -> float:
    return _parse_size(text)


def _parse_size(text: str) -> float:
    """Number of parameters OME reads from a size string (rules §9). Never raises.

    Unreadable numbers give 0.0 silently, as in OME. The product is one IEEE
    multiplication, as Go's `v * m`, because the ranking compares these floats:
    '1e300T' overflows to inf rather than failing, and NaN stays NaN.
    """
    plain = _PLAIN_SIZE.fullmatch(text)
    if plain is not None:
        value = float(plain[1])
        if math.isinf(value):  # more than ~309 integer digits: ErrRange
            return 0.0
        return value * _MULTIPLIERS.get(plain[2], 1.0)
    multiplier = _MULTIPLIERS.get(text[-1:])
    if multiplier is None:
        multiplier, number = 1.0, text
    else:
        number = text[:-1]
    parsed = parse_go_float(number)
    if parsed is None:
        return 0.0
    return parsed * multiplier


def is_plain_size(text: str) -> bool:
    """True for [0-9]+(\\.[0-9]+)? optionally followed by one of T, B, M.

    These are the sizes people actually write; anything else is legal for Go
    but worth flagging, since it probably reads differently than intended.
    """
    return _PLAIN_SIZE.fullmatch(text) is not None


def format_parameters(value: float) -> str:
    """A parameter count as users write it: integral values without ``.0``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)
