"""Rank the candidate runtimes for a model exactly as OME's runtime selector does (rules §2–§7,
§14), each row in ``kubectl ome runtime explain`` words: the target namespace, the candidates,
their order, and what a ranking for an InferenceService depends on (``question_of``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cmp_to_key
from itertools import pairwise
from typing import TypedDict

from ..values import (
    DEFAULT_NAMESPACE,
    InferenceService,
    Model,
    OtherObject,
    RankRequest,
    Runtime,
    checked,
)
from .checks import RuntimeChecks, RuntimeRow, compatible_score
from .constraints import requested_modes, required_accelerator_classes
from .entries import model_format
from .explicit import NOTE_EXPLICIT, explicit_choice
from .ranked import (
    IgnoredObject,
    Ranking,
    Selection,
    distance_order,
    ignored_order,
    name_scope_key,
)
from .runtime_sets import NamespaceRuntimes, RowsKey, RuntimeSet, namespace_runtimes
from .selection_errors import SelectionError, SelectionErrorCode
from .warnings import model_size_warnings, repeat_warnings, unused_size_range_warning

# A deadline check every 32 runtimes: far enough apart to cost nothing next to their rows, close
# enough to stop soon (bench/README.md, "The deadline's checks").
RUNTIMES_PER_CHECK = 32
MODEL_NOT_READY = "invalid model specification: modelFormat.name: model format name is required"

# What a ranking for an InferenceService depends on besides the runtimes (``question_of``).
Question = tuple[
    str,  # the model's kind
    str | None,  # the model's namespace
    str,  # the model's name
    str | None,  # the InferenceService's namespace
    frozenset[str],  # the accelerator classes it requires
    tuple[str | None, str | None],  # the deployment modes it asks for (engine, decoder)
    str | None,  # spec.runtime.name
    str | None,  # spec.runtime.kind
]


def target_namespace(request: RankRequest) -> str:
    """rules §2: request, then InferenceService, then BaseModel namespace, then ``default``."""
    isvc = request.inference_service
    for candidate in (
        request.namespace,
        isvc.namespace if isvc else None,
        None if request.model.is_cluster else request.model.namespace,
    ):
        if candidate:  # rules §15: an empty namespace counts as absent
            return candidate
    return DEFAULT_NAMESPACE


def question_of(model: Model, isvc: InferenceService) -> Question:
    """What a ranking for this InferenceService depends on besides the model and the runtimes:
    InferenceServices that ask the same question share one ranking."""
    return (
        model.kind,
        model.namespace,
        model.name,
        isvc.namespace,
        required_accelerator_classes(isvc),
        requested_modes(isvc),
        isvc.runtime_name,
        isvc.runtime_kind,
    )


def _compare_rows(first: RuntimeRow, second: RuntimeRow) -> int:
    """rules §5 on two compatible rows."""
    if first.runtime.is_cluster != second.runtime.is_cluster:
        return 1 if first.runtime.is_cluster else -1
    first_score, second_score = compatible_score(first), compatible_score(second)
    if first_score != second_score:
        return -1 if first_score > second_score else 1
    if first.distance is not None and second.distance is not None:
        return distance_order(first.distance, second.distance)
    return 0


# The §5 comparison as a key: scope, score, and the distance where it orders (``_order_key``).
OrderKey = tuple[bool, int, float]


def _order_key(rows: list[RuntimeRow]) -> Callable[[RuntimeRow], OrderKey] | None:
    """A key that sorts ``rows`` (compatible) exactly as ``_compare_rows`` does, where that
    comparison is a total preorder on them; None where it is not. Rows of one scope and score
    compare by distance, which ties rows less than 1 apart and any row without one: a group of
    such rows is ordered by distance when all have one, none is NaN and every two distinct ones
    are at least 1 apart; it is all ties when at most one has one. Any other group (a chain
    where A ties B, B ties C and A comes before C) is left to the comparison, whose result
    depends on the sort's steps (tests/selection/ranking/test_row_order.py proves the two
    sorts agree wherever the key is given)."""
    groups: dict[tuple[bool, int], list[float | None]] = {}
    for row in rows:
        group = (row.runtime.is_cluster, compatible_score(row))
        groups.setdefault(group, []).append(row.distance)
    by_distance: set[tuple[bool, int]] = set()
    for group, distances in groups.items():
        known = [distance for distance in distances if distance is not None]
        if len(known) <= 1:
            continue
        if len(known) < len(distances) or any(distance != distance for distance in known):
            return None
        values = sorted(set(known))
        if any(higher - lower < 1 for lower, higher in pairwise(values)):
            return None
        by_distance.add(group)

    def key(row: RuntimeRow) -> OrderKey:
        cluster, score = row.runtime.is_cluster, compatible_score(row)
        distance = row.distance if (cluster, score) in by_distance else None
        return (cluster, -score, 0.0 if distance is None else distance)

    return key


def order_rows(rows: list[RuntimeRow]) -> list[RuntimeRow]:
    """rules §5 and §15 "Ties": name order first, then a stable sort on the §5
    comparison (it is not transitive, so the pre-sort keeps chains deterministic). Where the
    comparison is a total preorder on the rows, a sort on its key gives the same order at a
    fraction of the cost (admission sorts ~190 rows for each of a repository's questions)."""
    by_name = sorted(rows, key=name_scope_key)
    compatible = [row for row in by_name if row.compatible]
    key = _order_key(compatible)
    compatible.sort(key=cmp_to_key(_compare_rows) if key is None else key)
    namespaced = [row for row in by_name if not row.compatible and not row.runtime.is_cluster]
    cluster = [row for row in by_name if not row.compatible and row.runtime.is_cluster]
    return compatible + namespaced + cluster


def no_runtime_message(model: Model, namespace: str, ranking_rows: tuple[RuntimeRow, ...]) -> str:
    """rules §15, OME's no-runtime text: the model named by its format, every candidate counted,
    only the excluded ones (checks 1-5) listed; no final period, ``runtimes`` never singular."""
    fmt = model_format(model).name
    text = f"no runtime found to support model {fmt} with format {fmt} in namespace {namespace}"
    if ranking_rows:
        namespaced = sum(1 for row in ranking_rows if not row.runtime.is_cluster)
        text += (
            f". Checked {len(ranking_rows)} runtimes ({namespaced} namespace-scoped, "
            f"{len(ranking_rows) - namespaced} cluster-scoped)"
        )
    excluded = Ranking.excluded_of(ranking_rows)
    if excluded:
        text += ". Excluded runtimes: " + "; ".join(f"{name} ({why})" for name, why in excluded)
    return text


def _other_ignored(other: OtherObject) -> IgnoredObject:
    return IgnoredObject(
        other.kind, other.name, other.namespace, None, other.reason, other.refusal is not None
    )


class _Common(TypedDict):
    """The fields of a ``Ranking`` that every answer of one request shares."""

    model: Model
    namespace: str
    ome_version: str
    ignored: tuple[IgnoredObject, ...]


def _checked_rows(
    checks: RuntimeChecks,
    facts: NamespaceRuntimes,
    outcome_only: bool,
    isvc: InferenceService | None,
) -> list[RuntimeRow]:
    """Every candidate's row; with ``outcome_only``, the compatible ones' (all of them when none
    is and the question is OME's auto-selection, whose refusal names every excluded runtime)."""
    candidates = facts.candidates
    if not outcome_only:
        return [checks.row(runtime) for runtime in checked(candidates, every=RUNTIMES_PER_CHECK)]
    rows: list[RuntimeRow] = []
    others: list[Runtime] = []
    may_match = facts.may_match(checks.model)
    for runtime in checked(candidates, every=RUNTIMES_PER_CHECK):
        if id(runtime) in may_match and checks.may_qualify(runtime):
            rows.append(checks.row(runtime))
        else:
            others.append(runtime)
    explicit = isvc is not None and isvc.runtime_name is not None
    if not explicit and not any(row.compatible for row in rows):
        rows += [checks.row(runtime) for runtime in checked(others, every=RUNTIMES_PER_CHECK)]
    else:
        rows = [row for row in rows if row.compatible]
    return rows


def rows_key(checks: RuntimeChecks, isvc: InferenceService | None) -> RowsKey | None:
    """What an admission's ordered rows are worked out from besides the namespace's runtimes:
    everything ``RuntimeChecks`` reads but the model's name, which no row reads (the reasons
    name its format, never the model); whether the question names its runtime. None for a
    model with a diffusion pipeline (not hashable; rare)."""
    model = checks.model
    if model.diffusion is not None:
        return None
    explicit = isvc is not None and isvc.runtime_name is not None
    return (
        replace(model, name=""),
        checks.provider,
        checks.accelerators,
        checks.engine_mode,
        checks.decoder_mode,
        checks.one_bound_unsupported,
        explicit,
    )


def _ordered_rows(
    checks: RuntimeChecks,
    facts: NamespaceRuntimes,
    outcome_only: bool,
    isvc: InferenceService | None,
) -> tuple[RuntimeRow, ...]:
    """The rows in §5 order. With ``outcome_only``, they are shared by the questions of the same
    namespace that differ only in the model's name (a repository's copies of one model): each
    is worked out once per admission."""
    key = rows_key(checks, isvc) if outcome_only else None
    if key is not None:
        found = facts.ordered_rows.get(key)
        if found is not None:
            return found
    rows = tuple(order_rows(_checked_rows(checks, facts, outcome_only, isvc)))
    if key is not None:
        facts.ordered_rows[key] = rows
    return rows


def rank_runtimes(
    request: RankRequest, *, outcome_only: bool = False, shared: RuntimeSet | None = None
) -> Ranking:
    """The whole answer of ``/v1/rank`` for a validated request.

    ``outcome_only`` (admission, which reads what OME answers, never the table): the rows are
    the compatible runtimes' alone, found by checking first what every compatible row needs
    (``RuntimeSet``'s ``may_match``, then ``RuntimeChecks.may_qualify``); when none is, every
    row, since OME's no-runtime text lists each excluded runtime's reason. The selection,
    message, warnings and error are the same as without it
    (tests/selection/ranking/test_outcome_only.py). ``shared``: the facts of
    ``request.runtimes`` that other questions of the same runtimes share."""
    model = request.model
    namespace = target_namespace(request)
    if shared is not None and shared.runtimes is request.runtimes:
        facts = shared.in_namespace(namespace)
    else:
        facts = namespace_runtimes(request.runtimes, namespace)
    candidates = facts.candidates
    ignored = facts.ignored  # in order already
    if request.others:
        # A stable sort: the runtimes' keep the order among equals they were sorted into.
        ignored = [_other_ignored(other) for other in request.others] + ignored
        ignored.sort(key=ignored_order)
    common: _Common = {
        "model": model,
        "namespace": namespace,
        "ome_version": request.ome_version,
        "ignored": tuple(ignored),
    }
    warnings = repeat_warnings([*request.repeated, *facts.repeated])
    if not model.is_ready:
        # rules §15: OME refuses the model before it looks at any runtime.
        return Ranking(
            selected=None,
            message=MODEL_NOT_READY,
            rows=(),
            warnings=tuple(warnings),
            notes=(),
            error=SelectionError(SelectionErrorCode.MODEL_NOT_READY, MODEL_NOT_READY),
            **common,
        )

    checks = RuntimeChecks(request)
    isvc = request.inference_service
    rows = _ordered_rows(checks, facts, outcome_only, isvc)
    warnings += model_size_warnings(model) + facts.size_warnings
    unused = unused_size_range_warning(model, rows)
    if unused is not None:
        warnings.append(unused)
    notes: list[str] = []
    error = None
    if isvc is not None and isvc.runtime_name is not None:
        notes.append(NOTE_EXPLICIT)
        choice = explicit_choice(checks, isvc, namespace, candidates, request.ome_version)
        selected, message, error = choice.selected, choice.message, choice.error
        warnings = [*choice.warnings, *warnings]
    elif rows and rows[0].compatible:
        top = rows[0]
        selected = Selection(top.name, top.scope, compatible_score(top), False)
        message = f"Runtime {top.name} will be auto-selected for model {model.name}"
    else:
        selected = None
        message = no_runtime_message(model, namespace, rows)
    return Ranking(
        selected=selected,
        message=message,
        rows=rows,
        warnings=tuple(warnings),
        notes=tuple(notes),
        error=error,
        checks=checks,
        **common,
    )
