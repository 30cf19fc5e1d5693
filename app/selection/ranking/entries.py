"""One ``supportedModelFormats`` entry against the model: match (rules §3.1),
mismatch text (§3.2), entry score (§4) and the explain WEIGHT column (§6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ..values import Entry, EntryRef, MadeOnUse, Model, ModelRef, go_quote, versions_match
from .diffusion import diffusion_mismatch

# rules §4: an explicit weight of 0 counts as 10 (format) and 5 (framework).
ZERO_FORMAT_WEIGHT = 10
ZERO_FRAMEWORK_WEIGHT = 5


def model_format(model: Model) -> ModelRef:
    """The ``modelFormat`` of a model being ranked: the rules read a model's format only once
    it is Ready (``rank_runtimes`` answers ``ModelNotReady`` before any runtime is checked,
    rules §15), and a Ready model has one."""
    # cast: "Ready" is a fact about the value that the type Model does not carry. The cast
    # changes nothing at run time: a model without a format still fails where it is read.
    return cast(ModelRef, model.format)


def model_label(model: Model) -> str:
    """rules §3.3, e.g. ``mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0.dev0``."""
    fmt = model_format(model)
    parts = ["mt", fmt.name]
    for value in (fmt.version, model.architecture, model.quantization):
        if value is not None:
            parts.append(value)
    if model.framework is not None:
        parts.append(model.framework.name)
        if model.framework.version is not None:
            parts.append(model.framework.version)
    return ":".join(parts)


def versions_agree(model: ModelRef, entry: EntryRef) -> bool:
    """rules §3.1: both set and matching, or both absent."""
    if model.version is None or entry.version is None:
        return model.version is None and entry.version is None
    return versions_match(model.version, entry.version, entry.operator)


def configured_provider(provider: str | None) -> str:
    """rules §3.1: the configured model cache provider, trimmed; "" when none is configured."""
    return "" if provider is None else provider.strip()


def supports_cache_provider(model: Model, entry: Entry, provider: str) -> bool:
    """rules §3.1: only a sharded model needs its entry to list the configured provider
    (``provider`` already trimmed; the entry's values are compared as written)."""
    if not model.is_sharded:
        return True
    if provider == "" or not entry.cache_providers:
        return False
    return provider in entry.cache_providers


def _cache_provider_mismatch(entry: Entry, provider: str) -> str:
    """rules §3.2, first part: why a sharded model cannot load through this entry."""
    if provider == "":
        return "no model cache provider is configured for sharded model loading"
    if not entry.cache_providers:
        return f"runtime format does not support model cache provider {go_quote(provider)}"
    listed = ", ".join(entry.cache_providers)
    return f"runtime format supports model cache providers [{listed}], not {go_quote(provider)}"


def entry_matches(model: Model, entry: Entry, provider: str = "") -> bool:
    if not supports_cache_provider(model, entry, provider):
        return False
    if entry.architecture != model.architecture or entry.quantization != model.quantization:
        return False
    fmt, model_fmt = entry.format, model_format(model)
    if fmt is None or fmt.name != model_fmt.name or not versions_agree(model_fmt, fmt):
        return False
    framework, wanted = model.framework, entry.framework
    if framework is None or wanted is None:
        if framework is not None or wanted is not None:  # only one side sets a framework
            return False
    elif framework.name != wanted.name or not versions_agree(framework, wanted):
        return False
    return diffusion_mismatch(model.diffusion, entry.diffusion) is None


def _version_mismatch(what: str, model: ModelRef, entry: EntryRef) -> str | None:
    return _version_text(what, model.version, entry.version, entry.operator)


def _version_text(
    what: str, model_version: str | None, version: str | None, operator: str | None
) -> str | None:
    if model_version is not None and version is not None:
        if versions_match(model_version, version, operator):
            return None
        return f"{what} version mismatch (model={model_version}, runtime={version})"
    if version is not None:
        return f"model has no {what} version but runtime requires {version}"
    if model_version is not None:
        return f"model has {what} version but runtime has no version requirement"
    return None


def _presence_mismatch(what: str, model_value: str | None, entry_value: str | None) -> str:
    """rules §3.2 on an architecture or quantization that differs."""
    if model_value is None:
        return f"model has no {what} but runtime requires {entry_value}"
    if entry_value is None:
        return f"model has {what} {model_value} but runtime has no {what} requirement"
    return f"{what} mismatch (model={model_value}, runtime={entry_value})"


Verdict = Callable[[Entry], str | None]
_VersionKey = tuple[str | None, str | None]  # an entry reference's version and operator
_MISSING: Any = object()


def entry_verdicts(model: Model, provider: str = "") -> Verdict:
    """Check 4 of rules §3 on one entry, for ``model``: ``None`` when the entry matches (§3.1,
    as ``entry_matches``), else why not (§3.2, as ``entry_mismatch``). The model's side is read
    once here; the function returned reads only the entry, and builds a text only for a part
    that differs (most entries a runtime lists fail, and every text is read when all do). The
    texts of the parts, each of which reads one or two of the entry's values (its architecture,
    its quantization, a format's or framework's name that differs, or its version and
    operator), are made once per distinct value and looked up after: entries that share no
    whole set of fields still share those, and an entry costs a few lookups."""
    model_fmt = model_format(model)
    format_name = model_fmt.name
    architecture, quantization = model.architecture, model.quantization
    framework = model.framework
    framework_name = None if framework is None else framework.name
    sharded, diffusion = model.is_sharded, model.diffusion
    architectures: MadeOnUse[str | None, str] = MadeOnUse(
        lambda value: _presence_mismatch("architecture", architecture, value)
    )
    quantizations: MadeOnUse[str | None, str] = MadeOnUse(
        lambda value: _presence_mismatch("quantization", quantization, value)
    )
    format_names: MadeOnUse[str, str] = MadeOnUse(
        lambda name: f"format name mismatch (model={format_name}, runtime={name})"
    )
    framework_names: MadeOnUse[str, str] = MadeOnUse(
        lambda name: (
            f"model has no framework but runtime requires {name}"
            if framework is None
            else f"framework name mismatch (model={framework_name}, runtime={name})"
        )
    )
    format_version = model_fmt.version
    framework_version = None if framework is None else framework.version
    # By an entry reference's version and operator: its text, or None where they match (most
    # entries carry their own, so a miss is written out here, without a call to make it).
    format_versions: dict[_VersionKey, str | None] = {}
    framework_versions: dict[_VersionKey, str | None] = {}

    def verdict(entry: Entry) -> str | None:
        parts = []
        if sharded and not supports_cache_provider(model, entry, provider):
            parts.append(_cache_provider_mismatch(entry, provider))
        if entry.diffusion is not None:
            text = diffusion_mismatch(diffusion, entry.diffusion)
            if text is not None:
                parts.append(text)
        if entry.architecture != architecture:
            parts.append(architectures[entry.architecture])
        if entry.quantization != quantization:
            parts.append(quantizations[entry.quantization])
        fmt = entry.format
        if fmt is not None:
            if fmt.name != format_name:
                parts.append(format_names[fmt.name])
            elif fmt.version is not None or format_version is not None:
                key = fmt.version, fmt.operator
                text = format_versions.get(key, _MISSING)
                if text is _MISSING:
                    text = format_versions[key] = _version_text("format", format_version, *key)
                if text is not None:
                    parts.append(text)
        wanted = entry.framework
        if wanted is not None:
            if framework is None or wanted.name != framework_name:
                parts.append(framework_names[wanted.name])
            elif wanted.version is not None or framework_version is not None:
                key = wanted.version, wanted.operator
                text = framework_versions.get(key, _MISSING)
                if text is _MISSING:
                    text = framework_versions[key] = _version_text(
                        "framework", framework_version, *key
                    )
                if text is not None:
                    parts.append(text)
        elif framework is not None:
            parts.append(
                f"model has framework {framework_name} but runtime has no framework requirement"
            )
        if parts:
            return ", ".join(parts)
        return None if fmt is not None else NO_PART

    return verdict


NO_PART = "unknown mismatch"  # rules §3.2: an entry that fails no part it names (no modelFormat)


def entry_mismatch(model: Model, entry: Entry, provider: str = "") -> str:
    """rules §3.2: why this entry does not match, parts joined with ``, ``."""
    return entry_verdicts(model, provider)(entry) or NO_PART


def _score_version_ok(model: ModelRef, entry: EntryRef) -> bool:
    """rules §4: versions only matter when both sides set one (unlike §3.1)."""
    if model.version is None or entry.version is None:
        return True
    return versions_match(model.version, entry.version, entry.operator)


def entry_score(model: Model, entry: Entry, provider: str = "") -> int:
    """rules §4 entry score; architecture, quantization, diffusion and size play no part."""
    return entry_unit_score(model, entry, provider) * entry.effective_priority


def entry_unit_score(model: Model, entry: Entry, provider: str = "") -> int:
    """rules §4 entry score at priority 1 (each weight times the priority, summed: the score is
    this times the entry's priority). What each unit of priority adds (the advice), and the
    placement's score (§20.2), without building the entry again at another priority."""
    if not supports_cache_provider(model, entry, provider):
        return 0  # rules §4 step 0
    fmt = entry.format
    scored_format: EntryRef | None = None  # the entry's format, once it agrees with the model's
    if fmt is not None:
        model_fmt = model_format(model)
        if fmt.name != model_fmt.name or not _score_version_ok(model_fmt, fmt):
            return 0
        scored_format = fmt
    framework, wanted = model.framework, entry.framework
    scored_framework: EntryRef | None = None  # the entry's framework, once it agrees too
    if framework is not None and wanted is not None:
        if framework.name != wanted.name or not _score_version_ok(framework, wanted):
            return 0
        scored_framework = wanted
    elif framework is not None or wanted is not None:
        return 0  # rules §4 step 4: only one side sets a framework
    if scored_format is None and scored_framework is None:
        return 0  # no modelFormat and no framework on either side: nothing scored
    score = 0
    if scored_format is not None:
        score += scored_format.weight or ZERO_FORMAT_WEIGHT
    if scored_framework is not None:
        score += scored_framework.weight or ZERO_FRAMEWORK_WEIGHT
    return score


def row_weight(entry: Entry) -> int:
    """rules §6 WEIGHT column: raw weights, an explicit 0 (or a negative) adds 0."""
    priority = entry.effective_priority
    weight = 0
    if entry.format is not None and entry.format.weight > 0:
        weight += entry.format.weight * priority
    if entry.framework is not None and entry.framework.weight > 0:
        weight += entry.framework.weight * priority
    return weight
