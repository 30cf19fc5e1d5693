"""The encodings every answer uses: JSON, YAML and kubectl's text table, never a control
character in text (rules §17 "Names are Kubernetes names": text answers)."""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

__all__ = ["counted", "printable", "sorted_keys", "text_table", "to_json", "to_yaml"]

TABLE_PADDING = 3
# rules §17: a text answer never holds a control character. Names are Kubernetes names, but
# a message also quotes what an object references (a runtime or model name, a version, an
# annotation), which nothing validates: those are escaped as Go's %q escapes them, so that no
# value can start a line of its own, move the cursor or colour a terminal. Bidirectional
# controls and the Unicode line separators too: they can make a line read as another.
_ESCAPES = {
    **{code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)},
    **{code: f"\\u{code:04x}" for code in range(0x80, 0xA0)},
    **{
        code: f"\\u{code:04x}"
        for code in (0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F))
    },
    **{code: f"\\u{code:04x}" for code in range(0x2066, 0x206A)},
    ord("\t"): "\\t",
    ord("\n"): "\\n",
    ord("\r"): "\\r",
}


_CONTROL = re.compile("[" + "".join(f"\\u{code:04x}" for code in sorted(_ESCAPES)) + "]")


def printable(text: str) -> str:
    """``text`` with every control character escaped (``\\n``, ``\\x1b``, ``\\u202e``)."""
    return text.translate(_ESCAPES) if _CONTROL.search(text) else text


def text_table(lines: Sequence[Sequence[str]]) -> str:
    """Lines as ``kubectl`` prints a table to a file: each column as wide as its widest cell plus
    three spaces, the last column unpadded; no control character in any cell."""
    if _CONTROL.search("".join(cell for line in lines for cell in line)):
        lines = [tuple(printable(cell) for cell in line) for line in lines]
    last = len(lines[0]) - 1
    widths = [max(len(line[i]) for line in lines) + TABLE_PADDING for i in range(last)]
    out = []
    for line in lines:
        padded = "".join(cell.ljust(width) for cell, width in zip(line, widths, strict=False))
        out.append(padded + line[last] + "\n")
    return "".join(out)


def _stdlib_json(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()


# orjson writes what the stdlib's ensure_ascii escapes as it is: DEL and every non-ASCII
# character. Deleting the rest of ASCII leaves those (C-level).
_ASCII_BUT_DEL = bytes(range(0x7F))
# A float under 1e-4 is the one number orjson writes otherwise: ``0.00001`` and ``1.6e-7`` where
# the stdlib writes ``1e-05`` and ``1.6e-07``. Every such float shows one of these (the stdlib's
# own exponents start ``e-0`` or have two digits; an exponent follows a digit); a string that
# shows one costs the slow path (a runtime name such as ``granite-3-1-8b`` does not). The
# exponent is searched for from its ``-``, the digit and the ``e`` looked behind: an answer's
# English text is full of ``e``, far less of ``-``. Both by the regex engine, whose scan for a
# literal outpaces ``in`` on these bytes.
_SMALL_FLOAT = re.compile(rb"-[1-9](?<=[0-9]e-[1-9])")
_SMALL_DECIMAL = re.compile(rb"0\.0000")
# Non-ASCII bytes escaped through the codec below, one call of it per run of them; more: the
# stdlib's pass, whose cost does not grow with them.
_MAX_ODD_BYTES = 4096
_ESCAPES_HANDLER = "ome-ranker-json-ascii"
# An answer that is not ASCII is mostly ASCII but for a stretch (a ranking's summary, with its
# "×"): only the stretch from its first non-ASCII byte to past its last is decoded and escaped,
# found by halving the answer with ``isascii`` down to pieces of this many bytes.
_PIECE = 4096


def _escaped(character: str) -> str:
    """``character`` as ``json.dumps(ensure_ascii=True)`` writes it in a string."""
    code = ord(character)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}"


def _escaped_run(error: UnicodeError) -> tuple[str, int]:
    """The ASCII codec's error handler: the run of characters it cannot write, escaped."""
    assert isinstance(error, UnicodeEncodeError)
    return "".join(map(_escaped, error.object[error.start : error.end])), error.end


codecs.register_error(_ESCAPES_HANDLER, _escaped_run)


def _narrowed(out: bytes, low: int, high: int, last: bool) -> tuple[int, int]:
    """``low, high`` narrowed to at most ``_PIECE`` bytes that still hold the first (``last``:
    the last) non-ASCII byte of ``out[low:high]``, by halves: the half nearer that end of it
    goes when it is ASCII (and, first or last, is kept when it is not)."""
    while high - low > _PIECE:
        middle = (low + high) // 2
        near = out[middle:high] if last else out[low:middle]
        if near.isascii() == last:
            high = middle
        else:
            low = middle
    return low, high


def _odd_stretch(out: bytes) -> tuple[int, int]:
    """``start, end`` of ``out``, which is not ASCII: ``out[:start]`` and ``out[end:]`` are, and
    both bounds fall between characters (an ASCII byte is never part of another character)."""
    start = _narrowed(out, 0, len(out), last=False)[0]
    return start, _narrowed(out, start, len(out), last=True)[1]


def to_json(body: Any) -> bytes:
    """``body`` as compact JSON, ASCII-escaped: the bytes ``json.dumps(ensure_ascii=True,
    separators=(",", ":"))`` gives, in less of its time.

    orjson encodes; what it writes differently is put right or sent to the stdlib: non-ASCII
    characters are escaped by the ASCII codec's error handler, DEL by a replace (UTF-8 is
    self-synchronising, so its byte only ever stands for it), and a body with a float under 1e-4, an
    integer past 64 bits, a lone surrogate or a key that is not a string takes the stdlib's
    path. Answers hold JSON values only (validation refuses NaN and infinity).
    """
    try:
        out = orjson.dumps(body)
    except orjson.JSONEncodeError:
        return _stdlib_json(body)
    if _SMALL_DECIMAL.search(out) or _SMALL_FLOAT.search(out):
        return _stdlib_json(body)
    if not out.isascii():
        start, end = _odd_stretch(out)
        stretch = out[start:end]
        if len(stretch.translate(None, _ASCII_BUT_DEL)) > _MAX_ODD_BYTES:
            return _stdlib_json(body)
        escaped = stretch.decode().encode("ascii", _ESCAPES_HANDLER)
        out = b"".join((out[:start], escaped, out[end:]))
    if b"\x7f" in out:  # ASCII, so not the codec's
        out = out.replace(b"\x7f", b"\\u007f")
    return out


def sorted_keys(value: Any) -> Any:
    """``value`` with the keys of every mapping in it sorted, as Go's ``encoding/json`` writes a
    map (rules §16): byte-wise, which for UTF-8 is the order of the code points, ``sorted``'s.
    A map an answer echoes then reads the same whatever order the request wrote it in, so a
    cached answer is the bytes the request would get uncached."""
    if isinstance(value, Mapping):
        return {key: sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return [sorted_keys(item) for item in value]
    return value


def counted(number: int, noun: str) -> str:
    """``1 error``, ``2 errors``: English plurals of the nouns the answers count."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def to_yaml(value: Any) -> bytes:
    """``value`` as the service writes YAML (``yaml_writer``, imported on first use: most
    answers are JSON or text, and a command that prints none loads no YAML writer)."""
    from .yaml_writer import to_yaml as write

    return write(value)
