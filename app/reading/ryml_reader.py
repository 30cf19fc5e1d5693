"""The fast path of the YAML loader (``yaml_loader``): rapidyaml (C++ ryml) parses the stream
and writes it as JSON, in C++; orjson reads that (the stdlib decoder, with hooks, when a number
has a fraction or an exponent), many times faster than the PyYAML path (bench/README.md).

``fast_documents`` answers only when its result is certainly the PyYAML path's
(``pyyaml_reader``), and None otherwise. JSON loses whether a scalar was quoted, and ryml types
plain scalars by YAML 1.2 rules, so the JSON's text is searched for every scalar on which the two
could disagree (``yes``, ``~``, ``0x1F``, ``1_000``, ``12:30``, ``.inf``...), and its numbers are
re-read by YAML 1.1 rules (``1e3`` is a string there). Anything else it cannot vouch for (tags,
anchors and aliases, merge keys, directives, flow collections but those of words on one line, an
ambiguous scalar, a duplicate key, a syntax error, nesting deeper than ryml's JSON writer goes
(64), the bytes YAML 1.1 and 1.2 read differently) is left to the PyYAML path, which gives the
values or the error with its line and column. A body on which ryml could write past the tags and
anchors it keeps waiting for their node (one left waiting at the end of its line:
``_overruns_ryml``) never reaches it: that crashes the process.

The stream's size bounds (``yaml_bounds``: nodes, documents) are checked first, on ryml's tree
(for a body it does not answer too, which the PyYAML path would otherwise meter), so that no body
however cut into documents costs more than the largest legal single document, on either path.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson
import ryml
from yaml.reader import Reader

from .decoding import NOT_READ
from .pyyaml_reader import MERGE_TAG, STR_TAG, VALUE_TAG, yaml11_scalar
from .sizing import yaml_nodes_ceiling
from .yaml_bounds import (
    MAX_NUMBER_CHARS,
    MAX_STREAM_NODES,
    pyyaml_budget,
    refuse_past_bounds,
    refuse_past_pyyaml_budget,
)


class _Fallback(Exception):
    """The fast path cannot vouch for its result: load the stream with the PyYAML path."""


# Deleting the printable ASCII bytes leaves what needs a look (one C-level pass): ASCII
# control characters, which PyYAML's reader refuses and ryml takes, and non-ASCII characters,
# among which PyYAML's non-printable ones, the line breaks YAML 1.1 has and YAML 1.2 has not
# (NEL, LS, PS) and a byte-order mark past the start.
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n\r"
_YAML11_ONLY = re.compile("[\x85\u2028\u2029\ufeff]")
_BOM = "\ufeff".encode()
# The escapes of the characters above (and of NBSP) in a double-quoted scalar, and the UTF-8 of
# what they stand for: the only place an escape means anything is a double-quoted scalar, where
# ryml writes the character itself into its JSON. So the bytes (a comment such as OME's
# `# \\_(ツ)_/¯`, a plain or single-quoted scalar, a block scalar) may hold the escapes as text:
# only a character they stand for in ryml's output sends the stream to the PyYAML path.
_YAML11_ESCAPE = re.compile(rb"\\[LPN_]")
_YAML11_ESCAPED = tuple(char.encode() for char in "\x85\u2028\u2029\xa0")


def _token_start(char: bytes, after: bytes, then: bytes = b"") -> tuple[bytes, re.Pattern]:
    """`char` where a token may begin: after one of the bytes `after` (a regex class body) or at
    the very start; then followed by `then`. The pattern begins with the literal, so that the
    search runs at memchr speed (a class first is tried at every byte), and has no repetition."""
    literal = re.escape(char)
    return char, re.compile(literal + rb"(?<![^" + after + rb"]" + literal + rb")" + then)


# What follows the opening quote of a quoted scalar that ends on its line, through its closing
# quote. Each is the loop `(?:[^"\\\n]|\\.)*"` (`(?:[^'\n]|'')*'`) unrolled: a run of plain
# characters at a time rather than an alternation per character (bench/README.md § "Figures
# behind the code"). Where a double-quoted one ends is certain (a backslash always takes the
# character after it), so nothing is given back; a single-quoted one may end at the first quote
# of `''`.
# tests/reading/test_yaml_loader.py holds each to its loop.
_DOUBLE_QUOTED_REST = rb'[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"'
_SINGLE_QUOTED_REST = rb"[^'\n]*(?:''[^'\n]*)*'"
_INDICATOR = rb"\s\[\]{},:?'\"|>-"  # wider than where YAML lets a token begin, on purpose
_FLOW_OPENINGS = [_token_start(char, rb"\s,:?-", rb"(?![\]}])") for char in (b"[", b"{")]
# Sent to the PyYAML path before ryml sees them, each for a reason found by differential fuzzing:
_UNSURE = [
    # `@`, `` ` ``, `%`, `]`, `}` cannot begin a scalar: PyYAML refuses, ryml takes it. `%` at the
    # start of a line is a directive (`%YAML`, `%TAG`). (`[]` and `{}` do not match.)
    *(_token_start(char, rb"\s,:?'\"|>-") for char in (b"@", b"`", b"%")),
    *(_token_start(char, rb"\s,:?|>-") for char in (b"]", b"}")),
    # The same after a quoted scalar that begins a token on the same line (`'x']`); a quote
    # inside a plain scalar (`fieldPath: metadata.labels['ome.io/name']`, in most of OME's
    # runtimes) is not one.
    # (The quote comes first in each pattern, so the search runs at memchr speed.)
    (b"'", re.compile(rb"'(?<![^\s,:?-]')[^'\n]*'[\]}]")),
    (b'"', re.compile(rb'"(?<![^\s,:?-]")' + _DOUBLE_QUOTED_REST + rb"[\]}]")),
    # A flow collection with something in it (`[]` and `{}` are fine): ryml misreads some (a
    # comment or a line break in a flow mapping's value stays in the value), YAML 1.1 reads
    # others otherwise (`[?x]` is a mapping there). `={{.Name}}` in a string does not match.
    # Those written on one line of words (_FLOW_LINE) are emptied before this looks.
    *_FLOW_OPENINGS,
    # An explicit key (`? key`): ryml takes what follows its closing quote (`? "k"---`).
    _token_start(b"?", rb"\s", rb"(?![^\s])"),
    # A block scalar with an indentation indicator (`|2`): ryml drops the spaces past the
    # indentation on a blank line.
    (b"|", re.compile(rb"\|[-+]?[0-9]")),
    (b">", re.compile(rb">[-+]?[0-9]")),
]
# Tags, anchors and aliases (PyYAML refuses the first and meters the others); when one of these
# matches, ryml's tree says whether there is one.
_NODE_PROPERTIES = [_token_start(char, _INDICATOR) for char in (b"!", b"&", b"*")]
_PROPERTY_BITS = ryml.KEYTAG | ryml.VALTAG | ryml.KEYANCH | ryml.VALANCH | ryml.KEYREF | ryml.VALREF
_DIGITS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))


# A quoted scalar that begins a token and ends on its line: its content is literal text to both
# parsers, so the token checks below look at the bytes with it emptied (`"{% if x %}"` -> `""`),
# which keeps the quotes for the quote-then-bracket rules. One alternation of disjoint first
# characters per quote style, no nested repetition: linear. The quote comes first and the
# lookbehind after it, so that the search runs at memchr speed (a lookbehind first is tried at
# every byte; bench/README.md § "Figures behind the code").
_QUOTED_TOKENS = (
    (re.compile(rb'"(?<![^\s,\[{-]")' + _DOUBLE_QUOTED_REST), b'""'),
    (re.compile(rb"'(?<![^\s,\[{-]')" + _SINGLE_QUOTED_REST), b"''"),
)


def _without_quoted_tokens(raw: bytes) -> bytes:
    for pattern, emptied in _QUOTED_TOKENS:
        raw = pattern.sub(emptied, raw)
    return raw


# A flow collection that both parsers read alike: on one line, which holds nothing else but the
# block indicators, the key and the blanks before it, its entries words, quoted scalars (emptied
# by then: `""`, `''`) or such collections with words in them, `, ` between them, and a mapping's
# entries `key: value`. A word holds no indicator, blank or quote (so no comment, no colon, no
# tag, anchor or alias): the typing of its scalar is checked on ryml's JSON, as every scalar's
# is. `args: [--port, "8080"]` and `spec: {x: [1, 2]}` are such lines; a flow collection over
# several lines, one with a comment, an empty entry or a trailing comma is not. Each quantifier
# is possessive over sets that the next token cannot begin with: linear.
_FLOW_WORD = rb"(?:[0-9A-Za-z_./+=~$()]|-(?=[0-9A-Za-z_./+=~$()-]))[0-9A-Za-z_./+=~$()-]*+"
_FLOW_SCALAR = rb"(?:" + _FLOW_WORD + rb"|\"\"|'')"
_FLOW_SEPARATOR = rb" *+, *+"


def _flow_collection(entry: bytes) -> bytes:
    """A flow sequence or mapping on one line whose entries (a mapping's values) are ``entry``."""
    pair = _FLOW_SCALAR + rb": ++" + entry
    sequence = rb"\[ *+(?:" + entry + rb"(?:" + _FLOW_SEPARATOR + entry + rb")*+)?+ *+\]"
    mapping = rb"\{ *+(?:" + pair + rb"(?:" + _FLOW_SEPARATOR + pair + rb")*+)?+ *+\}"
    return rb"(?:" + sequence + rb"|" + mapping + rb")"


_FLOW_LINE = re.compile(
    rb"(?m)^(?P<head>(?:--- ++)?+ *+(?:- ++)*+(?:" + _FLOW_SCALAR + rb": ++)?+)"
    rb"(?P<flow>"
    + _flow_collection(rb"(?:" + _FLOW_SCALAR + rb"|" + _flow_collection(_FLOW_SCALAR) + rb")")
    + rb")"
    rb" *+\r?$"
)


def _emptied_flow(line: re.Match) -> bytes:
    return line["head"] + (b"[]" if line["flow"][:1] == b"[" else b"{}")


def _without_flow_lines(text: bytes) -> bytes:
    """The text with its flow collections of words emptied (`[a, b]` -> `[]`)."""
    if not any(_matches(char, pattern, text) for char, pattern in _FLOW_OPENINGS):
        return text
    return _FLOW_LINE.sub(_emptied_flow, text)


class _Scanned:
    """The body's bytes, and the same with its quoted tokens and its flow collections of words
    emptied, made when needed: the lines that could hold a match one by one, or the whole body
    once they are many.

    Every construct the emptying empties ends on its line, and so does every match of the
    token patterns (none takes a line break; at a line's ends their looks around see the same
    as they would see a line break), so a pattern matches the emptied body where it matches an
    emptied line. An emptied line holds no byte that its line does not (`""`, `[]`, the head of
    a flow line are its own bytes), so only lines that hold a pattern's trigger bytes
    (``_LINE_TRIGGERS``: the byte it begins with, or one it cannot match without) need a look.
    tests/reading/test_yaml_loader.py holds the two ways to each other."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self._emptied: bytes | None = None
        self._lines: dict[int, bytes] = {}  # where a line begins: the line, emptied
        self._line_budget = len(raw) // _BYTES_PER_LINE + _LINES

    def found(self, patterns: list[tuple[bytes, re.Pattern]]) -> bool:
        """Whether one of ``patterns`` matches; then again with the quoted tokens and the flow
        collections of words emptied (passes that cost, so only when something matched)."""
        raw = self.raw
        if not any(_matches(char, pattern, raw) for char, pattern in patterns):
            return False
        if self._emptied is None:
            on_lines = self._found_on_lines(patterns)
            if on_lines is not None:
                return on_lines
            self._emptied = _without_flow_lines(_without_quoted_tokens(raw))
        raw = self._emptied
        return any(_matches(char, pattern, raw) for char, pattern in patterns)

    def _found_on_lines(self, patterns: list[tuple[bytes, re.Pattern]]) -> bool | None:
        """Whether one of ``patterns`` matches an emptied line that holds its trigger bytes;
        None once more lines would be emptied than emptying the whole body costs."""
        raw, lines = self.raw, self._lines
        for char, pattern in patterns:
            for trigger in _LINE_TRIGGERS.get(char, (char,)):
                at = raw.find(trigger)
                while at >= 0:
                    start = raw.rfind(b"\n", 0, at) + 1
                    end = raw.find(b"\n", at)
                    end = len(raw) if end < 0 else end
                    line = lines.get(start)
                    if line is None:
                        self._line_budget -= 1
                        if self._line_budget < 0:
                            return None
                        line = _without_flow_lines(_without_quoted_tokens(raw[start:end]))
                        lines[start] = line
                    if pattern.search(line):
                        return True
                    at = raw.find(trigger, end)
        return False


# The bytes a line must hold for a pattern that begins with the key to match it emptied, where
# that is not the key itself: a quoted scalar followed by a bracket needs the bracket, which is
# rarer than quotes.
_LINE_TRIGGERS = {b"'": (b"]", b"}"), b'"': (b"]", b"}")}
# Emptying a line costs about what emptying this many bytes of the whole body does (a few calls
# of the regex engine each): past that many lines per byte, the whole body is emptied at once.
_BYTES_PER_LINE = 2048
_LINES = 16


_PROBES = 16  # places tried one by one before the density of ``char`` is looked at
_PROBE_GAP = 1024  # bytes between places, on average, below which the engine scans the rest


def _matches(char: bytes, pattern: re.Pattern, text: bytes) -> bool:
    """Whether ``pattern``, which begins with the byte ``char``, matches somewhere in ``text``.

    The regex engine looks for the literal a byte at a time, for each pattern, and memchr many
    times faster: the places where ``char`` stands are found with ``find`` and tried there (the
    pattern's lookbehind still sees the bytes before), as long as they are sparse (a try costs
    about what the engine's scan of a kilobyte does); where they are dense, the engine searches
    the rest. Linear either way.
    """
    at = text.find(char)
    tried = 0
    while at >= 0:
        if pattern.match(text, at):
            return True
        tried += 1
        if tried >= _PROBES and at < tried * _PROBE_GAP:
            return pattern.search(text, at + 1) is not None
        at = text.find(char, at + 1)
    return False


def _unsure(raw: bytes, scanned: _Scanned | None = None) -> bool:
    """Could ryml read these bytes otherwise than the PyYAML path does? (True: do not ask it.)"""
    unusual = raw.translate(None, _PRINTABLE_ASCII)
    if unusual:
        text = unusual.decode()  # valid: whole characters were deleted from UTF-8
        if Reader.NON_PRINTABLE.search(text) or _YAML11_ONLY.search(text):
            return True
    if b"\t" in raw:  # YAML 1.1 takes tabs in fewer places than ryml does
        return True
    if _DOCUMENT_END.search(raw):
        return True  # YAML 1.1 wants `---` before a document that follows `...`; 1.2 does not
    if not raw.endswith(b"\n") and (b"|" in raw or b">" in raw):
        return True  # ryml ends a block scalar that ends the body with a line break
    return (scanned or _Scanned(raw)).found(_UNSURE)


# JSON string tokens (in ryml's output) whose scalar PyYAML may read differently, found in C:
# every scalar that YAML 1.1 types (bool, int, float, null, merge, value), except those that ryml
# writes as a bare JSON literal when they are plain (decimal numbers, true, false, null): a JSON
# *string* with such a text was quoted in the YAML, so it is a string on both paths. Also keys
# that are numbers (their JSON spelling may differ from their text: `1.50:` -> "1.5") and the
# empty key ('' or a null key). (An alias, which ryml writes `*a` -> "*a", is found in its tree.)
# The lookahead rejects most strings at their first character, the alternatives are grouped by
# it (cheaper than a flat list); each is a fixed prefix and at most two character classes
# that cannot both take the same character, with no repeated group: linear, no backtracking
# blow-up. A match is only a candidate, decided by _is_ambiguous with PyYAML's own resolver
# (ordinary manifests have none).
_TYPED = [
    rb"y(?:es)|Y(?:es|ES)|n(?:o)|N(?:o|O|ull|ULL)|o(?:n|ff)|O(?:n|N|ff|FF)",  # bool, null
    rb"T(?:rue|RUE)|F(?:alse|ALSE)|~|<<|=",
    rb"\+[0-9.][0-9A-Za-z_.:+-]*",  # +1 +.inf
    rb"\.[0-9A-Za-z_.:+-]*",  # .5 .inf .nan
    rb"0[0-9xb_][0-9A-Fa-fx_.:+-]*",  # 010 0x1F 0b101 0_1 01.5
    rb"[0-9]+\.|[0-9]+\.[eE][0-9+-]*",  # 1. 1.e+3
    rb"[0-9.][0-9A-Fa-f.+-]*[_:x][0-9A-Fa-fx_.:+-]*",  # 1_000 12:30
]
_NEGATIVE = b"-(?:" + b"|".join(_TYPED[3:]) + b")"  # -.5 -.inf -010 -1. -1_000 -12:30
_CANDIDATE = re.compile(
    rb'"(?=[yYnNoOTF~<=.+0-9"-])(?:(?:' + b"|".join([*_TYPED, _NEGATIVE]) + rb')"'
    rb'|-?[0-9][0-9.eE+-]*": |": )'  # a number as a key, the empty key
)


def _is_ambiguous(match: re.Match, text: bytes | bytearray) -> bool:
    """Could the candidate's scalar be read otherwise by the PyYAML path?"""
    token = match.group()
    key = token.endswith(b": ")
    content = token[1 : -3 if key else -1].decode()
    key = key or text[match.end() : match.end() + 2] == b": "
    try:
        tag, value = yaml11_scalar(content)
    except Exception:  # a malformed or huge number: the PyYAML path decides
        return True
    if tag == STR_TAG:
        return False
    if not key:  # a typed plain scalar or a quoted string: JSON cannot tell which
        return True
    # Keys become their JSON spelling: plain or quoted, `8080:` and `true:` are the same key.
    return tag == MERGE_TAG or (tag != VALUE_TAG and json.dumps(value) != content)


def _json_float(text: str) -> Any:
    """A number ryml wrote with a fraction or an exponent, read as the PyYAML path reads it.

    ryml writes a plain scalar that it takes for a number as it is, except that it completes
    `.5` -> `0.5`, `-.5` -> `-0.5` and `1.` -> `1.0` for JSON: every text it may come from must
    give one value (`-.5` is a string in YAML 1.1 but `-0.5` a float; `1e3` is a string).
    """
    if len(text) > MAX_NUMBER_CHARS:
        raise _Fallback
    sources = [text]
    if text.startswith("0."):
        sources.append(text[1:])
    elif text.startswith("-0."):
        sources.append("-" + text[2:])
    if text.endswith(".0"):
        sources.append(text[:-1])
    try:
        values = {yaml11_scalar(source)[1] for source in sources}
    except Exception:
        raise _Fallback from None
    if len(values) != 1 or {type(value) for value in values} not in ({str}, {float}):
        raise _Fallback
    return values.pop()


def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:  # `-` and 4300 digits: Python reads it, PyYAML refuses
        raise _Fallback
    return int(text)


# A number with a fraction or an exponent: YAML 1.1 reads those otherwise (_json_float), so the
# stdlib decoder with its hooks reads such a text. They are looked for in orjson's compact JSON of
# what it read, where each number follows `":` (a key), `,` or `[` (an item), or begins the text
# (a whole document), and where orjson writes every float with a fraction or an exponent, every
# integer without. An integer orjson cannot hold (past 64 bits) it reads as a float, so that one
# is found there too and the stdlib decoder reads it exactly. A match inside a string only costs
# the detour. (Each pattern begins with a literal, the rarer the better, so that the search runs
# at memchr speed; ryml's indented JSON, which the search once ran on, is nearly twice as long.)
_FLOATS = (
    re.compile(rb'":-?[0-9]+[.eE]'),
    re.compile(rb",-?[0-9]+[.eE]"),
    re.compile(rb"\[-?[0-9]+[.eE]"),
)
_FLOAT_DOCUMENT = re.compile(rb"-?[0-9]+[.eE]")  # matched at the start only


def _has_float(compact: bytes) -> bool:
    """A float anywhere in the value whose compact JSON (orjson's) is ``compact``."""
    if _FLOAT_DOCUMENT.match(compact):
        return True
    return any(pattern.search(compact) for pattern in _FLOATS)


def _orjson_value(text: bytearray) -> Any:
    """orjson's value of ryml's JSON, or ``NOT_READ`` where it refuses it (a control character
    in a string, a number that overflows to infinity): the stdlib decoder reads those."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return NOT_READ


def _separators(text: bytes | bytearray) -> int:
    """Colons in a JSON text: once after every key (JSON has no other colon outside strings),
    and once for every colon inside a string, key or value, which neither ryml nor orjson
    escapes. Two JSON texts of the same value hold as many, however they are laid out; a value
    that lost a key (with its value) holds fewer. (One byte: counted faster than `": `.)"""
    return text.count(b":")


def _no_constant(name: str) -> Any:
    raise _Fallback  # pragma: no cover - ryml writes no NaN or Infinity


def _key_count(text: bytes | bytearray) -> int:
    """Keys in ryml's JSON: each is written `"...": `, and no string holds an unescaped quote.
    Without an escaped quote before `: ` (a memmem of a rare byte), every match is a key."""
    if b'\\": ' in text:
        text = text.replace(b"\\\\", b"")
        return text.count(b'": ') - text.count(b'\\": ')
    return text.count(b'": ')


def _emit_json(tree: Any, root: int, size_hint: int) -> bytearray:
    # emit_json_malloc leaks its buffer (SWIG does not free it): emit into our own instead.
    buffer = bytearray(size_hint)
    failed, length = ryml.emit_json_to_substr(tree, root, buffer)
    if failed:
        buffer = bytearray(length)
        failed, length = ryml.emit_json_to_substr(tree, root, buffer)
    del buffer[length:]
    return buffer


# ryml builds the whole tree (144 bytes a node) before anything can be counted, and 16 MB of
# `-\n` would make 8 million nodes (1.2 GB). So a body is given to ryml whole only if it
# cannot hold more than _RYML_NODES nodes: every node begins at a line break, a tab, `-`, `:`, `?`,
# `,` or as the first entry of a flow collection (`[`, `{`), so counting those bytes gives a
# ceiling (sizing.yaml_nodes_ceiling). A block entry counts twice there (its `-`, its line
# break): 2.2 M lets a document of MAX_STREAM_NODES entries through, and a flow-dense body at the
# ceiling makes 2.2 M nodes (320 MB; the PyYAML path held ~400 MB at its 1 M). A larger body is
# parsed document by document first, only to be counted.
_RYML_NODES = MAX_STREAM_NODES * 11 // 5
_DOCUMENT_START = re.compile(rb"\n---(?![^\s])")
# `...` at the start of a line (a memmem of three bytes was twice as slow as this search)
_DOCUMENT_END = re.compile(rb"\.\.\.(?<![^\n\r]\.\.\.)")
_SMALL = 64 * 1024  # bytes: the PyYAML path meters a body this small in well under a second


# rapidyaml 0.15.2 (the wheel's, and its master as of 2026-07) keeps at most two tags and two
# anchors waiting for their node (`Annotation::annotations[2]`) and checks that bound only in an
# assertion, compiled out of release builds: a third one waiting is written past the array, over
# the parser's own fields (that count, its flags, the byte-order mark's length), and the parse goes
# on to read wild memory. `!\n! !\n!` kills the process with SIGSEGV every time; `!\n! !` and
# `&a\n&b &c` write past it too. With annotations left from an earlier line and none on the key's,
# `_get_annotations_same_line` reaches a C4_UNREACHABLE (`& '\n':`: undefined behaviour). Both need
# an annotation still waiting when its line ends: one that ends the line (blanks or a comment after
# it), or one followed by a quoted scalar that goes on to the next line. A build of 0.15.2 that
# reports both bugs, fed 19 M fuzzed bodies that the fast path would give ryml (5.5 M of them,
# mutations of the first finds, reached one), found none that reached one without such an
# annotation as found here (tests/reading/test_ryml_annotations.py keeps the minimal ones). Such a
# body never reaches ryml: it holds a tag or an anchor (the PyYAML path's anyway), or a plain or
# block scalar that ends a line in ` &` or ` !x`, only slower.
# An annotation begins where ryml reads a token: at a `!` or `&` not after a letter or a digit
# (right after a closing quote too: `"q"!a` is a tag to ryml). Inside a quoted scalar it is text,
# so the quoted scalars that end on their line are emptied first (`"!important"`), but only when
# every quote is where ryml reads it: no quoted scalar goes on past its line (the quote that ends
# one looks like an opening quote: `"a\n "!b"` is a tag `!b"` at the end of its line), and none
# holds `: ` or ` #` (after a quote inside a plain scalar, ryml may end that scalar there and read
# what follows: `- a "b: !c"`).
# Where a single-quoted scalar certainly ends on its line: at a quote not doubled (possessive,
# unlike _SINGLE_QUOTED_REST: `'x''y` followed by a line break does not end at `'x'`).
_SINGLE_QUOTED_END = rb"[^'\n]*+(?:''[^'\n]*+)*+'"


def _waiting_annotation(char: bytes) -> re.Pattern:
    """`char` beginning an annotation that still waits for its node when its line ends: its name,
    blanks, then the line's end, a comment or a quoted scalar that goes on. ryml ends a name at a
    blank, at the `>` of a verbatim tag (`!<x y>`), and at `,`, `]` or `}` in some places only
    (`!a]' #'` is the tag `!a]'`, then a comment): every reading counts here. The name stops
    short of the next place an annotation could begin (all the annotations of a word end alike),
    so each byte is read by one try: linear, whatever the body."""
    goes_on = rb'(?:"(?!' + _DOUBLE_QUOTED_REST + rb")|'(?!" + _SINGLE_QUOTED_END + rb"))"
    name = rb"(?:[^ \t\r\n!&,\]}]++|[!&](?<=[0-9A-Za-z][!&])|[,\]}](?!" + goes_on + rb"))*+"
    waits = rb"(?:[,\]}]" + goes_on + rb"|[ \t]*+(?:[#\r\n]|\Z|" + goes_on + rb"))"
    verbatim = rb"<[^>\n]*+>"
    if char == b"!":
        waits = rb"(?:" + verbatim + goes_on + rb"|(?:" + verbatim + rb")?+" + name + waits + rb")"
    else:
        waits = name + waits
    return re.compile(char + rb"(?<![0-9A-Za-z]" + char + rb")" + waits)


_WAITING_ANNOTATIONS = [(char, _waiting_annotation(char)) for char in (b"!", b"&")]
_QUOTED_ON_ITS_LINE = re.compile(
    rb'"(?<![^\s,\[{-]")' + _DOUBLE_QUOTED_REST + rb"|'(?<![^\s,\[{-]')" + _SINGLE_QUOTED_END
)
# A quoted scalar that ends on its line and holds `: ` or ` #` (or a closing quote after a blank
# taken for an opening one: only ever one too many).
_QUOTED_PLAIN_SCALAR_END = [
    (
        b'"',
        re.compile(
            rb'"(?<![^\s,\[{-]")(?=' + _DOUBLE_QUOTED_REST + rb")"
            rb'(?:[^"\\\n:#]++|\\.|:(?![ \t])|(?<![ \t])#)*+(?::[ \t]|(?<=[ \t])#)'
        ),
    ),
    (
        b"'",
        re.compile(
            rb"'(?<![^\s,\[{-]')(?=" + _SINGLE_QUOTED_END + rb")"
            rb"(?:[^'\n:#]++|''|:(?![ \t])|(?<![ \t])#)*+(?::[ \t]|(?<=[ \t])#)"
        ),
    ),
]
_MULTILINE_QUOTED = [
    (b'"', re.compile(rb'"(?<![^\s,\[{-]")(?!' + _DOUBLE_QUOTED_REST + rb")")),
    (b"'", re.compile(rb"'(?<![^\s,\[{-]')(?!" + _SINGLE_QUOTED_END + rb")")),
]
# Past this many `!` and `&`, one in 64 bytes or more (OME's 635 manifests hold 2 in 6 MB): the
# tries at each cost more than the PyYAML path on such a body (bench/README.md § "Figures behind
# the code"), so it goes there untried.
_DENSE_MARKS = 65_536
# Past this many quotes, pairing them (to see whether that annotation is inside one) costs more
# than the PyYAML path: a body that seems to hold one goes to the PyYAML path unpaired.
_MANY_QUOTES = 65_536


def _quoted_scalars_emptied(raw: bytes) -> bytes | None:
    """The body with its quoted scalars that end on their line emptied (`"!x"` -> `""`), or None
    if one holds `: ` or ` #`: then ryml may not pair the quotes as this does."""
    if any(_matches(char, pattern, raw) for char, pattern in _QUOTED_PLAIN_SCALAR_END):
        return None
    return _QUOTED_ON_ITS_LINE.sub(_emptied, raw)


def _emptied(quoted: re.Match) -> bytes:
    return quoted.group()[:1] * 2


def _overruns_ryml(raw: bytes, unsure: bool) -> bool:
    """Could ryml 0.15.2 hold a third tag or anchor waiting, or reach its unreachable point?

    For a body the fast path will not answer (``unsure``: ryml only counts it, to refuse it
    early), any `!` or `&`: in flow collections, after tabs or byte-order marks the bugs have
    more ways in (`[!a !b !c]`, `!\n\t:`), and the PyYAML path meters such a body itself."""
    if unsure:
        return b"!" in raw or b"&" in raw
    present = [char for char in (b"!", b"&") if char in raw]  # memchr: most bodies have none
    if not present:
        return False
    marks = sum(map(raw.count, present))
    if marks > _DENSE_MARKS and marks * 64 > len(raw):
        return True
    if not any(_matches(char, pattern, raw) for char, pattern in _WAITING_ANNOTATIONS):
        return False
    if raw.count(b'"') + raw.count(b"'") > _MANY_QUOTES:
        return True
    if any(_matches(char, pattern, raw) for char, pattern in _MULTILINE_QUOTED):
        return True
    text = _quoted_scalars_emptied(raw)
    return text is None or any(_matches(c, pattern, text) for c, pattern in _WAITING_ANNOTATIONS)


def _parse(raw: bytes, *, unsure: bool) -> Any:
    """ryml's tree of the body, or None if ryml cannot read it (a syntax error, mostly) or could
    overrun its annotations on it (``_overruns_ryml``)."""
    if _overruns_ryml(raw, unsure):
        return None
    tree = ryml.Tree()
    # Growing the tree by doubling costs more than the parse itself: reserve ~1 node per 20
    # bytes (manifests have about that), at most 2**18 nodes (38 MB).
    tree.reserve(min(len(raw) // 20 + 16, 1 << 18))
    tree.reserve_arena(len(raw) + 4096)  # the arena holds a copy of the body
    try:
        ryml.parse_in_arena(raw, tree)
    except Exception:  # ryml also writes its message to stderr; the PyYAML path names it
        return None
    return tree


def _shape(tree: Any) -> tuple[bool, int, int]:
    """(whether the root is a stream of documents, documents, nodes but mapping keys)."""
    root = tree.root_id()
    if tree.is_stream(root):
        return True, tree.num_children(root), tree.size() - 1
    if tree.type_has_any(root, ryml.MAP | ryml.SEQ | ryml.VAL):
        return False, 1, tree.size()
    return False, 0, 0  # nothing but comments and blank lines


class _Seen:
    """What the fast path learnt of a body it read as the PyYAML path does, before it stepped
    aside: ryml's documents and nodes (a key and its value are one node there, an alias one)
    and, when they could matter, its JSON, where the keys are counted. Together no more nodes
    than the PyYAML path composes (aliases once): the same reading, counted alike."""

    def __init__(self, size: int) -> None:
        self.documents = self.nodes = 0
        self.text: bytearray | None = None
        self._bound = min(MAX_STREAM_NODES, pyyaml_budget(size))  # the least that refuses

    def count_keys(self, tree: Any, size_hint: int) -> None:
        """Write the tree's JSON, if its keys could take it past a bound."""
        if 2 * self.nodes > self._bound:  # a key is at most one more node per node
            try:
                self.text = _emit_json(tree, tree.root_id(), size_hint)
            except Exception:  # nested deeper than ryml's JSON writer goes
                return

    def refuse_past_bounds(self, size: int) -> None:
        """Refuse the body past the stream's bounds, or the PyYAML path's budget for its size,
        as that path would once it had composed that much."""
        nodes = self.nodes + (0 if self.text is None else _key_count(self.text))
        refuse_past_bounds(self.documents, nodes)
        refuse_past_pyyaml_budget(nodes, size)


def _counted_in_pieces(raw: bytes, unsure: bool) -> bool:
    """Count the body's documents and nodes (keys and aliases aside: fewer than the PyYAML path
    counts) document by document, refusing it past the stream's bounds. False when a piece is
    too large for ryml or unreadable: then the PyYAML path, which meters as it goes, decides."""
    documents = nodes = start = 0
    while start < len(raw):
        found = _DOCUMENT_START.search(raw, start)
        end = len(raw) if found is None else found.start() + 1
        piece = raw[start:end]
        if yaml_nodes_ceiling(piece) > _RYML_NODES:
            return False
        tree = _parse(piece, unsure=unsure)  # a piece of a sure body is sure: lines unchanged
        if tree is None:
            return False
        _, piece_documents, piece_nodes = _shape(tree)
        del tree  # before the next piece's: one tree at a time
        documents, nodes = documents + piece_documents, nodes + piece_nodes
        refuse_past_bounds(documents, nodes)
        start = end
    return True


def fast_documents(raw: bytes) -> list | None:
    """The documents as the PyYAML path would give them, or None when that is not certain.

    Refuses, whatever path would load it, a body past the stream's bounds (documents, nodes),
    and a body it read as the PyYAML path does but leaves to it (an anchor, a YAML 1.1 scalar)
    that holds more nodes than that path composes for the body's size
    (``yaml_bounds.pyyaml_budget``).
    """
    seen = _Seen(len(raw))
    documents = _read(raw, seen)
    if documents is None:
        seen.refuse_past_bounds(len(raw))
    return documents


def _read(raw: bytes, seen: _Seen) -> list | None:
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    scanned = _Scanned(raw)
    unsure = _unsure(raw, scanned)
    if unsure and len(raw) <= _SMALL:
        return None
    too_many = len(raw) > _RYML_NODES and yaml_nodes_ceiling(raw) > _RYML_NODES
    if too_many and not _counted_in_pieces(raw, unsure):
        return None
    tree = _parse(raw, unsure=unsure)
    if tree is None:
        return None
    stream, documents, nodes = _shape(tree)
    refuse_past_bounds(documents, nodes)  # before keys are counted: 4 x 7.6 MB stops here
    if unsure or not documents:
        # No document: nothing of ryml's tree to ask, and ryml drops some bodies whole that the
        # PyYAML path refuses (`!=\n!=kind: !=`); that path reads an empty stream at once. An
        # unsure body may be read otherwise there: that path counts its nodes itself.
        return None
    seen.documents, seen.nodes = documents, nodes
    if scanned.found(_NODE_PROPERTIES):  # `!=` in a quoted Jinja template is no tag
        has_any = tree.type_has_any  # ids 0..size-1: ryml only ever drops its last node
        if any(has_any(node, _PROPERTY_BITS) for node in range(tree.size())):
            seen.count_keys(tree, 2 * len(raw) + 64)
            return None  # tags are refused, anchors and aliases metered: the PyYAML path
    try:
        text = _emit_json(tree, tree.root_id(), 2 * len(raw) + 64)
    except Exception:  # nested deeper than ryml's JSON writer goes (64 levels)
        return None
    seen.text = text
    if (
        b"\\" in raw
        and (b"\xc2" in text or b"\xe2" in text)  # their UTF-8's first bytes: a memchr each
        and _YAML11_ESCAPE.search(raw)
        and any(char in text for char in _YAML11_ESCAPED)
    ):
        return None  # \L \P \N \_ are line breaks to YAML 1.1's folding of a quoted scalar
    separators = _separators(text)  # every key, and perhaps colons inside strings
    if nodes + separators > MAX_STREAM_NODES:
        refuse_past_bounds(documents, nodes + _key_count(text))
    for match in _CANDIDATE.finditer(text):
        if _is_ambiguous(match, text):
            return None
    value = _orjson_value(text)
    if value is not NOT_READ:
        # A key twice in a mapping leaves one: orjson's JSON of the value then holds fewer
        # separators (the PyYAML path names the key, with its line).
        compact = orjson.dumps(value)
        if _separators(compact) != separators:
            return None
        if not _has_float(compact):
            return _documents(value, stream)
    sizes: list[int] = []
    remember = sizes.append

    def counted(mapping: dict) -> dict:
        remember(len(mapping))
        return mapping

    # A digit run as long as MAX_NUMBER_CHARS may be a number PyYAML refuses and Python reads.
    long_digits = b"0" * MAX_NUMBER_CHARS in raw.translate(_DIGITS)
    decoder = json.JSONDecoder(
        object_hook=counted,
        parse_float=_json_float,
        parse_int=_json_int if long_digits else None,
        parse_constant=_no_constant,
        strict=False,  # ryml writes control characters (from `"\x01"`) as they are
    )
    try:
        value = decoder.decode(text.decode())
    except (_Fallback, ValueError):  # ValueError: not JSON (ryml wrote `+1` bare), a huge int
        return None
    if sum(sizes) != _key_count(text):  # a key twice in a mapping: the PyYAML path names it
        return None
    return _documents(value, stream)


def _documents(value: Any, stream: bool) -> list | None:
    """The documents of ryml's JSON value; None when one is a string: YAML 1.1 indents a block
    scalar that is a whole document (the PyYAML path reads it)."""
    documents = value if stream else [value]
    return None if any(type(document) is str for document in documents) else documents
