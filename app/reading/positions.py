"""Where a field of a manifest is written: the line and column (from 1) of a path such as
``spec.supportedModelFormats[0].autoselect`` in the document of a YAML stream, or of a JSON body,
that holds the object (lint's findings, rules §18).

Only what is asked is looked for, after the body has been read and judged: each document asked
about is read once more, as events (YAML: libyaml's parser over that document's bytes alone; JSON:
the standard decoder's scanner, skipping what no path goes through), and within it only down the
paths asked for, stopping once each is found. The work is linear in the bytes of the documents
asked about, which the loader's bounds already hold; a body whose objects have no finding costs
nothing here.

A path the document does not hold to its end (a required field that is missing) gives the
place of the deepest part it does hold: the entry, the section, else the document itself.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from app.selection.values import checkpoint

try:
    _EventLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML without libyaml
    _EventLoader = yaml.SafeLoader

# A line that starts a YAML document (libyaml ends any scalar there: a block scalar's lines are
# indented, a quoted scalar may not hold one, a plain one ends before it).
# The literal first, then what must stand before it: a search at memchr speed.
_DOCUMENT_START = re.compile(rb"---(?<![^\n]---)(?=[ \t\r\n]|\Z)")
# A line that makes a document before the first `---`: not blank, a comment, a directive or `...`.
_CONTENT = re.compile(rb"(?m)^(?!%|\.\.\.(?:[ \t\r]|$))[ \t]*[^ \t\r\n#]")
_BOM = "\ufeff".encode()
_EVENTS_PER_CHECK = 4096
_JSON_BLANK = re.compile(r"[ \t\n\r]*")
_MAPPING, _SEQUENCE, _SCALAR = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Position:
    line: int  # from 1
    column: int  # from 1, in characters


@dataclass(frozen=True, slots=True)
class Spot:
    """A place asked about: a path in one document of a stream."""

    document: int  # from 0: a YAML stream's documents (empty ones counted), a JSON array's items
    path: str  # in the document: ``spec.x[0].y``, ``metadata.annotations[ome.io/x]``
    at_value: bool = False  # the value's place rather than its key's


def positions(raw: bytes, is_yaml: bool, spots: Iterable[Spot]) -> dict[Spot, Position]:
    """The place of each spot found; a document that is not in the body gives none."""
    wanted: dict[int, list[Spot]] = {}
    for spot in spots:
        wanted.setdefault(spot.document, []).append(spot)
    if not wanted:
        return {}
    if is_yaml:
        return _yaml_positions(raw, wanted)
    return _json_positions(raw, wanted)


class _Asked:
    """One spot on its way down: how much of its path is matched."""

    __slots__ = ("offset", "spot")

    def __init__(self, spot: Spot) -> None:
        self.spot, self.offset = spot, 0


# (entry, its offset when it came into the collection, its offset past the key or index)
_Step = tuple[_Asked, int, int]


_SEPARATOR = re.compile(r"[.\[]")


def _first_segment(text: str, offset: int = 0) -> int:
    """Where the first segment of ``text[offset:]`` ends: at its first ``.`` or ``[``."""
    found = _SEPARATOR.search(text, offset)
    return len(text) if found is None else found.start()


class _Frame:
    """A collection entered, with the spots that came into it, indexed so that each key (or
    item) finds the spots it may continue in one look: a spot whose path goes on with
    ``[key]`` by that key; one that goes on with ``key.…`` by its first segment, since a key
    may hold dots (``ome.io/x``) and is then checked whole."""

    __slots__ = (
        "best",
        "by_segment",
        "exact",
        "key_at",
        "kind",
        "matched",
        "next_item",
        "want_key",
    )

    def __init__(self, kind: int, arrived: list[_Asked]) -> None:
        self.kind = kind
        self.exact: dict[str, list[_Step]] = {}
        self.by_segment: dict[str, list[tuple[_Asked, int]]] = {}
        for entry in arrived:
            path, offset = entry.spot.path, entry.offset
            if path.startswith("[", offset):
                close = path.find("]", offset)
                if close >= 0:
                    past = close + 1 + path.startswith(".", close + 1)
                    self.exact.setdefault(path[offset + 1 : close], []).append(
                        (entry, offset, past)
                    )
            elif kind == _MAPPING:
                segment = path[offset : _first_segment(path, offset)]
                self.by_segment.setdefault(segment, []).append((entry, offset))
        self.best: dict[int, int] = {}  # id of a spot -> the longest match it had here
        self.want_key = True
        self.matched: list[_Step] = []
        self.key_at: Any = None
        self.next_item = 0

    def steps(self, key: str) -> list[_Step]:
        """The spots whose path goes on with ``key`` here, and the offset past it."""
        found = list(self.exact.get(key, ()))
        for entry, offset in self.by_segment.get(key[: _first_segment(key)], ()):
            path = entry.spot.path
            end = offset + len(key)
            if path.startswith(key, offset) and (end == len(path) or path[end] in ".["):
                found.append((entry, offset, end + path.startswith(".", end)))
        return found


class _Walk:
    """Follows the nodes of one document, as the readers below report them, down the paths of
    its spots. ``node`` answers whether a collection is to be entered (else it is skipped);
    ``open`` counts the spots not found whole yet: a path found only in part may still find a
    longer key further on (``ome.io`` after ``ome``), so only the document's end settles it."""

    def __init__(self, spots: list[Spot]) -> None:
        self.found: dict[Spot, Any] = {}
        self.open = len(spots)
        self._whole: set[Spot] = set()
        self._spots = spots
        self._stack: list[_Frame] = []
        self._root = True

    def node(self, kind: int, at: Any, text: str | None = None) -> bool:
        if self._root:
            self._root = False
            for spot in self._spots:
                self.found[spot] = at  # the document's own place, until a deeper one
            return self._arrive(kind, [_Asked(spot) for spot in self._spots])
        frame = self._stack[-1]
        if frame.kind == _MAPPING:
            if frame.want_key:
                frame.want_key = False
                frame.key_at = at
                frame.matched = frame.steps(text) if kind == _SCALAR and text is not None else []
                return False
            frame.want_key = True
            matched, frame.matched = frame.matched, []
            return self._reached(frame, matched, frame.key_at, at, kind)
        index, frame.next_item = frame.next_item, frame.next_item + 1
        return self._reached(frame, frame.exact.get(str(index)) or [], at, at, kind)

    def _reached(
        self, frame: _Frame, matched: list[_Step], key_at: Any, at: Any, kind: int
    ) -> bool:
        going_on = []
        for entry, _, past in matched:
            # A longer key (`ome.io` after `ome`) is the path's rather than a shorter one.
            if frame.best.get(id(entry), -1) >= past:
                continue
            frame.best[id(entry)] = past
            entry.offset = past
            if past >= len(entry.spot.path):
                self.found[entry.spot] = at if entry.spot.at_value else key_at
                if entry.spot not in self._whole:  # `ome` then `io` in it, and `ome.io` too
                    self._whole.add(entry.spot)
                    self.open -= 1
            else:
                self.found[entry.spot] = key_at
                going_on.append(entry)
        return bool(going_on) and self._arrive(kind, going_on)

    def _arrive(self, kind: int, entries: list[_Asked]) -> bool:
        if kind == _SCALAR:  # the paths go on past a scalar: the deepest part is found
            return False
        self._stack.append(_Frame(kind, entries))
        return True

    def end(self) -> None:
        """The collection entered last ends."""
        self._stack.pop()


# ------------------------------------------------------------------------------------- YAML


def yaml_documents(raw: bytes) -> list[tuple[int, int]]:
    """Each document's bytes, ``(start, end)``, in stream order."""
    starts = [found.start() for found in _DOCUMENT_START.finditer(raw)]
    head = raw[: starts[0]] if starts else raw
    if head.startswith(_BOM):
        head = head[len(_BOM) :]
    has_head = _CONTENT.search(head) is not None
    bounds = [0, *starts] if has_head else starts
    if not bounds:
        return []
    return [(start, end) for start, end in zip(bounds, [*bounds[1:], len(raw)], strict=True)]


def _yaml_positions(raw: bytes, wanted: dict[int, list[Spot]]) -> dict[Spot, Position]:
    chunks = yaml_documents(raw)
    found: dict[Spot, Position] = {}
    line, counted = 0, 0  # lines before ``counted``
    for document in sorted(wanted):
        if document >= len(chunks):
            break
        start, end = chunks[document]
        line += raw.count(b"\n", counted, start)
        counted = start
        walk = _Walk(wanted[document])
        checkpoint()
        with contextlib.suppress(yaml.YAMLError):  # what was found before the error stands
            _walk_yaml(raw[start:end], walk)
        for spot, (spot_line, column) in walk.found.items():
            found[spot] = Position(line + spot_line + 1, column + 1)
    return found


_STARTS = {MappingStartEvent: _MAPPING, SequenceStartEvent: _SEQUENCE}
_ENDS = (MappingEndEvent, SequenceEndEvent)


def _walk_yaml(chunk: bytes, walk: _Walk) -> None:
    parser = _EventLoader(chunk)
    try:
        _walk_events(parser.get_event, walk)
    finally:
        parser.dispose()


def _walk_events(next_event: Callable[[], Any], walk: _Walk) -> None:
    skipping = count = 0
    while (event := next_event()) is not None:
        count += 1
        if count % _EVENTS_PER_CHECK == 0:
            checkpoint()
        kind = type(event)
        if skipping:
            if kind in _STARTS:
                skipping += 1
            elif kind in _ENDS:
                skipping -= 1
            continue
        if kind in _ENDS:
            walk.end()
        elif kind is ScalarEvent or kind is AliasEvent:
            mark: Any = event.start_mark
            walk.node(_SCALAR, (mark.line, mark.column), getattr(event, "value", None))
        elif kind in _STARTS:
            mark = event.start_mark
            if not walk.node(_STARTS[kind], (mark.line, mark.column)):
                skipping = 1
        else:
            continue
        if walk.open <= 0:
            return


# ------------------------------------------------------------------------------------- JSON


class _Done(Exception):
    """Every spot of the document is settled: no need to read on."""


# The standard decoder's C scanner: one value from an offset, and one string's text (typeshed
# does not list them).
_scan_value: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder(strict=False).scan_once  # type: ignore[attr-defined]
_scan_string: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _blank(text: str, at: int) -> int:
    """Past the blanks at ``at``."""
    found = _JSON_BLANK.match(text, at)
    return at if found is None else found.end()


def _json_positions(raw: bytes, wanted: dict[int, list[Spot]]) -> dict[Spot, Position]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return {}
    start = 1 if text.startswith("\ufeff") else 0
    offsets: dict[Spot, int] = {}
    try:
        start = _blank(text, start)
        if text.startswith("[", start):
            _json_documents(text, start, wanted, offsets)
        elif 0 in wanted:
            _json_document(text, start, wanted[0], offsets)
    except (ValueError, IndexError, StopIteration, RecursionError):
        pass  # not JSON after all: what was found before stands
    return _lines_and_columns(text, offsets)


def _json_documents(
    text: str, at: int, wanted: dict[int, list[Spot]], offsets: dict[Spot, int]
) -> None:
    """An array of manifests: each item a document."""
    last = max(wanted)
    at = _blank(text, at + 1)
    document = 0
    while text[at] != "]" and document <= last:
        if document in wanted:
            checkpoint()
            at = _json_document(text, at, wanted[document], offsets)
        else:
            at = _scan_value(text, at)[1]
        at = _blank(text, at)
        if text[at] == ",":
            at = _blank(text, at + 1)
        document += 1


def _json_document(text: str, at: int, spots: list[Spot], offsets: dict[Spot, int]) -> int:
    """Walks one document from ``at``; where it ends (or ``at`` when the walk stopped early)."""
    walk = _Walk(spots)
    end = at
    with contextlib.suppress(_Done):
        end = _json_value(text, at, walk)
    offsets.update(walk.found)
    return end if end > at else _scan_value(text, at)[1]


def _json_value(text: str, at: int, walk: _Walk) -> int:
    opening = text[at]
    if opening not in "{[":
        walk.node(_SCALAR, at)
        return _scan_value(text, at)[1]
    kind = _MAPPING if opening == "{" else _SEQUENCE
    if not walk.node(kind, at):
        return _scan_value(text, at)[1]
    closing = "}" if opening == "{" else "]"
    at = _blank(text, at + 1)
    while text[at] != closing:
        if kind == _MAPPING:
            key, after = _scan_string(text, at + 1)
            walk.node(_SCALAR, at, key)
            at = _blank(text, after)
            at = _blank(text, at + 1)  # past the ':'
        at = _json_value(text, at, walk)
        if walk.open <= 0:
            raise _Done
        at = _blank(text, at)
        if text[at] == ",":
            at = _blank(text, at + 1)
    walk.end()
    return at + 1


def _lines_and_columns(text: str, offsets: dict[Spot, int]) -> dict[Spot, Position]:
    """Offsets to places, in one pass over the text up to the last one."""
    found: dict[Spot, Position] = {}
    line, counted, line_start = 1, 0, 0
    for spot, offset in sorted(offsets.items(), key=lambda item: item[1]):
        newlines = text.count("\n", counted, offset)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", counted, offset) + 1
        counted = offset
        found[spot] = Position(line, offset - line_start + 1)
    return found
