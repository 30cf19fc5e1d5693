"""Values written into messages the way OME's Go code formats them (``fmt``'s ``%q`` and
``%v``), so that a message quoting a name reads exactly as OME's does."""

from __future__ import annotations

from collections.abc import Iterable

_SHORT_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def _quoted_char(char: str) -> str:
    escaped = _SHORT_ESCAPES.get(char)
    if escaped is not None:
        return escaped
    if char.isprintable():  # Go's unicode.IsPrint: graphic characters and the ASCII space
        return char
    code = ord(char)
    if code < 0x80:
        return f"\\x{code:02x}"
    if 0xD800 <= code <= 0xDFFF:  # Go's JSON decoding turns a lone surrogate into U+FFFD
        return "\ufffd"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def go_quote(text: str) -> str:
    """``fmt.Sprintf("%q", text)``: a double-quoted Go string literal."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return '"' + "".join(_quoted_char(char) for char in text) + '"'


def go_list(items: Iterable[str]) -> str:
    """``fmt.Sprintf("%v", items)`` for a ``[]string``: ``[a b c]``."""
    return "[" + " ".join(items) + "]"
