"""The changes that make one ``supportedModelFormats`` entry match the model (rules §3.1, in the
order of §3.2's parts) or score above 0 (§4), each at the edge of what the rule accepts, or
what blocks them (way_out.py puts them together for a runtime)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from ..ranking import (
    LABEL_ARCHITECTURE,
    LABEL_DIFFUSION,
    LABEL_FORMAT_NAME,
    LABEL_FORMAT_VERSION,
    LABEL_FRAMEWORK,
    LABEL_FRAMEWORK_NAME,
    LABEL_FRAMEWORK_VERSION,
    LABEL_PROVIDER,
    LABEL_QUANTIZATION,
    LABEL_SCORE,
    ZERO_FRAMEWORK_WEIGHT,
    diffusion_mismatch,
    entry_score,
    model_format,
    supports_cache_provider,
    versions_agree,
)
from ..values import (
    GREATER_THAN,
    Entry,
    EntryRef,
    Model,
    ModelRef,
    parse_version,
    quick_init,
    versions_match,
)
from .changes import (
    ARCHITECTURE,
    CACHE_PROVIDERS,
    DIFFUSION,
    FORMAT,
    FRAMEWORK,
    QUANTIZATION,
    Change,
    apply_to_entry,
)

_UINT64_MAX = 2**64 - 1
NO_PROVIDER = (
    "no model cache provider is configured, so no entry can load a sharded model: the cluster's "
    "OME needs one (modelCacheProvider)"
)


@dataclass(frozen=True, slots=True)
class Blocker:
    """A failure no change to the entry cures; ``why`` says so."""

    check: str
    why: str


Fix = Change | Blocker


def version_accepting(model_version: str, operator: str | None) -> str | None:
    """The entry version nearest to the model's that ``operator`` accepts (§8), or None when
    none does (the model's version does not parse). The entry's version is the left side:
    ``GreaterThan`` needs one above the model's, at its precision and prefix."""
    parsed = parse_version(model_version)
    if parsed is None:
        return None
    if operator != GREATER_THAN or not parsed.is_plain:
        return model_version
    numbers = [parsed.major, parsed.minor, parsed.patch][: parsed.precision]
    if numbers[-1] == _UINT64_MAX:
        return None
    numbers[-1] += 1
    return parsed.prefix + ".".join(map(str, numbers))


def _version(
    label: str, what: str, model: ModelRef, entry: EntryRef | None, strict: bool, at: int | None
) -> list[Fix]:
    """The version of ``what`` (modelFormat / modelFramework) agreeing with the model's:
    ``strict`` (§3.1) needs both set and matching or both absent; the score (§4) only minds
    two set versions that do not match."""
    version = model.version
    have, operator = (None, None) if entry is None else (entry.version, entry.operator)
    if version is None or have is None:
        if not strict or version == have:
            return []
        if version is None:
            return [Change(label, _VERSION[what], None, at)]
    elif versions_match(version, have, operator):
        return []
    value = version_accepting(version, operator)
    if value is not None:
        return [Change(label, _VERSION[what], value, at)]
    if not strict:
        return [Change(label, _VERSION[what], None, at)]  # the score reads no version alone
    if parse_version(version) is None:
        why = (
            f"the model's {what}.version {version} does not parse as OME reads versions, "
            "so no entry version matches it"
        )
        return [Blocker(label, why)]
    # GreaterThan above the largest version: Equal (no operator) takes the model's own.
    return [Change(label, f"{what}.operator", None, at), Change(label, _VERSION[what], version, at)]


_NAME = {FORMAT: f"{FORMAT}.name", FRAMEWORK: f"{FRAMEWORK}.name"}
_VERSION = {FORMAT: f"{FORMAT}.version", FRAMEWORK: f"{FRAMEWORK}.version"}


def _reference(
    labels: tuple[str, str, str],
    what: str,
    model: ModelRef | None,
    entry: EntryRef | None,
    strict: bool,
    at: int | None,
) -> list[Fix]:
    """modelFormat or modelFramework: name, then version (labels: name, version, presence)."""
    name_label, version_label, presence_label = labels
    if model is None:
        return [] if entry is None else [Change(presence_label, what, None, at)]
    fixes = _version(version_label, what, model, entry, strict, at)
    if entry is None or entry.name != model.name:
        label = presence_label if entry is None else name_label
        fixes.insert(0, Change(label, _NAME[what], model.name, at))
    return fixes


def _provider(model: Model, entry: Entry, provider: str, label: str, at: int | None) -> list[Fix]:
    if supports_cache_provider(model, entry, provider):
        return []
    if provider == "":
        return [Blocker(label, NO_PROVIDER)]
    return [Change(label, CACHE_PROVIDERS, (*(entry.cache_providers or ()), provider), at)]


_FORMAT_LABELS = (LABEL_FORMAT_NAME, LABEL_FORMAT_VERSION, LABEL_FORMAT_NAME)
_FRAMEWORK_LABELS = (LABEL_FRAMEWORK_NAME, LABEL_FRAMEWORK_VERSION, LABEL_FRAMEWORK)


def entry_fixes(model: Model, entry: Entry, provider: str, at: int | None = None) -> list[Fix]:
    """What makes ``entry`` match ``model`` (§3.1), in the order of §3.2's parts; ``at``: the
    entry's index, which its changes name (None: no index)."""
    return _rare_fixes(model, entry, provider, at) + _field_fixes(model, entry, at)


def first_fix_check(model: Model, entry: Entry, provider: str) -> str:
    """The ``check`` of ``entry_fixes``'s first fix, without making them: the first part
    (§3.2's order) in which an entry that does not match fails. The summary groups a check-4
    row by it (way_out.py)."""
    if model.is_sharded and not supports_cache_provider(model, entry, provider):
        return LABEL_PROVIDER
    if entry.diffusion is not None and diffusion_mismatch(model.diffusion, entry.diffusion):
        return LABEL_DIFFUSION
    if entry.architecture != model.architecture:
        return LABEL_ARCHITECTURE
    if entry.quantization != model.quantization:
        return LABEL_QUANTIZATION
    wanted, fmt = model_format(model), entry.format
    if fmt is None or fmt.name != wanted.name:
        return LABEL_FORMAT_NAME
    if not versions_agree(wanted, fmt):
        return LABEL_FORMAT_VERSION
    framework, ref = model.framework, entry.framework
    if framework is None or ref is None:
        assert ref is not None or framework is not None, "an entry that matches has no fix"
        return LABEL_FRAMEWORK
    if ref.name != framework.name:
        return LABEL_FRAMEWORK_NAME
    assert not versions_agree(framework, ref), "an entry that matches has no fix"
    return LABEL_FRAMEWORK_VERSION


def _rare_fixes(model: Model, entry: Entry, provider: str, at: int | None) -> list[Fix]:
    """The fixes of the parts few models or entries have: a sharded model's cache provider
    and the entry's diffusion pipeline."""
    fixes = _provider(model, entry, provider, LABEL_PROVIDER, at) if model.is_sharded else []
    if entry.diffusion is not None and diffusion_mismatch(model.diffusion, entry.diffusion):
        # The entry's pipeline requirement goes: an entry without one matches any model (§12).
        fixes.append(Change(LABEL_DIFFUSION, DIFFUSION, None, at))
    return fixes


def _field_fixes(model: Model, entry: Entry, at: int | None) -> list[Fix]:
    """The fixes of the fields every entry has: architecture, quantization, format and
    framework, which ``FieldFixes`` tells apart by their state."""
    fixes = _name_fixes(model, entry, at)
    fixes += _reference(_FORMAT_LABELS, FORMAT, model_format(model), entry.format, True, at)
    fixes += _reference(_FRAMEWORK_LABELS, FRAMEWORK, model.framework, entry.framework, True, at)
    return fixes


def _name_fixes(model: Model, entry: Entry, at: int | None) -> list[Fix]:
    """Architecture and quantization: the model's own."""
    fixes: list[Fix] = []
    if entry.architecture != model.architecture:
        fixes.append(Change(LABEL_ARCHITECTURE, ARCHITECTURE, model.architecture, at))
    if entry.quantization != model.quantization:
        fixes.append(Change(LABEL_QUANTIZATION, QUANTIZATION, model.quantization, at))
    return fixes


RefState = tuple[bool, bool, bool | None] | bool | None


def _ref_state(model: ModelRef | None, entry: EntryRef | None) -> RefState:
    """All that ``_reference`` (strict) reads of ``entry``, given the model's reference: None
    for no entry reference, True for one the model has none of; else whether the names
    differ, whether the entry's version is absent, and whether its version needs the one
    of ``version_accepting`` for ``GreaterThan``, matches, or needs the model's own."""
    if entry is None:
        return None
    if model is None:
        return True
    version, have, operator = model.version, entry.version, entry.operator
    if version is not None and have is not None and versions_match(version, have, operator):
        return entry.name != model.name, False, None
    return entry.name != model.name, have is None, operator == GREATER_THAN


@quick_init
@dataclass(frozen=True, slots=True)
class EntryFixes:
    """``entry_fixes`` of one entry, and what a way out reads of them."""

    fixes: tuple[Fix, ...]
    blocker: Blocker | None  # the first, if any
    changes: tuple[Change, ...]  # the fixes, when none is a blocker
    count: tuple[bool, int]  # (blocked, how many fixes): what tells entries' fixes apart

    @classmethod
    def of(cls, fixes: Sequence[Fix]) -> EntryFixes:
        blocker = next((fix for fix in fixes if isinstance(fix, Blocker)), None)
        changes = tuple(fix for fix in fixes if isinstance(fix, Change))
        return cls(tuple(fixes), blocker, changes, (blocker is not None, len(fixes)))


class FieldFixes:
    """``entry_fixes`` for one model and configured provider, as ``EntryFixes``, made once per
    distinct state of what they read (``_ref_state``, whether the architecture and the
    quantization differ, the entry's index), and the format's and framework's fixes once per
    state of each: entries that each have their own versions still share a handful of
    states, and so the same fixes (the values held are shared: callers only read them)."""

    def __init__(self, model: Model, provider: str):
        self.model, self.provider, self.sharded = model, provider, model.is_sharded
        self._refs = (
            (_FORMAT_LABELS, FORMAT, model_format(model)),
            (_FRAMEWORK_LABELS, FRAMEWORK, model.framework),
        )
        self._made: dict[tuple[object, ...], EntryFixes] = {}
        # (format or framework, index, state): the reference's fixes, whether one blocks
        self._parts: dict[tuple[int, int | None, RefState], tuple[tuple[Fix, ...], bool]] = {}

    def __call__(self, entry: Entry, at: int | None) -> EntryFixes:
        model = self.model
        states = (
            _ref_state(self._refs[0][2], entry.format),
            _ref_state(model.framework, entry.framework),
        )
        key = (
            at,
            entry.architecture != model.architecture,
            entry.quantization != model.quantization,
            states,
        )
        found = self._made.get(key)
        if found is None:
            found = self._made[key] = self._make(entry, at, states)
        if not self.sharded and entry.diffusion is None:
            return found
        rare = _rare_fixes(model, entry, self.provider, at)
        return EntryFixes.of(rare + list(found.fixes)) if rare else found

    def _make(self, entry: Entry, at: int | None, states: tuple[RefState, RefState]) -> EntryFixes:
        fixes, blocked = _name_fixes(self.model, entry, at), False
        for which, state in enumerate(states):
            key = (which, at, state)
            part = self._parts.get(key)
            if part is None:
                labels, what, model = self._refs[which]
                ref = entry.framework if which else entry.format
                made = tuple(_reference(labels, what, model, ref, True, at))
                part = self._parts[key] = made, any(isinstance(fix, Blocker) for fix in made)
            fixes += part[0]
            blocked = blocked or part[1]
        if blocked:
            return EntryFixes.of(fixes)
        made = tuple(fixes)
        changes = cast(tuple[Change, ...], made)  # no Blocker: all Changes
        return EntryFixes(made, None, changes, (False, len(made)))


def score_fixes(model: Model, entry: Entry, provider: str) -> list[Fix]:
    """What makes ``entry``'s score (§4) above 0; architecture, quantization, diffusion and
    size play no part there."""
    labels = (LABEL_SCORE,) * 3
    fixes = _provider(model, entry, provider, LABEL_SCORE, None)
    if entry.format is not None:
        fixes += _reference(labels, FORMAT, model_format(model), entry.format, False, None)
    fixes += _reference(labels, FRAMEWORK, model.framework, entry.framework, False, None)
    if any(isinstance(fix, Blocker) for fix in fixes):
        return fixes
    changed = apply_to_entry(entry, [fix for fix in fixes if isinstance(fix, Change)])
    if changed.format is None and changed.framework is None:
        # Nothing scored (§4 step 4): the model's format is what an entry scores first.
        fix = Change(LABEL_SCORE, f"{FORMAT}.name", model_format(model).name)
        fixes.append(fix)
        changed = apply_to_entry(changed, [fix])
    if entry_score(model, changed, provider) <= 0:
        fixes.append(_weight(changed))
    return fixes


def _weight(entry: Entry) -> Change:
    """A negative weight pulls the score to 0 or below: the format's weight (else the
    framework's) that makes it 1 per unit of priority or more."""
    framework = entry.framework
    return weight_fix(entry.format is not None, None if framework is None else framework.weight)


def weight_fix(has_format: bool, framework_weight: int | None) -> Change:
    """``_weight`` of an entry that has a format or not, and a framework of that weight (None:
    no framework)."""
    if has_format:
        framework = 0
        if framework_weight is not None:
            framework = framework_weight or ZERO_FRAMEWORK_WEIGHT
        return Change(LABEL_SCORE, f"{FORMAT}.weight", max(1, 1 - framework))
    return Change(LABEL_SCORE, f"{FRAMEWORK}.weight", 1)  # the framework alone is scored
