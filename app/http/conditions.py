"""``If-Match`` and ``If-None-Match`` as RFC 9110 reads them (§13.1.1, §13.1.2, §8.8.3), on a
catalog's ``ETag: "<generation>"`` (rules §17).

A value is ``*`` or a comma-separated list of entity tags (``"7"``, ``W/"7"``); a list matches
when any of its tags does. ``If-Match`` compares strongly: a weak tag never matches, and ``*``
matches only a cluster that exists (a write with ``If-Match: *`` never creates one).
``If-None-Match`` compares weakly: ``W/"7"`` names ``"7"``. The gzip form of a tag (``"7-gzip"``)
is named as its identity one before these run (app/http/compression.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.selection.values import parse_go_int
from app.store import Precondition

# entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text (§8.8.3)
_TAG = re.compile(r'[ \t]*(W/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*')
_EMPTY_ELEMENT = re.compile(r"[ \t]*")


class MalformedTags(ValueError):
    """Neither ``*`` nor a list of entity tags."""


@dataclass(frozen=True, slots=True)
class EntityTag:
    opaque: str  # between the quotes
    weak: bool


def entity_tags(value: str) -> tuple[EntityTag, ...] | None:
    """The tags of a condition's value; None for ``*``. Empty list elements are skipped, as
    RFC 9110 §5.6.1 asks of a recipient."""
    if value.strip(" \t") == "*":
        return None
    tags = []
    for element in _elements(value):
        found = _TAG.fullmatch(element)
        if found is None:
            if _EMPTY_ELEMENT.fullmatch(element):
                continue
            raise MalformedTags(f"not an entity tag: {element.strip()[:40]!r}")
        tags.append(EntityTag(found.group(2), weak=found.group(1) is not None))
    return tuple(tags)


def _elements(value: str) -> list[str]:
    """The list's elements: split at the commas outside quotes (an opaque tag may hold one)."""
    elements, start, quoted = [], 0, False
    for index, character in enumerate(value):
        if character == '"':
            quoted = not quoted
        elif character == "," and not quoted:
            elements.append(value[start:index])
            start = index + 1
    elements.append(value[start:])
    return elements


def generation_of(tag: EntityTag) -> int | None:
    """The generation a catalog's tag names (``"7"``: 7); None for any other tag."""
    opaque = tag.opaque
    if not (opaque.isascii() and opaque.isdigit()) or (opaque[0] == "0" and len(opaque) > 1):
        return None
    return parse_go_int(opaque, signed=False)  # past 64 bits no generation: never int() of it


def write_precondition(if_match: str) -> Precondition:
    """What an ``If-Match`` value asks of a write: the generations its strong tags name, or any
    generation for ``*``; ``MalformedTags`` if it is not a condition at all."""
    tags = entity_tags(if_match)
    if tags is None:
        return Precondition.EXISTS
    named = (generation_of(tag) for tag in tags if not tag.weak)
    return Precondition(frozenset(generation for generation in named if generation is not None))


def none_match(if_none_match: str, etag: str) -> bool:
    """Whether an ``If-None-Match`` value names ``etag`` (a strong tag, ``"7"``), weakly, or is
    ``*``: a read's 304. A value that is no condition names nothing (the read is answered)."""
    try:
        tags = entity_tags(if_none_match)
    except MalformedTags:
        return False
    if tags is None:
        return True
    return any(f'"{tag.opaque}"' == etag for tag in tags)
