"""The decoders of the stored documents, generated from the dataclasses (see ``DecoderSource``)."""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import Any

from .hints import is_plain, mapping_value, plain_types, sequence_item, unwrap_optional

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
        self.namespace: dict[str, Any] = {"_new": object.__new__, "_Unreadable": UnreadableDocument}
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
        hints = typing.get_type_hints(kind)
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
        hints = typing.get_type_hints(kind)
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
