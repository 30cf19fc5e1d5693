"""Kubernetes quantities (``80Gi``, ``80G``, ``1.5``, ``500m``, ``1e3``) read exactly as OME reads
them through ``resource.Quantity`` (rules §20.1, §20.10 item 19).

Kubernetes keeps a quantity as an exact decimal rounded away from zero to a multiple of 1n
(10^-9); OME then reads its *integer value* (``Value()``: rounded up, away from zero), *whole
GiB* (that ÷ 2^30, the remainder dropped) and *GiB* (that ÷ 2^30 as a double). The exact value
is kept here in nano units, an ``int``, so that comparisons (Cheapest) are exact.

The work is linear in the length of the text and bounded: the digits go through ``decimal``
(linear conversion, no ``int`` of a long digit string) and any value whose magnitude cannot
fit is refused before arithmetic on its exponent.
"""

from __future__ import annotations

import decimal
import re
from dataclasses import dataclass

# The CRD's pattern (rules §20.1), matched whole: Python's ``$`` would also accept a final "\n".
QUANTITY_PATTERN = (
    r"(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
    r"(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?"
)
_CRD_PATTERN = re.compile(QUANTITY_PATTERN)
_PARTS = re.compile(
    r"(?P<sign>[+-]?)(?P<whole>[0-9]*)(?:\.(?P<fraction>[0-9]*))?"
    r"(?:(?P<binary>[KMGTPE])i|(?P<decimal>[numkMGTPE])|[eE](?P<exponent>.*))?"
)
_BINARY_POWERS = {"K": 10, "M": 20, "G": 30, "T": 40, "P": 50, "E": 60}
_DECIMAL_POWERS = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_EXPONENT = re.compile(r"[+-]?[0-9]+")

INT64_MAX = 2**63 - 1
NANOS_PER_UNIT = 10**9
GIB = 1024 * 1024 * 1024
# An exponent of more than this many digits is beyond any int64 (or below 1n) whatever the
# digits: decided without turning it into a number.
_MAX_EXPONENT_DIGITS = 18


class QuantityError(ValueError):
    """Not a quantity OME can read: the CRD refuses it, or rules §20.10 item 19 does."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """``raw``: the quantity as written (an integer written as its decimal digits); ``nanos``:
    its exact value in units of 1n, after Kubernetes' rounding away from zero."""

    raw: str
    nanos: int

    @property
    def integer_value(self) -> int:
        """``Value()``: the exact value rounded up, away from zero (rules §20 *Integer value*)."""
        whole, rest = divmod(abs(self.nanos), NANOS_PER_UNIT)
        magnitude = whole + (1 if rest else 0)
        return -magnitude if self.nanos < 0 else magnitude

    @property
    def whole_gib(self) -> int:
        """The integer value ÷ 2^30, the remainder dropped (Go's int64 division truncates toward
        zero): what ``minMemory`` and ``maxMemory`` compare with."""
        value = self.integer_value
        magnitude = abs(value) // GIB
        return -magnitude if value < 0 else magnitude

    @property
    def gib(self) -> float:
        """``float64(Value()) / 2^30``: both steps rounded as IEEE-754 doubles."""
        return float(self.integer_value) / GIB


def parse_quantity(value: object) -> Quantity:
    """A quantity from a JSON value: an integer or a string of the CRD's pattern."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise QuantityError("must be an integer or a quantity string")
    if isinstance(value, int):
        # An int beyond int64 is refused before it is printed (CPython limits int -> str).
        if abs(value) > INT64_MAX:
            raise QuantityError("is beyond the range of a 64-bit integer")
        return Quantity(str(value), value * NANOS_PER_UNIT)
    return Quantity(value, _nanos_of(value))


def _nanos_of(text: str) -> int:
    if not text.isascii() or _CRD_PATTERN.fullmatch(text) is None:
        raise QuantityError(f"{text!r} is not a quantity (the CRD's pattern refuses it)")
    parts = _PARTS.fullmatch(text)
    assert parts is not None  # the CRD's pattern is a subset of _PARTS
    fraction = parts["fraction"] or ""
    exponent = -len(fraction)
    binary = 0
    if parts["binary"]:
        binary = _BINARY_POWERS[parts["binary"]]
    elif parts["decimal"]:
        exponent += _DECIMAL_POWERS[parts["decimal"]]
    elif parts["exponent"] is not None:
        written = parts["exponent"]
        if _EXPONENT.fullmatch(written) is None:
            raise QuantityError(f"{text!r}: an exponent must be a whole number")
        digits = written.lstrip("+-").lstrip("0")
        if len(digits) > _MAX_EXPONENT_DIGITS:
            exponent = _huge_exponent(written)
        else:
            exponent += int(written)
    significant = ((parts["whole"] or "") + fraction).lstrip("0")
    stripped = significant.rstrip("0")
    exponent += len(significant) - len(stripped)
    if not stripped:
        return 0
    magnitude = _magnitude_nanos(stripped, exponent, binary, text)
    return -magnitude if parts["sign"] == "-" else magnitude


def _huge_exponent(written: str) -> int:
    """An exponent too long to be worth converting: beyond int64, or far below 1n."""
    beyond: int = 10**_MAX_EXPONENT_DIGITS
    return -beyond if written.startswith("-") else beyond


def _magnitude_nanos(digits: str, exponent: int, binary: int, text: str) -> int:
    """ceil(digits × 10^exponent × 2^binary × 10^9) for a digit string without leading or
    trailing zeros, refusing magnitudes beyond int64 (rules §20.10 item 19)."""
    order = len(digits) - 1 + exponent  # the value is at least 10^order (× 2^binary)
    if order >= 19 or exponent >= 10**_MAX_EXPONENT_DIGITS:  # 10^19 > 2^63 - 1
        raise QuantityError(f"{text!r} is beyond the range of a 64-bit integer")
    if order + 9 + 19 < 0:  # below 10^-9 / 2^60 ≤ 1n even after 2^binary: rounds up to 1n
        return 1
    context = decimal.Context(
        prec=len(digits) + 60,
        Emax=decimal.MAX_EMAX,
        Emin=decimal.MIN_EMIN,
        rounding=decimal.ROUND_CEILING,
        traps=[decimal.Inexact, decimal.Overflow, decimal.Underflow],
    )
    value = context.multiply(decimal.Decimal(f"{digits}e{exponent}"), decimal.Decimal(2**binary))
    if value > INT64_MAX:
        raise QuantityError(f"{text!r} is beyond the range of a 64-bit integer")
    nanos = context.scaleb(value, 9)
    return int(nanos.to_integral_value(rounding=decimal.ROUND_CEILING, context=context))
