"""Two auto-select runtimes that compete for the same models (OME issues #30 and #594): an
``info`` finding says which of them OME picks and why, when no priority settles it (rules §18
infos, this project's choice: docs/lint.md).

Runtimes compete when they are enabled, of one scope (ServingRuntimes: of one namespace), and
each has an ``autoSelect: true`` entry that accepts the same models — the same ``modelFormat``
and ``modelFramework`` (names, versions, operators), architecture and quantization — at the same
priority, with size ranges that overlap (an absent range holds every size). Among such runtimes
OME orders by score (§4: the weights), then, for a model with a size, by distance, then by name
(§5). The first in that order is the *leader*; each other runtime whose range overlaps the
leader's gets one finding naming it, so the work is linear in the runtimes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ..ranking import ZERO_FORMAT_WEIGHT, ZERO_FRAMEWORK_WEIGHT
from ..values import Entry, EntryRef, Runtime, checkpoint, parse_size
from .findings import INFO, Finding

CODE = "OverlappingAutoSelect"
RefKey = tuple[str, str | None, str | None] | None
CompetitionKey = tuple[str, str | None, RefKey, RefKey, str | None, str | None, int]


@dataclass(frozen=True, slots=True)
class Contender:
    runtime: Runtime
    index: int  # the entry's
    entry: Entry
    score: int
    low: float
    high: float

    @property
    def order(self) -> tuple[int, bytes]:
        return (-self.score, self.runtime.name.encode())


def _ref(ref: EntryRef | None) -> RefKey:
    return None if ref is None else (ref.name, ref.version, ref.operator)


def _score(entry: Entry, priority: int) -> int:
    """§4's score for a model that both refs match."""
    score = 0
    if entry.format is not None:
        score += (entry.format.weight or ZERO_FORMAT_WEIGHT) * priority
    if entry.framework is not None:
        score += (entry.framework.weight or ZERO_FRAMEWORK_WEIGHT) * priority
    return score


def _bounds(runtime: Runtime) -> tuple[float, float]:
    size = runtime.size_range
    low = parse_size(size.min) if size is not None and size.min is not None else float("-inf")
    high = parse_size(size.max) if size is not None and size.max is not None else float("inf")
    return low, high


def _contenders(runtime: Runtime) -> Iterator[tuple[CompetitionKey, Contender]]:
    low, high = _bounds(runtime)
    seen: set[CompetitionKey] = set()
    for index, entry in enumerate(runtime.entries):
        if entry.auto_select is not True or entry.format is None:
            continue
        priority = 1 if entry.priority is None else entry.priority
        key = (
            runtime.kind,
            runtime.namespace,
            _ref(entry.format),
            _ref(entry.framework),
            entry.architecture,
            entry.quantization,
            priority,
        )
        score = _score(entry, priority)
        if key not in seen and score > 0:
            seen.add(key)
            yield key, Contender(runtime, index, entry, score, low, high)


def _label(contender: Contender) -> str:
    entry = contender.entry
    label = entry.format.name if entry.format is not None else ""
    if entry.framework is not None:
        label += f"/{entry.framework.name}"
    return label


def overlap_notes(
    runtimes: Iterable[Runtime], wanted: Callable[[Runtime], bool] | None = None
) -> list[Finding]:
    """The findings for the runtimes ``wanted`` (all when None) that another runtime beats
    without a priority to say so."""
    groups: dict[CompetitionKey, list[Contender]] = {}
    for runtime in runtimes:
        checkpoint()
        if runtime.is_disabled:
            continue
        for key, contender in _contenders(runtime):
            groups.setdefault(key, []).append(contender)
    found = []
    for contenders in groups.values():
        if len(contenders) < 2:
            continue
        leader = min(contenders, key=lambda c: c.order)
        for other in contenders:
            checkpoint()
            if other is leader or max(other.low, leader.low) > min(other.high, leader.high):
                continue
            if wanted is None or wanted(other.runtime):
                found.append(_finding(leader, other))
    return found


def _range(runtime: Runtime) -> str:
    size = runtime.size_range
    low = None if size is None else size.min
    high = None if size is None else size.max
    return (
        f"{'[' + low if low is not None else '(-inf'}, {high + ']' if high is not None else 'inf)'}"
    )


def _finding(leader: Contender, other: Contender) -> Finding:
    runtime = other.runtime
    priority = 1 if other.entry.priority is None else other.entry.priority
    shared = f"{_label(other)} models at priority {priority}"
    if leader.score != other.score:
        why = (
            f"for a model both take, {leader.runtime.name} is chosen by weight: score "
            f"{leader.score} > {other.score}"
        )
    elif _bounds(leader.runtime) == _bounds(other.runtime):
        why = (
            f"for a model both take, {leader.runtime.name} is chosen by name order: equal score "
            f"{other.score}"
        )
    else:
        why = (
            f"equal score {other.score}: a model with modelParameterSize goes to the runtime "
            f"whose range bounds are nearer its size, one without to {leader.runtime.name} by "
            "name order"
        )
    ranges = ""
    if runtime.size_range is not None or leader.runtime.size_range is not None:
        ranges = f" (sizes {_range(runtime)} and {_range(leader.runtime)} overlap)"
    return Finding(
        INFO,
        runtime.kind,
        runtime.namespace,
        runtime.name,
        f"spec.supportedModelFormats[{other.index}]",
        CODE,
        f"{leader.runtime.name} and this runtime both auto-select {shared}{ranges}; {why}",
    )
