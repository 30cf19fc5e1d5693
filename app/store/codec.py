"""The stored form of the normalised selection documents (SPEC §17 "Fast").

A document is stored as a compact JSON array, ``[CODEC_VERSION, tag, field, field, ...]``, its
fields in declaration order; a nested dataclass is the array of its fields, a tuple an array, a
``dict[str, ...]`` an object (in its own key order), ``None`` is ``null``. Positions come from
``dataclasses.fields`` and conversions from the type hints, so nothing here repeats a field
list. The round trip is exact because the encoder refuses every value that the decoder would
not give back unchanged: a list where a tuple belongs, a bool where an int belongs, a float.
No pickle: what comes back from a shared store is data, never code.

``CODEC_VERSION`` changes whenever the stored layout does (a field added, removed, reordered or
retyped in ``app.selection.documents``); ``tests/store/test_codec.py`` pins ``layout()`` so
that such a change cannot land without it. A value of another version raises
``UnreadableDocument``: a newer instance wrote it during a rolling upgrade, or the documents
changed and the stored catalogs have to be written again.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Iterable
from dataclasses import fields, is_dataclass
from typing import Any

from app.selection.documents import InferenceService, Model, Runtime

from .decoders import SHARED_LIMIT, UnreadableDocument, generate_decoders
from .hints import (
    dataclasses_in,
    is_plain,
    mapping_value,
    plain_types,
    sequence_item,
    spelling,
    unwrap_optional,
)

__all__ = ["SHARED_LIMIT", "UnreadableDocument"]  # re-exported: what a codec caller meets

CODEC_VERSION = 1
Document = Runtime | Model | InferenceService
# The tag names the top-level class in the stored form: part of the format, like the version.
DOCUMENT_TAGS: dict[type, str] = {Runtime: "R", Model: "M", InferenceService: "I"}

_Convert = Callable[[Any], Any]


def dumps_json(value: Any) -> str:
    """Compact, ASCII-only JSON (lone surrogates survive any store as escapes); no NaN."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


# --- encoding (writes: checked, generic) -------------------------------------------------------


def _encoder(hint: Any) -> _Convert:
    if is_plain(hint):
        allowed = plain_types(hint)

        def plain(value: Any) -> Any:
            # type(), not isinstance(): True is not an int here, nor an int subclass one.
            if type(value) not in allowed:
                raise TypeError(f"{type(value).__name__} where {hint} belongs")
            return value

        return plain
    inner, optional = unwrap_optional(hint)
    if optional:
        convert = _encoder(inner)
        return lambda value: None if value is None else convert(value)
    if (item_hint := sequence_item(hint)) is not None:
        item = _encoder(item_hint)

        def sequence(value: Any) -> list:
            if type(value) is not tuple:
                raise TypeError(f"{type(value).__name__} where a tuple belongs")
            return [item(member) for member in value]

        return sequence
    if (value_hint := mapping_value(hint)) is not None:
        item = _encoder(value_hint)

        def mapping(value: Any) -> dict:
            if type(value) is not dict or any(type(key) is not str for key in value):
                raise TypeError(f"{type(value).__name__} where a dict with str keys belongs")
            return {key: item(member) for key, member in value.items()}

        return mapping
    if isinstance(hint, type) and is_dataclass(hint):
        return _dataclass_encoder(hint)
    raise TypeError(f"no stored form for {hint!r}")


def _dataclass_encoder(kind: type) -> _Convert:
    hints = typing.get_type_hints(kind)
    converters = [(field.name, _encoder(hints[field.name])) for field in fields(kind)]

    def encode_fields(value: Any) -> list:
        if type(value) is not kind:
            raise TypeError(f"{type(value).__name__} where {kind.__name__} belongs")
        return [convert(getattr(value, name)) for name, convert in converters]

    return encode_fields


_DECODE_BY_TAG: dict[str, _Convert] = generate_decoders(DOCUMENT_TAGS)
_ENCODE_BY_KIND: dict[type, tuple[str, _Convert]] = {
    kind: (tag, _dataclass_encoder(kind)) for kind, tag in DOCUMENT_TAGS.items()
}


# --- public ------------------------------------------------------------------------------------


def encode(document: Document) -> list:
    """The JSON value of ``document``; ``TypeError`` for a value its type hints do not allow."""
    try:
        tag, encode_fields = _ENCODE_BY_KIND[type(document)]
    except KeyError:
        raise TypeError(f"cannot store a {type(document).__name__}") from None
    return [CODEC_VERSION, tag, *encode_fields(document)]


def dumps(document: Document) -> str:
    """``encode`` as JSON text: equal documents, equal text."""
    return dumps_json(encode(document))


def decode(value: Any) -> Document:
    """The document ``encode`` gave ``value`` for; ``UnreadableDocument`` for anything else.
    ``value`` is parsed JSON that the caller gives away: its arrays are converted in place."""
    try:
        if value[0] != CODEC_VERSION:
            raise UnreadableDocument(f"stored with codec version {value[0]!r}, not {CODEC_VERSION}")
        return _DECODE_BY_TAG[value[1]](value[2:])
    except UnreadableDocument:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as error:
        raise UnreadableDocument(f"not a stored document: {error!r}") from None


def decode_all(values: Iterable[Any]) -> list[Document]:
    return [decode(value) for value in values]


def parse_json(text: str | bytes) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise UnreadableDocument(f"not JSON: {error}") from None


def loads(text: str | bytes) -> Document:
    return decode(parse_json(text))


def loads_array(text: str | bytes) -> list[Document]:
    """The documents of a JSON array of stored documents: one parse for a whole catalog."""
    values = parse_json(text)
    if type(values) is not list:
        raise UnreadableDocument("not an array of stored documents")
    return decode_all(values)


def join_array(texts: Iterable[str]) -> str:
    """The JSON array of values already encoded as JSON texts, without parsing them."""
    return "[" + ",".join(texts) + "]"


def layout() -> dict[str, list[str]]:
    """Every stored class, its fields and their hints in stored order: what ``CODEC_VERSION``
    versions (the test that pins it says when to bump the version)."""
    found: dict[str, list[str]] = {}

    def visit(kind: type) -> None:
        if kind.__name__ in found:
            return
        hints = typing.get_type_hints(kind)
        found[kind.__name__] = [
            f"{field.name}: {spelling(hints[field.name])}" for field in fields(kind)
        ]
        for field in fields(kind):
            for nested in dataclasses_in(hints[field.name]):
                visit(nested)

    for kind in DOCUMENT_TAGS:
        visit(kind)
    return found
