"""A fast loader for the common, well-formed runtime document.

marshmallow's load of a real runtime manifest (a dozen nested schema loads and some 60 field
deserialisations) was most of a cold request's time (bench/README.md "Figures behind the code").
Almost every runtime a cluster sends is plain: strings where strings belong, integers where integers
belong, no diffusion pipeline. ``load_runtime`` builds the same ``Runtime`` as
``RuntimeDocumentSchema`` for those, many times faster (the runtime's own fields checked in Python,
its entries, the bulk of it, by msgspec in C), and returns ``None`` for anything else — an
error, a null where a value may be null in an unusual way, a float priority, a diffusion pipeline —
so that marshmallow decides it and reports its errors with their paths. It never rejects a document
and never builds one the schema would not: ``tests/schemas/test_fast_runtime.py`` checks that it
agrees with the schema on generated documents, valid and not.
"""

from __future__ import annotations

from typing import Annotated, Any, cast

import msgspec

from app.selection import values as doc
from app.selection.values import MAX_VALUE_CHARS, is_json_value

from .names import is_namespace, is_object_name
from .ome_kinds import (
    API_VERSION,
    DEPLOYMENT_MODE_ANNOTATION,
    INHERIT_FROM_ANNOTATION,
    PRIORITY_MAX,
    PRIORITY_MIN,
    RUNTIME_KINDS,
    WEIGHT_MAX,
    WEIGHT_MIN,
)

NOT_PLAIN = object()  # a field this loader leaves to marshmallow


def any_not_plain(values: tuple) -> bool:
    return any(value is NOT_PLAIN for value in values)


_MAX = MAX_VALUE_CHARS  # every string the rules read is bounded (the schema's BoundedString)


def plain_str(value: Any) -> Any:
    return value if value is None or (type(value) is str and len(value) <= _MAX) else NOT_PLAIN


def plain_bool(value: Any) -> Any:
    return value if value is None or type(value) is bool else NOT_PLAIN


class NotPlain(Exception):
    """Raised by the entries' loaders (the bulk of a document): a value left to marshmallow.
    Raising spares every plain entry a check of what it returned."""


def _entry_ref(value: Any) -> doc.EntryRef:
    """A ``modelFormat`` / ``modelFramework`` that is set (not null): its shared EntryRef."""
    if type(value) is not dict:
        raise NotPlain
    get = value.get
    name, version, operator, weight = get("name"), get("version"), get("operator"), get("weight")
    if weight is None:
        weight = 1  # §1.2
    elif type(weight) is not int or not WEIGHT_MIN <= weight <= WEIGHT_MAX:
        raise NotPlain
    if (
        type(name) is not str
        or len(name) > _MAX
        or (version is not None and (type(version) is not str or len(version) > _MAX))
        or (operator is not None and (type(operator) is not str or len(operator) > _MAX))
    ):
        raise NotPlain
    return doc.ENTRY_REFS[name, version, operator, weight]  # exact types, checked above


def _entry(value: Any) -> doc.Entry:
    """An entry ``PlainEntry`` does not describe: one with an ``acceleratorConfig`` (a dict,
    so it is never shared), else ``NotPlain``."""
    if type(value) is not dict:
        raise NotPlain
    get = value.get
    name, version = get("name"), get("version")
    architecture, quantization = get("modelArchitecture"), get("quantization")
    auto_select, priority = get("autoSelect"), get("priority")
    fmt, framework = get("modelFormat"), get("modelFramework")
    providers, config = get("modelCacheProviders"), get("acceleratorConfig")
    if not (
        (name is None or (type(name) is str and len(name) <= _MAX))
        and (version is None or (type(version) is str and len(version) <= _MAX))
        and (architecture is None or (type(architecture) is str and len(architecture) <= _MAX))
        and (quantization is None or (type(quantization) is str and len(quantization) <= _MAX))
        and (auto_select is None or type(auto_select) is bool)
        and (priority is None or (type(priority) is int and 1 <= priority <= PRIORITY_MAX))
        and get("diffusionPipeline") is None
    ):
        raise NotPlain
    if fmt is not None:
        fmt = _entry_ref(fmt)
    if framework is not None:
        framework = _entry_ref(framework)
    if providers is not None:
        providers = _str_tuple(providers)
        if providers is NOT_PLAIN:
            raise NotPlain
    if config is not None and (type(config) is not dict or not is_json_value(config)):
        raise NotPlain
    return doc.Entry(
        name or "", fmt, framework, architecture, quantization, None, auto_select, priority,
        providers, version, config,
    )  # fmt: skip


# The plain entry, described to msgspec, whose ``convert`` checks a runtime's whole list of entry
# dicts in C against exactly the conditions ``_entry`` writes out (exact types: no bool for an
# int, no float; the same bounds), several times faster than the checks in Python, and builds a
# frozen, hashable value of each: the key of the shared Entry below. Keys it does not name are
# ignored, as everywhere in this loader; an ``acceleratorConfig`` or ``diffusionPipeline`` that is
# not null, a null ``name`` or reference ``weight`` (read as "" and 1) fail the list, which
# ``_entry`` then takes entry by entry.
#
# Its attributes are ``Entry``'s (the manifest's names renamed, the absent weight 1, the
# ``effective_priority``), and the rules read an entry through them alone: a request decoded
# straight into its runtimes (``runtime_from_document``) keeps the decoded ``PlainEntry`` values
# as its entries, built in C with the body, rather than an ``Entry`` made in Python for each
# (most of the cost of a body never seen before; bench/README.md, round 10). The two are never
# compared with each other: a request's entries are all of one kind, and nothing of a ranking
# request is stored.
_Text = Annotated[str, msgspec.Meta(max_length=_MAX)]


class _PlainRef(msgspec.Struct, frozen=True, gc=False):
    name: _Text
    version: _Text | None = None
    operator: _Text | None = None
    weight: Annotated[int, msgspec.Meta(ge=WEIGHT_MIN, le=WEIGHT_MAX)] = 1  # §1.2


class PlainEntry(msgspec.Struct, frozen=True, gc=False):
    """A plain entry, with the attributes of ``Entry`` (the manifest's names, renamed)."""

    name: _Text = ""
    format: _PlainRef | None = msgspec.field(default=None, name="modelFormat")
    framework: _PlainRef | None = msgspec.field(default=None, name="modelFramework")
    architecture: _Text | None = msgspec.field(default=None, name="modelArchitecture")
    quantization: _Text | None = None
    diffusion: None = msgspec.field(default=None, name="diffusionPipeline")
    auto_select: bool | None = msgspec.field(default=None, name="autoSelect")
    priority: Annotated[int, msgspec.Meta(ge=PRIORITY_MIN, le=PRIORITY_MAX)] | None = None
    cache_providers: tuple[_Text, ...] | None = msgspec.field(
        default=None, name="modelCacheProviders"
    )
    version: _Text | None = None
    accelerator_config: None = msgspec.field(default=None, name="acceleratorConfig")

    @property
    def effective_priority(self) -> int:
        return 1 if self.priority is None else self.priority


_PLAIN_ENTRIES = tuple[PlainEntry, ...]


def _shared_ref(ref: _PlainRef | None) -> doc.EntryRef | None:
    if ref is None:
        return None
    return doc.ENTRY_REFS[ref.name, ref.version, ref.operator, ref.weight]


def _shared_entry(plain: PlainEntry) -> doc.Entry:
    return doc.Entry(
        plain.name, _shared_ref(plain.format), _shared_ref(plain.framework), plain.architecture,
        plain.quantization, None, plain.auto_select, plain.priority, plain.cache_providers,
        plain.version,
    )  # fmt: skip


# Entries repeat across a cluster's runtimes: one frozen Entry serves every plain entry with the
# same fields (its ``PlainEntry``, compared by value). Bounded: cleared when full.
_MAX_ENTRIES = 4096
_ENTRIES: doc.MadeOnUse[PlainEntry, doc.Entry] = doc.MadeOnUse(_shared_entry, _MAX_ENTRIES)


def _entries(values: list) -> tuple[doc.Entry, ...]:
    """The Entries of ``spec.supportedModelFormats`` (a list), or ``NotPlain``."""
    try:
        plain = msgspec.convert(values, _PLAIN_ENTRIES)
    except msgspec.ValidationError:
        return tuple(map(_one_entry, values))
    shared = _ENTRIES
    return tuple([shared[entry] for entry in plain])


def _one_entry(value: Any) -> doc.Entry:
    try:
        return _ENTRIES[msgspec.convert(value, PlainEntry)]
    except msgspec.ValidationError:
        return _entry(value)


def _str_tuple(value: Any) -> Any:
    if value is None:
        return None
    if type(value) is not list:
        return NOT_PLAIN
    for item in value:  # (a loop: the lists are short, and a generator cost more than them)
        if type(item) is not str or len(item) > _MAX:
            return NOT_PLAIN
    return tuple(value)


def _mode_annotation(config: Any) -> Any:
    """``engineConfig`` / ``decoderConfig``: the deployment-mode annotation, or None."""
    if config is None:
        return None
    if type(config) is not dict:
        return NOT_PLAIN
    return _mode(config.get("annotations"))


def _mode(annotations: Any) -> Any:
    """The deployment-mode annotation of a config's ``annotations``, or None."""
    if annotations is None:
        return None
    if type(annotations) is not dict:
        return NOT_PLAIN
    return plain_str(annotations.get(DEPLOYMENT_MODE_ANNOTATION))


def _inherit_from(annotations: Any) -> Any:
    """rules §7: the parent named by ``ome.io/inherit-from`` in the runtime's ``annotations``;
    absent, null or "" is none."""
    if annotations is None:
        return None
    if type(annotations) is not dict:
        return NOT_PLAIN
    parent = plain_str(annotations.get(INHERIT_FROM_ANNOTATION))
    return parent if parent is NOT_PLAIN else (parent or None)


def _size_range(value: Any) -> Any:
    if value is None:
        return None
    if type(value) is not dict:
        return NOT_PLAIN
    low, high = value.get("min"), value.get("max")
    if plain_str(low) is NOT_PLAIN or plain_str(high) is NOT_PLAIN:
        return NOT_PLAIN
    return doc.SIZE_RANGES[low, high]  # exact types, checked above


def _accelerator_classes(value: Any) -> Any:
    if value is None:
        return None
    if type(value) is not dict:
        return NOT_PLAIN
    return _str_tuple(value.get("acceleratorClasses"))


# The kind as one shared string: the rules read it at every step (is_cluster), and the decoded
# body's own copy of it, one per runtime, sat wherever the decoder put it.
_KINDS = {kind: kind for kind in RUNTIME_KINDS}


def _identity(kind: Any, api_version: Any, name: Any, namespace: Any) -> tuple[str, str] | None:
    """The runtime's kind (the shared string) and name when its kind, apiVersion, name and
    namespace are plain and valid, else None."""
    kind = _KINDS.get(kind) if type(kind) is str else None
    if kind is None or (api_version is not None and api_version != API_VERSION):
        return None
    if not is_object_name(name) or (namespace is not None and not is_namespace(namespace)):
        return None
    return kind, name


def load_runtime(value: Any) -> doc.Runtime | None:
    """The ``Runtime`` of a plain, valid runtime document, or ``None`` to ask marshmallow."""
    if type(value) is not dict:
        return None
    metadata, spec = value.get("metadata"), value.get("spec")
    if type(metadata) is not dict or type(spec) is not dict:
        return None
    namespace = metadata.get("namespace")
    identity = _identity(
        value.get("kind"), value.get("apiVersion"), metadata.get("name"), namespace
    )
    if identity is None:
        return None
    kind, name = identity
    disabled = spec.get("disabled")
    parent = _inherit_from(metadata.get("annotations"))
    if plain_bool(disabled) is NOT_PLAIN or parent is NOT_PLAIN:
        return None
    raw_entries = spec.get("supportedModelFormats")
    if raw_entries is None:
        entries: tuple = ()
    elif type(raw_entries) is list:
        try:
            entries = _entries(raw_entries)
        except NotPlain:
            return None
    else:
        return None
    size_range = _size_range(spec.get("modelSizeRange"))
    classes = _accelerator_classes(spec.get("acceleratorRequirements"))
    engine_mode = _mode_annotation(spec.get("engineConfig"))
    decoder_mode = _mode_annotation(spec.get("decoderConfig"))
    protocols = _str_tuple(spec.get("protocolVersions"))
    if (
        size_range is NOT_PLAIN
        or classes is NOT_PLAIN
        or engine_mode is NOT_PLAIN
        or decoder_mode is NOT_PLAIN
        or protocols is NOT_PLAIN
    ):
        return None
    # kind, name, namespace, disabled, entries, size_range, accelerator_classes, the engine's and
    # the decoder's mode annotations, protocol_versions, inherit_from (positional: cheaper).
    return doc.Runtime(
        kind, name, namespace or None, disabled, entries, size_range, classes, engine_mode,
        decoder_mode, protocols or (), parent,
    )  # fmt: skip


# The same runtime document described to msgspec, for a request body decoded straight into it
# (app/reading/fast_request.py): msgspec checks what a type says (objects where ``load_runtime``
# wants dicts; the entries, size range, accelerator classes and protocol versions in full), skips
# every member no rule reads (containers, labels, most of a config) without building it, and
# ``runtime_from_document`` checks the rest as ``load_runtime`` does. What is typed ``Any`` is
# decoded as the standard library's decoder would (exact integers, the last duplicate key wins).


class _SizeRangeDocument(msgspec.Struct, frozen=True, gc=False):
    min: _Text | None = None
    max: _Text | None = None


class _AcceleratorRequirements(msgspec.Struct, frozen=True, gc=False):
    acceleratorClasses: tuple[_Text, ...] | None = None  # (the manifest's own field names)


class _Config(msgspec.Struct, frozen=True):
    annotations: dict[str, Any] | None = None


class _Metadata(msgspec.Struct, frozen=True):
    name: Any = None
    namespace: Any = None
    annotations: dict[str, Any] | None = None


class _Spec(msgspec.Struct, frozen=True):
    disabled: bool | None = None
    supportedModelFormats: tuple[PlainEntry, ...] | None = None
    modelSizeRange: _SizeRangeDocument | None = None
    acceleratorRequirements: _AcceleratorRequirements | None = None
    engineConfig: _Config | None = None
    decoderConfig: _Config | None = None
    protocolVersions: tuple[_Text, ...] | None = None


class RuntimeDocument(msgspec.Struct, frozen=True):
    """A runtime document whose objects are where ``load_runtime`` wants them."""

    metadata: _Metadata
    spec: _Spec
    kind: Any = None
    apiVersion: Any = None


def runtime_from_document(value: RuntimeDocument) -> doc.Runtime | None:
    """``load_runtime`` of the same document, decoded as ``RuntimeDocument``; ``None`` where
    ``load_runtime`` would give None. Its entries are the decoded ``PlainEntry`` values (above),
    read as ``Entry`` values are."""
    metadata, spec = value.metadata, value.spec
    namespace = metadata.namespace
    identity = _identity(value.kind, value.apiVersion, metadata.name, namespace)
    if identity is None:
        return None
    kind, name = identity
    parent = _inherit_from(metadata.annotations)
    if parent is NOT_PLAIN:
        return None
    engine, decoder = spec.engineConfig, spec.decoderConfig
    engine_mode = None if engine is None else _mode(engine.annotations)
    decoder_mode = None if decoder is None else _mode(decoder.annotations)
    if engine_mode is NOT_PLAIN or decoder_mode is NOT_PLAIN:
        return None
    plain, bounds = spec.supportedModelFormats, spec.modelSizeRange
    requirements = spec.acceleratorRequirements
    return doc.Runtime(
        kind, name, namespace or None, spec.disabled,
        () if plain is None else cast(tuple[doc.Entry, ...], plain),
        None if bounds is None else doc.SIZE_RANGES[bounds.min, bounds.max],
        None if requirements is None else requirements.acceleratorClasses,
        engine_mode, decoder_mode, spec.protocolVersions or (), parent,
    )  # fmt: skip
