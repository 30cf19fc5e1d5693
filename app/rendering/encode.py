"""The encodings every answer uses: JSON, YAML and kubectl's text table, never a control
character in text (rules §17 "Names are Kubernetes names": text answers)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import yaml

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


def to_json(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()


def to_yaml(body: Any) -> bytes:
    return yaml.safe_dump(body, sort_keys=False, allow_unicode=True).encode()


def counted(number: int, noun: str) -> str:
    """``1 error``, ``2 errors``: English plurals of the nouns the answers count."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
