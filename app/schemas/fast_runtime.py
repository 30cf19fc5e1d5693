"""A plain-Python loader for the common, well-formed runtime document.

marshmallow's load of a real runtime manifest (a dozen nested schema loads and some 60 field
deserialisations) was most of a cold request's time (bench/README.md "Figures behind the code").
Almost every runtime a cluster sends is plain: strings where strings belong, integers where integers
belong, no diffusion pipeline. ``load_runtime`` builds the same ``Runtime`` as
``RuntimeDocumentSchema`` for those, many times faster, and returns ``None`` for anything else — an
error, a null where a value may be null in an unusual way, a float priority, a diffusion pipeline —
so that marshmallow decides it and reports its errors with their paths. It never rejects a document
and never builds one the schema would not: ``tests/schemas/test_fast_runtime.py`` checks that it
agrees with the schema on generated documents, valid and not.
"""

from __future__ import annotations

from typing import Any

from app.selection import values as doc
from app.selection.values import MAX_VALUE_CHARS, is_json_value

from .names import is_namespace, is_object_name
from .ome_kinds import (
    API_VERSION,
    DEPLOYMENT_MODE_ANNOTATION,
    INHERIT_FROM_ANNOTATION,
    PRIORITY_MAX,
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


# Entries repeat across a cluster's runtimes too: one frozen Entry serves every plain one with the
# same fields (an acceleratorConfig, a dict, makes its own). Bounded: cleared when full.
_ENTRIES: dict[tuple, doc.Entry] = {}
_MAX_ENTRIES = 4096


def _entry(value: Any) -> doc.Entry:
    if type(value) is not dict:
        raise NotPlain
    get = value.get  # (the checks are written out: a call per field cost a tenth of a load)
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
    name = name or ""
    if config is not None:
        if type(config) is not dict or not is_json_value(config):
            raise NotPlain
        return doc.Entry(
            name, fmt, framework, architecture, quantization, None, auto_select, priority,
            providers, version, config,
        )  # fmt: skip
    # The references by identity: each shared entry holds its own, so none is reused meanwhile.
    key = (
        name, id(fmt), id(framework), architecture, quantization, auto_select, priority,
        providers, version,
    )  # fmt: skip
    found = _ENTRIES.get(key)
    if found is None:
        if len(_ENTRIES) >= _MAX_ENTRIES:
            _ENTRIES.clear()
        found = _ENTRIES[key] = doc.Entry(
            name, fmt, framework, architecture, quantization, None, auto_select, priority,
            providers, version,
        )  # fmt: skip
    return found


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
    annotations = config.get("annotations")
    if annotations is None:
        return None
    if type(annotations) is not dict:
        return NOT_PLAIN
    return plain_str(annotations.get(DEPLOYMENT_MODE_ANNOTATION))


def _inherit_from(metadata: dict) -> Any:
    """rules §7: the parent named by ``ome.io/inherit-from``; absent, null or "" is none."""
    annotations = metadata.get("annotations")
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


def load_runtime(value: Any) -> doc.Runtime | None:
    """The ``Runtime`` of a plain, valid runtime document, or ``None`` to ask marshmallow."""
    if type(value) is not dict:
        return None
    kind, metadata, spec = value.get("kind"), value.get("metadata"), value.get("spec")
    api_version = value.get("apiVersion")
    kind = _KINDS.get(kind) if type(kind) is str else None
    if (
        kind is None
        or (api_version is not None and api_version != API_VERSION)
        or type(metadata) is not dict
        or type(spec) is not dict
    ):
        return None
    name, namespace = metadata.get("name"), metadata.get("namespace")
    disabled = spec.get("disabled")
    if not is_object_name(name) or (namespace is not None and not is_namespace(namespace)):
        return None
    parent = _inherit_from(metadata)
    if plain_bool(disabled) is NOT_PLAIN or parent is NOT_PLAIN:
        return None
    raw_entries = spec.get("supportedModelFormats")
    if raw_entries is None:
        entries: tuple = ()
    elif type(raw_entries) is list:
        try:
            entries = tuple(map(_entry, raw_entries))
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
