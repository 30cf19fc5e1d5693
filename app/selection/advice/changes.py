"""Changes to a runtime's spec, as a way out of a ``No`` row names them (way_out.py), and how
they apply to a normalised entry, so that the checks can be run again on the result.

A change sets one field of the runtime's ``spec`` (``entry`` None) or of one of its
``supportedModelFormats`` entries to a value; ``None`` removes the field. Field paths are the
manifest's, so a person (or a script) applies them to the YAML as written:
``modelFramework.version``, ``acceleratorRequirements.acceleratorClasses``,
``engineConfig.annotations["ome.io/deploymentMode"]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from ..values import Entry, EntryRef, quick_init, shared_entry_ref

Value = str | bool | int | tuple[str, ...] | None

DISABLED = "disabled"
ACCELERATOR_CLASSES = "acceleratorRequirements.acceleratorClasses"
ENGINE_MODE = 'engineConfig.annotations["ome.io/deploymentMode"]'
DECODER_MODE = 'decoderConfig.annotations["ome.io/deploymentMode"]'
SIZE_MIN, SIZE_MAX = "modelSizeRange.min", "modelSizeRange.max"
CACHE_PROVIDERS = "modelCacheProviders"
DIFFUSION = "diffusionPipeline"
ARCHITECTURE = "modelArchitecture"
QUANTIZATION = "quantization"
AUTO_SELECT = "autoSelect"
FORMAT, FRAMEWORK = "modelFormat", "modelFramework"


@quick_init
@dataclass(frozen=True, slots=True)
class Change:
    """Set ``field`` (of entry ``entry``, or of the spec) to ``value``; ``check`` is the label
    of the failure it cures (checks.LABELS)."""

    check: str
    field: str
    value: Value
    entry: int | None = None


def _text(value: Value) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"not a string: {value!r}")
    return value


def _flag(value: Value) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"not a boolean: {value!r}")
    return value


def _names(value: Value) -> tuple[str, ...] | None:
    if value is not None and not isinstance(value, tuple):
        raise ValueError(f"not a list: {value!r}")
    return value


def _ref(ref: EntryRef | None, key: str, value: Value) -> EntryRef | None:
    """``modelFormat``/``modelFramework`` with ``key`` set; an absent object is created, as
    setting a nested field in a manifest creates it. (Constructors, not ``replace``: a way out
    is computed for every ``No`` row, and ``replace`` costs several times more.)"""
    if key == "" and value is None:
        return None
    name, version, operator, weight = (
        ("", None, None, 1) if ref is None else (ref.name, ref.version, ref.operator, ref.weight)
    )
    if key == "weight" and (value is None or type(value) is int):
        weight = 1 if value is None else value
    elif key == "name":
        name = _text(value) or ""
    elif key == "version":
        version = _text(value)
    elif key == "operator":
        operator = _text(value)
    else:
        raise ValueError(f"not a change of an entry's reference: {key}={value!r}")
    if type(name) is not str or type(weight) is not int:  # not the loaded, plain case
        return EntryRef(name, version, operator, weight)
    return shared_entry_ref(name, version, operator, weight)


_ENTRY_FIELDS = tuple(Entry.__dataclass_fields__)
_ENTRY_VALUES = attrgetter(*_ENTRY_FIELDS)  # every field, in order, in one C call
_FIELD_AT = {name: index for index, name in enumerate(_ENTRY_FIELDS)}
_FORMAT_AT, _FRAMEWORK_AT, _DIFFUSION_AT = (
    _FIELD_AT[f] for f in ("format", "framework", "diffusion")
)
_ENTRY_KEYS = {
    CACHE_PROVIDERS: (_FIELD_AT["cache_providers"], _names),
    ARCHITECTURE: (_FIELD_AT["architecture"], _text),
    QUANTIZATION: (_FIELD_AT["quantization"], _text),
    AUTO_SELECT: (_FIELD_AT["auto_select"], _flag),
}


def apply_to_entry(entry: Entry, changes: list[Change] | tuple[Change, ...]) -> Entry:
    """``entry`` with ``changes`` applied, in order, built once (a way out is computed for
    every ``No`` row: ``replace`` per change would cost several times more)."""
    values = list(_ENTRY_VALUES(entry))
    for change in changes:
        field, value = change.field, change.value
        head, _, key = field.partition(".")
        if head == FORMAT:
            values[_FORMAT_AT] = _ref(values[_FORMAT_AT], key, value)
        elif head == FRAMEWORK:
            values[_FRAMEWORK_AT] = _ref(values[_FRAMEWORK_AT], key, value)
        elif field == DIFFUSION and value is None:
            values[_DIFFUSION_AT] = None
        elif field in _ENTRY_KEYS:
            at, read = _ENTRY_KEYS[field]
            values[at] = read(value)
        else:
            raise ValueError(f"not a change an entry takes: {field}={value!r}")
    return Entry(*values)
