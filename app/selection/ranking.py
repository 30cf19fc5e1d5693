"""Rank the candidate runtimes for a model exactly as the OME controller does
(SPEC §2–§7, §14) and explain each row in ``kubectl ome runtime explain`` words."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cmp_to_key

from packaging.version import Version

from .constraints import (
    deployment_mode_mismatch,
    requested_modes,
    required_accelerator_classes,
    supports_accelerators,
)
from .documents import Entry, Model, RankRequest, Runtime
from .entries import entry_matches, entry_mismatch, entry_score, model_label, row_weight
from .sizes import parse_size
from .warnings import size_warnings

DEFAULT_NAMESPACE = "default"
# SPEC §14: before this OME version a one-bound modelSizeRange is unsupported.
ONE_BOUND_RANGES_SINCE = Version("1.3")

REASON_DISABLED = "runtime is disabled"
REASON_ACCELERATOR = "runtime does not support the required accelerator class"
REASON_NO_AUTOSELECT = (
    "supports the model but has no supportedModelFormats[].autoSelect=true entry, so automatic "
    "selection skips it (pin it explicitly via spec.runtime.name instead)"
)
REASON_ZERO_SCORE = "auto-select score is 0"
REASON_ONE_BOUND = "modelSizeRange sets only one bound; OME before v1.3 needs both min and max"
NOTE_EXPLICIT = "spec.runtime is explicit; automatic selection below is hypothetical."


@dataclass(frozen=True, slots=True)
class RuntimeRow:
    """One row of the explain table (SPEC §6)."""

    runtime: Runtime
    compatible: bool
    priority: int | None = None
    weight: int | None = None
    score: int | None = None
    distance: float | None = None
    reason: str | None = None

    @property
    def name(self) -> str:
        return self.runtime.name

    @property
    def scope(self) -> str:
        return self.runtime.scope


@dataclass(frozen=True, slots=True)
class IgnoredRuntime:
    runtime: Runtime
    reason: str


@dataclass(frozen=True, slots=True)
class Selection:
    name: str
    scope: str
    score: int
    explicit: bool


@dataclass(frozen=True, slots=True)
class ExplicitRuntimeError:
    """SPEC §7: an explicit runtime that cannot be used (an error on /v1/select)."""

    code: str  # RuntimeNotFound | RuntimeDisabled
    message: str


@dataclass(frozen=True, slots=True)
class Ranking:
    model: Model
    namespace: str
    ome_version: str
    selected: Selection | None
    message: str
    rows: tuple[RuntimeRow, ...]
    ignored: tuple[IgnoredRuntime, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    explicit_error: ExplicitRuntimeError | None = None

    @property
    def excluded(self) -> tuple[RuntimeRow, ...]:
        """``No`` rows in no-runtime-message order: name, a ServingRuntime first."""
        return tuple(sorted((r for r in self.rows if not r.compatible), key=_name_scope_key))


def _name_key(runtime: Runtime) -> bytes:
    # SPEC §15 "Byte order": names compare by their UTF-8 bytes.
    return runtime.name.encode("utf-8", "surrogatepass")


def _name_scope_key(row: RuntimeRow) -> tuple[bytes, bool]:
    return _name_key(row.runtime), row.runtime.is_cluster


def target_namespace(request: RankRequest) -> str:
    """SPEC §2: request, then InferenceService, then BaseModel namespace, then ``default``."""
    isvc = request.inference_service
    for candidate in (
        request.namespace,
        isvc.namespace if isvc else None,
        None if request.model.is_cluster else request.model.namespace,
    ):
        if candidate:  # SPEC §15: an empty namespace counts as absent
            return candidate
    return DEFAULT_NAMESPACE


def is_candidate(runtime: Runtime, namespace: str) -> bool:
    return runtime.is_cluster or not runtime.namespace or runtime.namespace == namespace


def duplicate_candidates(runtimes: tuple[Runtime, ...], namespace: str) -> list[int]:
    """Indices of candidates whose scope and name an earlier candidate already has (SPEC §2)."""
    seen: set[tuple[bool, str]] = set()
    duplicates = []
    for index, runtime in enumerate(runtimes):
        if not is_candidate(runtime, namespace):
            continue
        key = (runtime.is_cluster, runtime.name)
        if key in seen:
            duplicates.append(index)
        seen.add(key)
    return duplicates


def before_one_bound_ranges(ome_version: str) -> bool:
    return Version(ome_version) < ONE_BOUND_RANGES_SINCE


def range_label(low: str | None, high: str | None) -> str:
    if low is not None and high is not None:
        return f"[{low}, {high}]"
    if low is not None:
        return f"[{low}, inf)"
    return f"(-inf, {high}]"


class _Context:
    """What every runtime is checked against, computed once per request."""

    def __init__(self, request: RankRequest):
        self.model = request.model
        self.label = model_label(request.model)
        isvc = request.inference_service
        self.accelerators = required_accelerator_classes(isvc)
        self.engine_mode, self.decoder_mode = requested_modes(isvc)
        raw_size = request.model.parameter_size
        self.size = None if raw_size is None else parse_size(raw_size)
        self.one_bound_unsupported = before_one_bound_ranges(request.ome_version)

    def support_reason(self, runtime: Runtime) -> tuple[str | None, Entry | None]:
        """Checks 2–5 of SPEC §3 (with §9's pre-1.3 check): the first failure's
        reason, and the first matching entry when there is one."""
        if not supports_accelerators(runtime, self.accelerators):
            return REASON_ACCELERATOR, None
        mode = deployment_mode_mismatch(runtime, self.engine_mode, self.decoder_mode)
        if mode is not None:
            return mode, None
        first = next((e for e in runtime.entries if entry_matches(self.model, e)), None)
        if first is None:
            if runtime.entries:
                why = "; ".join(entry_mismatch(self.model, e) for e in runtime.entries)
            else:
                why = "no supported formats defined"
            return f"model format '{self.label}' not in supported formats: {why}", None
        bounds = runtime.size_range
        if self.size is not None and bounds is not None:
            if self.one_bound_unsupported and (bounds.min is None) != (bounds.max is None):
                return REASON_ONE_BOUND, first
            # A NaN size is neither below min nor above max (SPEC §9).
            low = None if bounds.min is None else parse_size(bounds.min)
            high = None if bounds.max is None else parse_size(bounds.max)
            if (low is not None and self.size < low) or (high is not None and self.size > high):
                label = range_label(bounds.min, bounds.max)
                return (
                    f"model size {self.model.parameter_size} is outside supported range {label}",
                    first,
                )
        return None, first

    def score(self, runtime: Runtime) -> int:
        """SPEC §4: best entry score over entries not opted out with autoSelect=false."""
        best = 0
        for entry in runtime.entries:
            if entry.auto_select is not False:
                best = max(best, entry_score(self.model, entry))
        return best

    def distance(self, runtime: Runtime) -> float:
        bounds = runtime.size_range
        if bounds is None:
            return 0.0
        total = 0.0
        for bound in (bounds.min, bounds.max):
            if bound is not None:
                total += abs(parse_size(bound) - self.size)
        return total

    def row(self, runtime: Runtime) -> RuntimeRow:
        if runtime.disabled:
            return RuntimeRow(runtime, False, reason=REASON_DISABLED)
        reason, first = self.support_reason(runtime)
        if reason is not None:
            return RuntimeRow(runtime, False, reason=reason)
        if not any(entry.auto_select is True for entry in runtime.entries):
            return RuntimeRow(runtime, False, reason=REASON_NO_AUTOSELECT)
        score = self.score(runtime)
        if score <= 0:
            if first.auto_select is not True:
                reason = (
                    f"matching format {self.model.format.name} is not autoSelect-enabled (a "
                    "different supportedModelFormats entry on this runtime has autoSelect=true, "
                    "but not the one that matches this model)"
                )
            else:
                reason = REASON_ZERO_SCORE
            return RuntimeRow(runtime, False, reason=reason)
        distance = None if self.size is None else self.distance(runtime)
        return RuntimeRow(
            runtime,
            True,
            priority=first.effective_priority,
            weight=row_weight(first),
            score=score,
            distance=distance,
        )


def _distance_order(a: float, b: float) -> int:
    # SPEC §5.3: the controller truncates the difference to an integer, so
    # distances less than 1 apart tie. A NaN difference (NaN or inf - inf)
    # truncates to no order either: such rows tie and keep name order.
    difference = a - b
    if difference <= -1:
        return -1
    if difference >= 1:
        return 1
    return 0


def _compare_rows(first: RuntimeRow, second: RuntimeRow) -> int:
    if first.runtime.is_cluster != second.runtime.is_cluster:
        return 1 if first.runtime.is_cluster else -1
    if first.score != second.score:
        return -1 if first.score > second.score else 1
    if first.distance is not None and second.distance is not None:
        return _distance_order(first.distance, second.distance)
    return 0


def order_rows(rows: list[RuntimeRow]) -> list[RuntimeRow]:
    """SPEC §5 and §15 "Ties": name order first, then a stable sort on the §5
    comparison (it is not transitive, so the pre-sort keeps chains deterministic)."""
    by_name = sorted(rows, key=_name_scope_key)
    compatible = [row for row in by_name if row.compatible]
    compatible.sort(key=cmp_to_key(_compare_rows))
    namespaced = [row for row in by_name if not row.compatible and not row.runtime.is_cluster]
    cluster = [row for row in by_name if not row.compatible and row.runtime.is_cluster]
    return compatible + namespaced + cluster


def no_runtime_message(model: Model, namespace: str, rows: tuple[RuntimeRow, ...]) -> str:
    """SPEC §15 no-runtime text: no final period; ``runtimes`` never singular."""
    text = (
        f"no runtime found to support model {model.name} with format {model.format.name} "
        f"in namespace {namespace}"
    )
    if rows:
        namespaced = sum(1 for row in rows if not row.runtime.is_cluster)
        text += (
            f". Checked {len(rows)} runtimes ({namespaced} namespace-scoped, "
            f"{len(rows) - namespaced} cluster-scoped)"
        )
    excluded = sorted((row for row in rows if not row.compatible), key=_name_scope_key)
    if excluded:
        text += ". Excluded runtimes: " + "; ".join(f"{r.name} ({r.reason})" for r in excluded)
    return text


def _explicit_choice(
    context: _Context, name: str, namespace: str, candidates: list[Runtime], model: Model
) -> tuple[Selection | None, str, list[str], ExplicitRuntimeError | None]:
    """SPEC §7: the runtime named in spec.runtime.name, namespace scope first."""
    found = next((r for r in candidates if not r.is_cluster and r.name == name), None)
    if found is None:
        found = next((r for r in candidates if r.is_cluster and r.name == name), None)
    if found is None:
        message = f"runtime {name} not found in namespace {namespace} or at cluster scope"
        return None, message, [], ExplicitRuntimeError("RuntimeNotFound", message)
    if found.disabled:
        scope = "cluster-scoped" if found.is_cluster else "namespace-scoped"
        message = f"{scope} runtime {name} is disabled"
        return None, message, [], ExplicitRuntimeError("RuntimeDisabled", message)
    warnings = []
    reason, _ = context.support_reason(found)
    if reason is not None:
        warnings.append(
            f'runtime "{name}" does not declare support for model "{model.name}" ({reason}); '
            "proceeding because the runtime was named explicitly"
        )
    selection = Selection(found.name, found.scope, context.score(found), True)
    return selection, f"Runtime {name} is named explicitly for model {model.name}", warnings, None


def rank_runtimes(request: RankRequest) -> Ranking:
    """The whole answer of ``/v1/rank`` for a validated request.

    The caller has already rejected duplicate candidates (see ``duplicate_candidates``).
    """
    model = request.model
    namespace = target_namespace(request)
    context = _Context(request)
    candidates: list[Runtime] = []
    ignored: list[IgnoredRuntime] = []
    for runtime in request.runtimes:
        if is_candidate(runtime, namespace):
            candidates.append(runtime)
        else:
            reason = (
                f"ServingRuntime in namespace {runtime.namespace}, "
                f"not in the target namespace {namespace}"
            )
            ignored.append(IgnoredRuntime(runtime, reason))
    ignored.sort(key=lambda item: (item.runtime.namespace, _name_key(item.runtime)))
    rows = tuple(order_rows([context.row(runtime) for runtime in candidates]))

    warnings = size_warnings(model, candidates)
    notes: list[str] = []
    explicit_error = None
    isvc = request.inference_service
    if isvc is not None and isvc.runtime_name is not None:
        notes.append(NOTE_EXPLICIT)
        selected, message, explicit_warnings, explicit_error = _explicit_choice(
            context, isvc.runtime_name, namespace, candidates, model
        )
        warnings = explicit_warnings + warnings
    elif rows and rows[0].compatible:
        top = rows[0]
        selected = Selection(top.name, top.scope, top.score, False)
        message = f"Runtime {top.name} will be auto-selected for model {model.name}"
    else:
        selected = None
        message = no_runtime_message(model, namespace, rows)
    return Ranking(
        model=model,
        namespace=namespace,
        ome_version=request.ome_version,
        selected=selected,
        message=message,
        rows=rows,
        ignored=tuple(ignored),
        warnings=tuple(warnings),
        notes=tuple(notes),
        explicit_error=explicit_error,
    )


def is_finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)
