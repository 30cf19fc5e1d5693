"""``If-Match`` and ``If-None-Match`` as RFC 9110 reads them (§13.1.1, §13.1.2, §8.8.3), on a
catalog's ``ETag: "<generation>"`` (rules §17).

A value is ``*`` or a comma-separated list of entity tags (``"7"``, ``W/"7"``); a list matches
when any of its tags does. ``If-Match`` compares strongly: a weak tag never matches, and ``*``
matches only a cluster that exists (a write with ``If-Match: *`` never creates one).
``If-None-Match`` compares weakly: ``W/"7"`` names ``"7"``. The gzip form of a tag (``"7-gzip"``)
is named as its identity one before these run (app/http/compression.py).

A read's ``If-None-Match`` is evaluated once its answer is known (RFC 9110 §13.2.1: a server
ignores the conditions of a request whose answer without them would not be a 2xx), so a request
for a model that does not exist is a 404 whatever it names; and for a method other than GET or
HEAD a condition that holds is 412, never 304 (§13.1.2): an answer to a POST is not the
representation the tag names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flask import Response, request

from app import errors
from app.selection.values import parse_go_int
from app.store import Precondition

# entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text (§8.8.3)
_TAG = re.compile(r'[ \t]*(W/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*')
_EMPTY_ELEMENT = re.compile(r"[ \t]*")
# The methods whose condition that holds is a 304 (RFC 9110 §13.1.2); any other's is a 412.
_READS = frozenset({"GET", "HEAD"})
NOT_MODIFIED, PRECONDITION_FAILED = 304, 412


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


def if_none_match_status(method: str, if_none_match: str | None, etag: str, status: int) -> int:
    """What a request's ``If-None-Match`` makes of its answer of ``status``, evaluated once that
    answer is known (RFC 9110 §13.2.1-§13.2.2): ``NOT_MODIFIED`` for a GET or HEAD whose value
    names ``etag``, ``PRECONDITION_FAILED`` for another method's; ``status`` itself when the
    answer stands: no condition, one that names another tag, an answer that is not a 2xx."""
    if if_none_match is None or not 200 <= status < 300 or not none_match(if_none_match, etag):
        return status
    return NOT_MODIFIED if method in _READS else PRECONDITION_FAILED


def unless_none_match(etag: str, generation: int, status: int = 200) -> Response | None:
    """The request's ``If-None-Match`` on its answer of ``status``, a catalog's at
    ``generation`` (tag ``etag``): a 304 to send instead, a 412 raised (``PreconditionFailed``),
    or None: send the answer."""
    decided = if_none_match_status(
        request.method, request.headers.get("If-None-Match"), etag, status
    )
    if decided == PRECONDITION_FAILED:
        raise errors.PreconditionFailed(
            f"If-None-Match names the cluster's current generation ({generation}): a "
            f"{request.method} is answered only while it names none of them",
            generation=generation,
        )
    if decided != NOT_MODIFIED:
        return None
    response = Response(status=NOT_MODIFIED)
    response.headers["ETag"] = etag
    return response
