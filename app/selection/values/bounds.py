"""Bounds on what the rules read from text (rules §17 "Safe to share"): how long a string may be,
and integers read as Go's ``strconv`` reads them without ever converting more digits than fit.

Every string the rules parse, split or compare (versions, sizes, quantities, format and framework
names, architectures, annotations read as values …) is at most ``MAX_VALUE_CHARS`` characters
long; a storage URI, a path, at most ``MAX_URI_CHARS``. OME's CRDs declare no ``maxLength`` for
any of them: the bounds are this service's, far above any value a real manifest carries
(docs/behaviours.md), and the schemas refuse a longer string at its field before any rule runs.
"""

from __future__ import annotations

MAX_VALUE_CHARS = 256
MAX_URI_CHARS = 4096  # Linux's PATH_MAX: a PVC's sub-path is a path


def too_long(limit: int) -> str:
    """The message of a string over ``limit`` (it never repeats the string)."""
    return f"Must be at most {limit} characters long (a bound of this service)."


def length_problem(text: str, limit: int = MAX_VALUE_CHARS) -> str | None:
    """``too_long(limit)`` when ``text`` is longer than ``limit``, else None."""
    return too_long(limit) if len(text) > limit else None


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
