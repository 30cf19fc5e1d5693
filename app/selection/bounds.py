"""Integers read from text as Go's ``strconv`` reads them, without ever converting more digits
than fit (rules §17 "Safe to share")."""

from __future__ import annotations


def parse_go_int(text: str, bits: int = 64, *, signed: bool = True) -> int | None:
    """``strconv.ParseInt(text, 10, bits)`` (``ParseUint`` when not ``signed``): the value, or
    None where Go answers an error, a syntax error or a value out of range alike.

    Go reads ASCII digits only, after one ``+`` or ``-`` when signed, and any number of leading
    zeros. Linear in the length of ``text``, and what is converted is at most as many digits
    as the range holds: CPython refuses ``int()`` of more than 4 300 digits (a ValueError,
    ``sys.get_int_max_str_digits``), which must never reach a client as a 500.
    """
    digits = text[1:] if signed and text[:1] in ("+", "-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    significant = digits.lstrip("0") or "0"
    high = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    if len(significant) > len(str(high)):
        return None
    value = -int(significant) if text[:1] == "-" else int(significant)
    low = -(1 << (bits - 1)) if signed else 0
    return value if low <= value <= high else None
