"""The checks of rules §3 on one runtime, its score (§4), size distance (§5.3) and its row of
the explain table (§6), against one model and InferenceService."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from packaging.version import Version

from ..values import Entry, RankRequest, Runtime, parse_size, quick_init
from .constraints import (
    deployment_mode_mismatch,
    requested_modes,
    required_accelerator_classes,
    supports_accelerators,
)
from .entries import configured_provider, model_format, model_label, row_weight
from .entry_memo import EntryMemo

# rules §14: before this OME version a one-bound modelSizeRange is unsupported.
ONE_BOUND_RANGES_SINCE = Version("1.3")

REASON_DISABLED = "runtime is disabled"
REASON_ACCELERATOR = "runtime does not support the required accelerator class"
REASON_NO_AUTOSELECT = (
    "supports the model but has no supportedModelFormats[].autoSelect=true entry, so automatic "
    "selection skips it (pin it explicitly via spec.runtime.name instead)"
)
REASON_ZERO_SCORE = "auto-select score is 0"
REASON_ONE_BOUND = "modelSizeRange sets only one bound; OME before v1.3 needs both min and max"

# rules §3: the checks in order. A runtime that fails one of checks 1-5 is *excluded* (listed in
# OME's no-runtime text); one skipped at check 6 or 7 is only counted.
CHECK_DISABLED, CHECK_ACCELERATOR, CHECK_MODE, CHECK_FORMAT, CHECK_SIZE = 1, 2, 3, 4, 5
CHECK_AUTOSELECT, CHECK_SCORE = 6, 7

# Short, stable labels of the failures, by which the ``No`` rows are grouped (advice/way_out.py), in
# the order of the checks; check 4 is labelled by the part of §3.2 its nearest entry fails
# (ENTRY_LABELS), check 7 by its text (autoSelect on the matching entry, or the score).
LABEL_DISABLED = "disabled"
LABEL_ACCELERATOR = "accelerator class"
LABEL_MODE = "deployment mode"
LABEL_PROVIDER = "cache provider"
LABEL_DIFFUSION = "diffusion pipeline"
LABEL_ARCHITECTURE = "architecture"
LABEL_QUANTIZATION = "quantization"
LABEL_FORMAT_NAME = "format name mismatch"
LABEL_FORMAT_VERSION = "format version"
LABEL_FRAMEWORK_NAME = "framework name mismatch"
LABEL_FRAMEWORK_VERSION = "framework version"
LABEL_FRAMEWORK = "framework presence"
LABEL_NO_FORMATS = "no supported formats"
LABEL_SIZE = "size range"
LABEL_AUTOSELECT = "autoSelect"
LABEL_SCORE = "zero score"
ENTRY_LABELS = (
    LABEL_PROVIDER,
    LABEL_DIFFUSION,
    LABEL_ARCHITECTURE,
    LABEL_QUANTIZATION,
    LABEL_FORMAT_NAME,
    LABEL_FORMAT_VERSION,
    LABEL_FRAMEWORK_NAME,
    LABEL_FRAMEWORK_VERSION,
    LABEL_FRAMEWORK,
    LABEL_NO_FORMATS,
)
LABELS = (
    LABEL_DISABLED,
    LABEL_ACCELERATOR,
    LABEL_MODE,
    *ENTRY_LABELS,
    LABEL_SIZE,
    LABEL_AUTOSELECT,
    LABEL_SCORE,
)


@quick_init
@dataclass(frozen=True, slots=True)
class RuntimeRow:
    """One row of the explain table (rules §6); ``failed_check`` is the §3 check a ``No`` row
    failed (the pre-1.3 one-bound check of §9 counts as check 5)."""

    runtime: Runtime
    compatible: bool
    priority: int | None = None
    weight: int | None = None
    score: int | None = None
    distance: float | None = None
    reason: str | None = None
    failed_check: int | None = None

    @property
    def name(self) -> str:
        return self.runtime.name

    @property
    def scope(self) -> str:
        return self.runtime.scope

    @property
    def excluded(self) -> bool:
        """rules §15: listed in OME's no-runtime text (failed one of checks 1-5)."""
        return self.failed_check is not None and self.failed_check <= CHECK_SIZE


def compatible_score(row: RuntimeRow) -> int:
    """The score of a compatible (``Yes``) row: ``RuntimeChecks.row`` sets one on every such
    row, and only on those."""
    # cast: "compatible" is a fact about the value that the type RuntimeRow does not carry. The
    # cast changes nothing at run time.
    return cast(int, row.score)


def before_one_bound_ranges(ome_version: str) -> bool:
    return Version(ome_version) < ONE_BOUND_RANGES_SINCE


def range_label(low: str | None, high: str | None) -> str:
    if low is not None and high is not None:
        return f"[{low}, {high}]"
    if low is not None:
        return f"[{low}, inf)"
    return f"(-inf, {high}]"


@quick_init
@dataclass(frozen=True, slots=True)
class Support:
    """Checks 2-5 of rules §3 on one runtime: the first failure (reason and check number), and
    the first matching entry when there is one."""

    reason: str | None
    check: int | None
    first: Entry | None


def has_autoselect(entries: tuple[Entry, ...]) -> bool:
    """Whether an entry has ``autoSelect: true`` (check 6 of rules §3). A loop rather than
    ``any()`` over a generator, which costs more to set up than a few entries cost to read
    (bench/README.md, "Figures behind the code")."""
    for entry in entries:  # noqa: SIM110 (see above)
        if entry.auto_select is True:
            return True
    return False


class RuntimeChecks:
    """What every runtime is checked against, computed once per request."""

    def __init__(self, request: RankRequest):
        self.model = request.model
        self.label = model_label(request.model)
        self.provider = configured_provider(request.model_cache_provider)
        isvc = request.inference_service
        self.accelerators = required_accelerator_classes(isvc)
        self.engine_mode, self.decoder_mode = requested_modes(isvc)
        raw_size = request.model.parameter_size
        self.size = None if raw_size is None else parse_size(raw_size)
        self.one_bound_unsupported = before_one_bound_ranges(request.ome_version)
        self.entries = EntryMemo(self.model, self.provider)  # shared with the ways out

    def support(self, runtime: Runtime) -> Support:
        """Checks 2–5 of rules §3 (with §9's pre-1.3 check)."""
        return Support(*self._support(runtime))

    def _support(self, runtime: Runtime) -> tuple[str | None, int | None, Entry | None]:
        """``support``'s reason, check and first matching entry (a row reads them: no
        ``Support`` is made for it)."""
        # Each of checks 2 and 3 runs only when the request asks for it (most ask for neither).
        if self.accelerators and not supports_accelerators(runtime, self.accelerators):
            return REASON_ACCELERATOR, CHECK_ACCELERATOR, None
        if self.engine_mode is not None or self.decoder_mode is not None:
            mode = deployment_mode_mismatch(runtime, self.engine_mode, self.decoder_mode)
            if mode is not None:
                return mode, CHECK_MODE, None
        first, texts = self.entries.check(runtime.entries)
        if first is None:
            why = "; ".join(texts) if texts else "no supported formats defined"
            return (
                f"model format '{self.label}' not in supported formats: {why}",
                CHECK_FORMAT,
                None,
            )
        bounds = runtime.size_range
        if self.size is not None and bounds is not None:
            if self.one_bound_unsupported and (bounds.min is None) != (bounds.max is None):
                return REASON_ONE_BOUND, CHECK_SIZE, first
            # A NaN size is neither below min nor above max (rules §9).
            low = None if bounds.min is None else parse_size(bounds.min)
            high = None if bounds.max is None else parse_size(bounds.max)
            if (low is not None and self.size < low) or (high is not None and self.size > high):
                label = range_label(bounds.min, bounds.max)
                reason = (
                    f"model size {self.model.parameter_size} is outside supported range {label}"
                )
                return reason, CHECK_SIZE, first
        return None, None, first

    def may_qualify(self, runtime: Runtime) -> bool:
        """What every compatible row holds (``row``'s checks 1–4 and the autoSelect check, without
        their reasons): False only for a runtime ``row`` finds incompatible."""
        if runtime.is_disabled or not supports_accelerators(runtime, self.accelerators):
            return False
        if deployment_mode_mismatch(runtime, self.engine_mode, self.decoder_mode) is not None:
            return False
        entries = runtime.entries
        if not has_autoselect(entries):
            return False
        return self.entries.check(entries)[0] is not None

    def score(self, runtime: Runtime) -> int:
        """rules §4: best entry score over entries not opted out with autoSelect=false."""
        best = 0
        for entry in runtime.entries:
            if entry.auto_select is not False:
                best = max(best, self.entries.score(entry))
        return best

    def distance(self, runtime: Runtime, size: float) -> float:
        """rules §5, item 3: how far a model of ``size`` parameters is from the runtime's bounds."""
        bounds = runtime.size_range
        if bounds is None:
            return 0.0
        total = 0.0
        for bound in (bounds.min, bounds.max):
            if bound is not None:
                total += abs(parse_size(bound) - size)
        return total

    def row(self, runtime: Runtime) -> RuntimeRow:
        if runtime.is_disabled:
            return RuntimeRow(runtime, False, reason=REASON_DISABLED, failed_check=CHECK_DISABLED)
        reason, check, matching = self._support(runtime)
        if reason is not None:
            return RuntimeRow(runtime, False, reason=reason, failed_check=check)
        if not has_autoselect(runtime.entries):
            return RuntimeRow(
                runtime, False, reason=REASON_NO_AUTOSELECT, failed_check=CHECK_AUTOSELECT
            )
        # cast: ``support`` names the first matching entry whenever it finds no reason to refuse
        # (a runtime with no matching entry fails check 4); Support's type does not say so.
        first = cast(Entry, matching)
        score = self.score(runtime)
        if score <= 0:
            if first.auto_select is not True:
                reason = (
                    f"matching format {model_format(self.model).name} is not autoSelect-enabled (a "
                    "different supportedModelFormats entry on this runtime has autoSelect=true, "
                    "but not the one that matches this model)"
                )
            else:
                reason = REASON_ZERO_SCORE
            return RuntimeRow(runtime, False, reason=reason, failed_check=CHECK_SCORE)
        distance = None if self.size is None else self.distance(runtime, self.size)
        return RuntimeRow(
            runtime,
            True,
            priority=first.effective_priority,
            weight=row_weight(first),
            score=score,
            distance=distance,
        )
