"""Turn a raw JSON request body into a dict or a list; YAML streams are ``yaml_loader``'s, and
``manifests.decode_body`` reads a body of either media type. What both readings share is here:
the depth bound, UTF-8 only, quoted fragments clipped, orjson's value where it is exactly the
stdlib decoder's.

Pure functions over bytes, no Flask: what is wrong is ``app.errors.MalformedRequest`` (a 400,
its message a human sentence naming the problem, sent verbatim: never a traceback or the body;
quoted fragments, e.g. a kind, are clipped), and all of this can be tested and fuzzed without an
app. Only the top-level shape is checked here; the
documents themselves are validated later by the marshmallow schemas.

Depth, the same for JSON and YAML: an object/mapping or array/sequence is one level deeper than
the collection holding it, the top-level object is depth 1 and scalars add nothing, so
``{"a": [{"b": 1}]}`` has depth 3. YAML aliases count as if expanded where they are used, and a
``kind: List`` counts before flattening (its items sit at depth 3).
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

import orjson

from app.errors import MalformedRequest

MAX_DEPTH = 200
JSON_TYPES = frozenset({"application/json"})
# The media types a YAML body comes as, the registered one first.
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml")


def clip(value: object, limit: int = 80) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_utf8(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedRequest(f"request body is not valid UTF-8 (byte {exc.start})") from None


_QUOTED = re.compile(rb'"[^"]*"')
_ESCAPED_QUOTE_OR_BACKSLASH = re.compile(rb'\\[\\"]')
_SPARSE_ESCAPES = 10  # at most one backslash in 2**10 bytes: taken out by the regex
_NOT_QUOTE_OR_BRACKET = bytes(b for b in range(256) if b not in b'"[]{}')
_REPLACE_PASSES = 24
_SQUARE = bytes.maketrans(b"{}", b"[]")
_BRACKET_STEP = [0] * 256
for _opening, _closing in (b"[]", b"{}"):
    _BRACKET_STEP[_opening], _BRACKET_STEP[_closing] = 1, -1


def json_depth(raw: bytes, marks: bytes | None = None) -> int:
    """Nesting depth of *valid* JSON, from its bytes, in C-level passes only. ``marks``: the
    body's bytes among ``{[,:]}"``, in order (``sizing.json_marks``), if known: in a body
    without escapes, its quotes and brackets are those.

    Drop escapes (``\\\\`` pairs, then ``\\"``), keep only quotes and brackets, drop every ``""``
    (a bracket-free string, or two strings with no bracket between them: either way the other
    quotes keep their parity), drop the quoted runs left: what remains are the brackets outside
    strings, and their running +1/-1 sum is the depth. '"' and '\\' never occur inside multi-byte
    UTF-8 sequences, so bytes are exact. Why not walk the decoded tree: the walk cost over twice
    this scan on runtime documents, and more than the decoding itself on ``[0,0,..]`` or
    ``[[],[],..]`` (see bench/README.md § "Figures behind the code"). The decoder's
    RecursionError alone cannot enforce 200: it fires near 1000.
    """
    escapes = 0 if raw.find(b"\\") < 0 else raw.count(b"\\")  # (most bodies have none: memchr)
    if escapes > len(raw) >> _SPARSE_ESCAPES:  # each replace is a whole pass, slow for its needle
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    elif escapes:  # a few: the engine jumps from backslash to backslash
        raw = _ESCAPED_QUOTE_OR_BACKSLASH.sub(b"", raw)
    if escapes or marks is None:
        quotes_and_brackets = raw.translate(None, _NOT_QUOTE_OR_BRACKET)
    else:
        quotes_and_brackets = marks.translate(None, b",:")
    brackets = quotes_and_brackets.translate(None, b'"')
    if 2 * quotes_and_brackets.count(b'""') != len(quotes_and_brackets) - len(brackets):
        # Some run of quotes between two brackets is odd, so a string holds a bracket (where
        # no string does, every run is whole strings and whole gaps between them, each two
        # quotes, and the count of adjacent pairs is half the quotes): drop the strings.
        brackets = _QUOTED.sub(b"", quotes_and_brackets.replace(b'""', b""))
    # The brackets nest properly (valid JSON), so their kind does not matter: as `[` and `]`
    # only, each replace of `[]` takes out every innermost pair, and a body of depth d is empty
    # after d of them. Manifests are ~10 deep: ten C-level passes instead of a running sum over
    # every bracket in Python (see bench/README.md § "Figures behind the code"). Past
    # _REPLACE_PASSES, the running sum finishes what is left, which is that much shallower.
    brackets = brackets.translate(_SQUARE)
    for passes in range(_REPLACE_PASSES):
        if not brackets:
            return passes
        brackets = brackets.replace(b"[]", b"")
    return _REPLACE_PASSES + max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0)


# orjson reads an integer past 64 bits as a float (2**64 -> 1.8446744073709552e+19) where the
# stdlib keeps it exact: a body with a run of 19 digits anywhere goes to the stdlib decoder.
_DIGIT_RUNS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_LONG_DIGIT_RUN = b"0" * 19
NOT_READ = object()


def orjson_value(raw: bytes | bytearray) -> Any:
    """orjson's value of the JSON in ``raw`` where it is certainly the stdlib decoder's (about a
    quarter of its time), else ``NOT_READ``: orjson refuses what it does not read exactly as the
    stdlib does (a byte-order mark, NaN, a lone surrogate, a number that overflows to infinity,
    a control character in a string) and is not asked about long integers. Duplicate keys: the
    last wins, in the first one's place, as with the stdlib."""
    if _LONG_DIGIT_RUN in raw.translate(_DIGIT_RUNS):
        return NOT_READ
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return NOT_READ


def _reject_constant(name: str) -> Any:
    raise MalformedRequest(f"request body is not valid JSON: {name} is not a JSON value")


def decode_json_body(raw: bytes) -> dict | list:
    """Decode a JSON object, or an array (of manifests, rules §15), from UTF-8 (a leading BOM
    tolerated); duplicate keys: the last wins."""
    too_deep = f"request body is nested deeper than {MAX_DEPTH} levels"
    data = orjson_value(raw)  # it checks the UTF-8 itself; anything it refuses is decided below
    if data is NOT_READ:
        data = _stdlib_value(raw, too_deep)
    if not isinstance(data, dict | list):
        names = {str: "string", bool: "boolean", type(None): "null"}
        got = names.get(type(data), "number")
        raise MalformedRequest(f"request body must be a JSON object or array, got {got}")
    if json_depth(raw) > MAX_DEPTH:  # after loads: the scan needs well-formed JSON
        raise MalformedRequest(too_deep)
    return data


def _stdlib_value(raw: bytes, too_deep: str) -> Any:
    """The stdlib decoder's value, or the error that names what is wrong."""
    text = check_utf8(raw).removeprefix("\ufeff")  # json.loads(bytes) would accept UTF-16/32 too
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:  # str(): "<problem>: line L column C (char N)"
        raise MalformedRequest(f"request body is not valid JSON: {exc}") from None
    except RecursionError:  # the C decoder's own limit, near the interpreter's (~1000)
        raise MalformedRequest(too_deep) from None
    except ValueError:  # the only other: an integer longer than sys.get_int_max_str_digits()
        raise MalformedRequest("request body is not valid JSON: an integer is too long") from None
