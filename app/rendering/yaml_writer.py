"""An answer as YAML (``Accept: application/yaml``, the CLI's ``-o yaml``), written here rather
than by PyYAML's emitter: that took seconds for a 10 000-runtime ranking and could not be
stopped at the request's deadline (rules §17 "Bounded work"; bench/README.md "Figures behind the
code").

An answer is a JSON value (objects with string keys, arrays, strings, numbers, booleans, null),
and what is written reads back equal with ``yaml.safe_load``:

* objects and arrays in block style as PyYAML writes them (an array inside an object is not
  indented further), ``{}`` and ``[]`` when empty;
* a string plain when it is made of characters that neither start nor end anything in YAML and
  the resolver ``safe_load`` uses reads it back as a string (not ``yes``, ``1.0``, ``null``, a
  date); else single-quoted when every character may stand as it is; else double-quoted, with
  escapes for the controls, what YAML reads as line breaks (NEL, LS, PS) and what it refuses in
  a stream (surrogates, U+FEFF, U+FFFE, U+FFFF);
* numbers, booleans and null as PyYAML's ``SafeDumper`` writes them;
* a key longer than a simple key may be (1 024 characters) in the explicit ``? key`` form.

``check`` (the request's deadline, ``budget.checkpoint``) is called for every object and array
and every ``CHECK_EVERY`` entries of a long one: a row costs many times what a check costs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from app.selection.values import checkpoint

CHECK_EVERY = 64
_ARRAYS = (list, tuple)
_JSON_TYPES = frozenset({dict, list, tuple, str, int, float, bool, type(None)})
# Strings up to this long are written once per answer and looked up after: an answer repeats
# its keys in every row, and many values (scopes, reasons) too.
_REMEMBERED = 256
_STRING_TAG = "tag:yaml.org,2002:str"
_RESOLVER = Resolver()  # what yaml.safe_load resolves plain scalars with
# A simple key ends within 1 024 characters of its start, or the reader refuses it.
_LONGEST_SIMPLE_KEY = 1000
_PLAIN = re.compile(r"[A-Za-z0-9_./()][A-Za-z0-9_./()+=,;@ -]*(?<! )", re.ASCII)
# What may stand in a quoted scalar as it is: printable, and not a line break.
_UNQUOTABLE = re.compile(
    "[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_ESCAPED = re.compile(_UNQUOTABLE.pattern + '|["\\\\]')
_SHORT_ESCAPES = {
    "\0": "\\0",
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    '"': '\\"',
    "\\": "\\\\",
    "\x85": "\\N",
    "\u2028": "\\L",
    "\u2029": "\\P",
}


def to_yaml(body: Any, check: Callable[[], None] = checkpoint) -> bytes:
    """``body`` as a YAML document; ``check`` raises to stop (the deadline)."""
    writer = _Writer(check)
    if type(body) not in _JSON_TYPES:
        body = _json_value(body)
    kind = type(body)
    if kind is dict and body:
        writer.mapping(body, "", "")
    elif kind in _ARRAYS and body:
        writer.sequence(body, "", "")
    else:
        writer.out.append(writer.scalar(body) + "\n")
    return "".join(writer.out).encode("utf-8")


class _Writer:
    __slots__ = ("_keys", "_strings", "check", "out")

    def __init__(self, check: Callable[[], None]) -> None:
        self.check = check
        self.out: list[str] = []
        self._keys: dict[Any, str] = {}
        self._strings: dict[str, str] = {}

    def mapping(self, mapping: dict, pad: str, lead: str) -> None:
        """``lead`` starts the first line (after a ``- `` written already, or ``pad``)."""
        self.check()
        keys, entry = self._keys, self.entry
        for n, (key, value) in enumerate(mapping.items()):
            if n:
                lead = pad
                if not n % CHECK_EVERY:
                    self.check()
            name = keys.get(key)
            entry(lead + (name or self._key(key, pad)), value, pad, False)

    def sequence(self, items: list | tuple, pad: str, lead: str) -> None:
        self.check()
        entry = self.entry
        for n, item in enumerate(items):
            if n:
                lead = pad
                if not n % CHECK_EVERY:
                    self.check()
            entry(lead + "-", item, pad, True)

    def entry(self, head: str, value: Any, pad: str, in_sequence: bool) -> None:
        """``head`` (``key:`` or ``-``) and its value: a scalar on the same line; an object or
        array under a key on the lines below (an array not indented further), after ``- `` on
        the same line."""
        kind = type(value)
        if kind not in _JSON_TYPES:
            value = _json_value(value)
            kind = type(value)
        if kind is dict and value:
            inner = pad + "  "
            self.out.append(head + (" " if in_sequence else "\n"))
            self.mapping(value, inner, "" if in_sequence else inner)
        elif kind in _ARRAYS and value:
            self.out.append(head + (" " if in_sequence else "\n"))
            if in_sequence:
                self.sequence(value, pad + "  ", "")
            else:
                self.sequence(value, pad, pad)
        else:
            self.out.append(f"{head} {self.scalar(value)}\n")

    def _key(self, key: Any, pad: str) -> str:
        """``name:``, or ``? name`` and ``:`` on the next line for a long one."""
        if type(key) is not str:  # JSON writes any other key as a string (and 1 == True)
            return self.scalar(json.dumps(key)) + ":"
        name = self.scalar(key)
        if len(name) > _LONGEST_SIMPLE_KEY:
            return f"? {name}\n{pad}:"
        self._keys[key] = name + ":"
        return name + ":"

    def scalar(self, value: Any) -> str:
        kind = type(value)
        if kind is str:
            text = self._strings.get(value)
            if text is None:
                text = _string(value)
                if len(value) <= _REMEMBERED:
                    self._strings[value] = text
            return text
        if value is None:
            return "null"
        if kind is bool:
            return "true" if value else "false"
        if kind is int:
            return str(value)
        if kind is float:
            return _float(value)
        if kind is dict:
            return "{}"
        return "[]"  # (the callers give JSON values: see _JSON_TYPES)


def _json_value(value: Any) -> Any:
    """A subclass of a JSON type (a ``StrEnum``, an ``OrderedDict``) as that type, as JSON
    writes it; anything else is ``TypeError``, as ``json.dumps`` would raise."""
    bases: tuple[type, ...] = (str, int, float, dict, list, tuple)
    for base in bases:
        if isinstance(value, base):
            return base(value)
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _string(text: str) -> str:
    if _PLAIN.fullmatch(text) and _RESOLVER.resolve(ScalarNode, text, (True, False)) == (
        _STRING_TAG
    ):
        return text
    if not _UNQUOTABLE.search(text):
        return "'" + text.replace("'", "''") + "'"
    return '"' + _ESCAPED.sub(_escape, text) + '"'


def _escape(found: re.Match[str]) -> str:
    character = found.group()
    short = _SHORT_ESCAPES.get(character)
    if short is not None:
        return short
    code = ord(character)
    return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}"


def _float(value: float) -> str:
    """As PyYAML's SafeRepresenter writes a float (which YAML 1.1 reads back as one)."""
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    if "." not in text and "e" in text:
        text = text.replace("e", ".0e", 1)
    return text
