"""The stored form of the normalised selection documents (rules §17 "Fast").

A document is stored as a compact JSON array, ``[CODEC_VERSION, tag, field, field, ...]``, its
fields in declaration order; a nested dataclass is the array of its fields, a tuple an array, a
``dict[str, ...]`` an object (in its own key order), ``None`` is ``null``. Positions come from
``dataclasses.fields`` and conversions from the type hints, so nothing here repeats a field
list. The round trip is exact because the encoder refuses every value that the decoder would
not give back unchanged: a list where a tuple belongs, a bool where an int belongs, a float.
No pickle: what comes back from a shared store is data, never code.

A ``Mapping[str, Any]`` (an ``acceleratorConfig``, a class's affinity: Kubernetes objects the
rules pass on without reading their every field) is stored as the JSON object it is.

``CODEC_VERSION`` changes whenever the stored layout does (a field added, removed, reordered or
retyped in ``app.selection.values.documents``); ``tests/store/test_codec.py`` pins ``layout()`` so
that such a change cannot land without it. A value of another version raises
``UnreadableDocument``: a newer instance wrote it during a rolling upgrade, or the documents
changed and the stored catalogs have to be written again.
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from app.selection.values import (
    AcceleratorClass,
    AcceleratorRequest,
    InferenceService,
    Model,
    Runtime,
    is_json_value,
)

CODEC_VERSION = 3
Document = Runtime | Model | InferenceService | AcceleratorClass
# Version 2 appended ``Entry.version`` and ``Model.storage_uri`` (both read by admission only,
# both None when absent): a version-1 value is the same value without them, read as such.
# Version 3 appended ``Entry.accelerator_config`` and ``InferenceService.accelerators`` (rules
# §20, None when absent): a version-2 value is read as one without them. The AcceleratorClass
# (tag ``A``) came later within version 3: no layout of another tag changed, so an older instance
# still reads every catalog without classes, and refuses (503, ``UnreadableDocument``: an
# unknown tag) only those with classes, until it is upgraded.
_RUNTIME_ENTRIES = 2 + [field.name for field in fields(Runtime)].index("entries")
# Per older version: the tag whose entries gained a field at their end, and the tag that gained
# one at its own end (each None when absent).
_APPENDED: dict[int, tuple[str | None, str | None]] = {1: ("R", "M"), 2: ("R", "I")}
# The names the documents' hints refer to without importing them (``documents.py``).
_HINT_NAMES = {"AcceleratorRequest": AcceleratorRequest}


def type_hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind, localns=_HINT_NAMES)


# The tag names the top-level class in the stored form: part of the format, like the version.
DOCUMENT_TAGS: dict[type, str] = {
    Runtime: "R",
    Model: "M",
    InferenceService: "I",
    AcceleratorClass: "A",
}

_Convert = Callable[[Any], Any]


def dumps_json(value: Any) -> str:
    """Compact, ASCII-only JSON (lone surrogates survive any store as escapes); no NaN."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


# --- type hints: the few forms the documents' hints take, and nothing else ---------------------

PLAIN = (str, int, bool, type(None))


def is_union(hint: Any) -> bool:
    return isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union


def unwrap_optional(hint: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``X | None``, else ``(hint, False)``."""
    if is_union(hint):
        args = typing.get_args(hint)
        members = [member for member in args if member is not type(None)]
        if len(args) == 2 and len(members) == 1:
            return members[0], True
    return hint, False


def is_plain(hint: Any) -> bool:
    """A hint whose JSON value is the Python value itself: str, int, bool, None and unions."""
    if is_union(hint):
        return all(is_plain(member) for member in typing.get_args(hint))
    return hint in PLAIN


def plain_types(hint: Any) -> tuple[type, ...]:
    return typing.get_args(hint) if is_union(hint) else (hint,)


def sequence_item(hint: Any) -> Any:
    """``T`` for ``tuple[T, ...]``, else ``None``."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
        return args[0]
    return None


def mapping_value(hint: Any) -> Any:
    """``T`` for ``dict[str, T]`` or ``Mapping[str, T]`` other than ``Any``, else ``None``."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (dict, Mapping) and args[0] is str and args[1] is not Any:
        return args[1]
    return None


def is_json_object(hint: Any) -> bool:
    """``Mapping[str, Any]``: a JSON object stored whole."""
    args = typing.get_args(hint)
    return typing.get_origin(hint) is Mapping and args == (str, Any)


def spelling(hint: Any) -> str:
    if isinstance(hint, type):
        return hint.__name__
    return re.sub(r"\b(?:[a-z_]+\.)+", "", str(hint))  # module paths dropped


def dataclasses_in(hint: Any) -> list[type]:
    if isinstance(hint, type):
        return [hint] if is_dataclass(hint) else []
    return [kind for arg in typing.get_args(hint) for kind in dataclasses_in(arg)]


# --- decoding (reads: generated from the dataclasses, see DecoderSource) -----------------------

# Distinct values kept per shared class; the table starts over beyond it.
SHARED_LIMIT = 4096


class UnreadableDocument(ValueError):
    """A stored value that is not a document of this codec version."""


class DecoderSource:
    """Generates one decoder function per dataclass, as ``dataclasses`` generates ``__init__``:
    Python source built from field positions and type hints alone (nothing a store holds ever
    reaches it), compiled once at import.

    A generated decoder reads the parsed array by position, converts the fields that need it
    inline and sets the slots of a new instance directly: a frozen dataclass's ``__init__``
    calls ``object.__setattr__`` once per field, which for a catalog of runtimes costs more than
    the JSON parse. Nested values repeat across a catalog (``EntryRef``, ``SizeRange``,
    ``ModelRef``, ``PipelineComponent``, an ``Entry`` without a diffusion pipeline) and are
    shared: each distinct one is built once, found again by a key of its parsed array in a
    bounded table. The documents are immutable; nothing holding a dict is shared.
    """

    def __init__(self) -> None:
        self.names: dict[type, str] = {}
        self.functions: list[str] = []
        self.namespace: dict[str, Any] = {
            "_new": object.__new__,
            "_Unreadable": UnreadableDocument,
            "_object": _decoded_object,
        }
        self._temporaries = 0

    def _temporary(self) -> str:
        self._temporaries += 1
        return f"_t{self._temporaries}"

    def expression(self, hint: Any, source: str) -> str:
        """Python expression decoding ``source`` (an expression) of type ``hint``."""
        if is_plain(hint):
            return source
        inner, optional = unwrap_optional(hint)
        if optional:
            temporary = self._temporary()
            decoded = self.expression(inner, temporary)
            return f"(None if ({temporary} := {source}) is None else {decoded})"
        if (item_hint := sequence_item(hint)) is not None:
            if is_plain(item_hint):
                return f"tuple({source})"
            item = self._temporary()
            return f"tuple([{self.expression(item_hint, item)} for {item} in {source}])"
        if is_json_object(hint):
            return f"_object({source})"
        if (value_hint := mapping_value(hint)) is not None:
            if is_plain(value_hint):
                return f"dict({source})"
            key, item = self._temporary(), self._temporary()
            decoded = self.expression(value_hint, item)
            return f"{{{key}: {decoded} for {key}, {item} in {source}.items()}}"
        if isinstance(hint, type) and is_dataclass(hint):
            return f"{self.function(hint)}({source})"
        raise TypeError(f"no stored form for {hint!r}")

    def key(self, hint: Any, source: str) -> str | None:
        """Python expression for a hashable key of ``source``'s value, equal for equal values
        and only for them; ``None`` when the value holds something shared values must not
        (a dict: mutable) or a field that may hold both a bool and an int (``True == 1``)."""
        if is_plain(hint):
            return source if not {bool, int} <= set(plain_types(hint)) else None
        inner, optional = unwrap_optional(hint)
        if optional:
            temporary = self._temporary()
            inner_key = self.key(inner, temporary)
            if inner_key is None:
                return None
            return f"(None if ({temporary} := {source}) is None else {inner_key})"
        if (item_hint := sequence_item(hint)) is not None:
            if is_plain(item_hint):
                return f"tuple({source})" if self.key(item_hint, "x") is not None else None
            item = self._temporary()
            item_key = self.key(item_hint, item)
            return None if item_key is None else f"tuple([{item_key} for {item} in {source}])"
        if isinstance(hint, type) and is_dataclass(hint):
            return self._fields_key(hint, source)[0]
        return None

    def _fields_key(self, kind: type, source: str) -> tuple[str | None, list[str]]:
        """The key of a ``kind`` array and the conditions under which there is one (fields
        that cannot be keyed but may be ``None``); ``(None, [])`` when there is none."""
        hints = type_hints(kind)
        members = fields(kind)
        if all(is_plain(hints[field.name]) for field in members):
            keys = [self.key(hints[field.name], "x") for field in members]
            return (None, []) if None in keys else (f"tuple({source})", [])
        parts: list[str] = []
        conditions: list[str] = []
        for n, field in enumerate(members):
            part = self.key(hints[field.name], f"{source}[{n}]")
            if part is None:
                if not unwrap_optional(hints[field.name])[1]:
                    return None, []
                conditions.append(f"{source}[{n}] is None")
                part = "None"
            parts.append(part)
        if conditions and source != "v":
            return None, []  # conditions are only checked at the top of a decoder
        return f"({', '.join(parts)},)", conditions

    def function(self, kind: type, *, shareable: bool = True) -> str:
        """The name of ``kind``'s decoder; generates it, and those of its fields, once.

        A shareable class is looked up in its shared table by a key of the raw array first.
        A field that cannot be part of a key (a diffusion pipeline, which holds dicts) but may
        be ``None`` leaves sharing to the values where it is ``None``.
        """
        if kind in self.names:
            return self.names[kind]
        name = self.names[kind] = f"_decode{len(self.names)}"
        hints = type_hints(kind)
        members = fields(kind)
        self.namespace[f"{name}_class"] = kind
        values = [self.expression(hints[field.name], f"v[{n}]") for n, field in enumerate(members)]
        key, conditions = self._fields_key(kind, "v") if shareable else (None, [])
        lines = [f"def {name}(v):"]
        if key is not None:
            self.namespace[f"{name}_shared"] = {}
            indent = "    "
            if conditions:
                lines += ["    key = None", f"    if {' and '.join(conditions)}:"]
                indent = "        "
            lines += [
                f"{indent}key = {key}",
                f"{indent}o = {name}_shared.get(key)",
                f"{indent}if o is not None:",
                f"{indent}    return o",
            ]
        lines += [
            f"    if type(v) is not list or len(v) != {len(members)}:",
            f"        raise _Unreadable('not {len(members)} fields')",
        ]
        if _settable_slots(kind):
            lines.append(f"    o = _new({name}_class)")
            for n, (field, value) in enumerate(zip(members, values, strict=True)):
                self.namespace[f"{name}_set{n}"] = kind.__dict__[field.name].__set__
                lines.append(f"    {name}_set{n}(o, {value})")
        else:
            lines.append(f"    o = {name}_class({', '.join(values)})")
        if key is not None:
            indent = "    "
            if conditions:
                lines.append("    if key is not None:")
                indent = "        "
            lines += [
                f"{indent}if len({name}_shared) >= {SHARED_LIMIT}:",
                f"{indent}    {name}_shared.clear()",
                f"{indent}{name}_shared[key] = o",
            ]
        lines.append("    return o")
        self.functions.append("\n".join(lines))
        return name

    def compile(self) -> dict[str, Any]:
        exec("\n\n".join(self.functions), self.namespace)  # our own source: see the docstring
        return self.namespace


def _decoded_object(value: Any) -> dict:
    if type(value) is not dict:
        raise UnreadableDocument("not a JSON object")
    return value


def _settable_slots(kind: type) -> bool:
    """Whether an instance is exactly its slots set from the field values: a frozen slotted
    dataclass with no ``__post_init__``; any other class is built through its constructor."""
    params = getattr(kind, "__dataclass_params__", None)
    return (
        params is not None
        and params.frozen
        and "__slots__" in kind.__dict__
        and not hasattr(kind, "__post_init__")
    )


def generate_decoders(tags: dict[type, str]) -> dict[str, Callable[[list], Any]]:
    """One decoder per top-level class, by tag; each takes the array of the class's fields."""
    source = DecoderSource()
    # Top-level documents are rarely equal to one another: not worth a shared table.
    names = {tag: source.function(kind, shareable=False) for kind, tag in tags.items()}
    namespace = source.compile()
    return {tag: namespace[name] for tag, name in names.items()}


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
    if is_json_object(hint):

        def json_object(value: Any) -> dict:
            if type(value) is not dict or not is_json_value(value):
                raise TypeError(f"{type(value).__name__} where a JSON object belongs")
            return value

        return json_object
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
    hints = type_hints(kind)
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
        while value[0] in _APPENDED:
            _from_older(value)
        if value[0] != CODEC_VERSION:
            raise UnreadableDocument(f"stored with codec version {value[0]!r}, not {CODEC_VERSION}")
        return _DECODE_BY_TAG[value[1]](value[2:])
    except UnreadableDocument:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as error:
        raise UnreadableDocument(f"not a stored document: {error!r}") from None


def _from_older(value: list) -> None:
    """An older value as the next version writes it, in place (the appended fields absent)."""
    entries_of, appended_to = _APPENDED[value[0]]
    if value[1] == entries_of:
        for entry in value[_RUNTIME_ENTRIES]:
            entry.append(None)
    elif value[1] == appended_to:
        value.append(None)
    value[0] += 1


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
        hints = type_hints(kind)
        found[kind.__name__] = [
            f"{field.name}: {spelling(hints[field.name])}" for field in fields(kind)
        ]
        for field in fields(kind):
            for nested in dataclasses_in(hints[field.name]):
                visit(nested)

    for kind in DOCUMENT_TAGS:
        visit(kind)
    return found
