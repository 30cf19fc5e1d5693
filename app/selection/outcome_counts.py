"""A cluster's InferenceServices counted by outcome (rules §21), for the fleet summary, the
cluster list and the metrics: the outcomes ``selections`` gives each InferenceService (rules
§17, §19) and the refusals lint's admission gives it (rules §18, §20.7), counted, never decided
again here. Pure, over one ``CatalogView`` and the stored manifests lint reads besides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .admission import ERROR, admit, planned_admission_rankings
from .placement import ComponentPlacement
from .questions import (
    EXPLICIT,
    NO_RUNTIME,
    SELECTED,
    SelectionRow,
    planned_placements,
    planned_rankings,
    row_outcome,
    selections,
)
from .values import CatalogView, ObjectKey, object_key

# rules §21, in the order every answer lists them: the first three split the InferenceServices
# (each is exactly one of them: ``row_outcome``, rules §17.1); the last three count
# InferenceServices among them.
REFUSED, CLASS_UNKNOWN, CLASS_ERROR = "refused", "classUnknown", "classError"
OUTCOMES = (SELECTED, EXPLICIT, NO_RUNTIME, REFUSED, CLASS_UNKNOWN, CLASS_ERROR)

FullRunners = frozenset[tuple[str | None, str]]


@dataclass(frozen=True, slots=True)
class OutcomeCounts:
    """How many InferenceServices of one catalog have each outcome of ``OUTCOMES``."""

    total: int
    selected: int
    explicit: int
    no_runtime: int
    refused: int
    class_unknown: int
    class_error: int

    def by_outcome(self) -> dict[str, int]:
        """Each outcome's count under its name in ``OUTCOMES``."""
        return dict(
            zip(
                OUTCOMES,
                (
                    self.selected,
                    self.explicit,
                    self.no_runtime,
                    self.refused,
                    self.class_unknown,
                    self.class_error,
                ),
                strict=True,
            )
        )


def _components(row: SelectionRow) -> tuple[ComponentPlacement, ...]:
    placement = row.placement
    if placement is None:
        return ()
    return tuple(part for part in (placement.engine, placement.decoder) if part is not None)


def class_unknown(row: SelectionRow) -> bool:
    """A component's class depends on classes that are not known (rules §20.8 ``known``)."""
    return any(not part.known for part in _components(row))


def class_error(row: SelectionRow) -> bool:
    """A component's class fails as OME's controller fails it (rules §20.5, §20.8 ``error``)."""
    return any(part.error is not None for part in _components(row))


def planned_work(view: CatalogView) -> int:
    """The runtime checks ``outcome_counts`` may make, at most (rules §17 "Bounded work"):
    the rankings of ``selections`` and of lint's admission, each reading every runtime, and the
    placements' class checks. Counted without the manifests: every InferenceService with an
    engine is counted as lint would rank it, an upper bound."""
    rankings = planned_rankings(view) + planned_admission_rankings(view, checked=_services(view))
    return rankings * len(view.runtimes) + planned_placements(view)


def _services(view: CatalogView) -> frozenset[ObjectKey]:
    return frozenset(object_key(isvc) for isvc in view.services)


def refused_services(
    view: CatalogView,
    full_runners: FullRunners,
    manifests: Mapping[ObjectKey, Mapping[str, Any]],
) -> frozenset[tuple[str, str]]:
    """``(namespace, name)`` of every InferenceService that lint would refuse (an ``error``
    finding) if it were applied again to the cluster as stored: OME's webhook judging it on its
    stored form (``manifests``) against the other objects."""
    admission = admit(view, checked=_services(view), full_runners=full_runners, manifests=manifests)
    return frozenset(
        (finding.namespace or "", finding.name)
        for finding in admission.findings
        if finding.severity == ERROR and finding.kind == "InferenceService"
    )


def outcome_counts(
    view: CatalogView,
    full_runners: FullRunners = frozenset(),
    manifests: Mapping[ObjectKey, Mapping[str, Any]] | None = None,
) -> OutcomeCounts:
    """Every InferenceService of ``view`` counted by outcome (rules §21): its ``selections``
    row, and lint's judgement of it (``full_runners``: the InferenceServices whose engine has a
    complete runner; ``manifests``: the stored objects, for what their documents do not keep)."""
    rows = selections(view)
    split = dict.fromkeys((SELECTED, EXPLICIT, NO_RUNTIME), 0)
    unknown = failing = 0
    for row in rows:
        split[row_outcome(row)] += 1
        unknown += class_unknown(row)
        failing += class_error(row)
    refused = refused_services(view, full_runners, manifests or {})
    return OutcomeCounts(
        total=len(rows),
        selected=split[SELECTED],
        explicit=split[EXPLICIT],
        no_runtime=split[NO_RUNTIME],
        refused=len(refused),
        class_unknown=unknown,
        class_error=failing,
    )
