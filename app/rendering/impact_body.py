"""Which InferenceServices a change moves (rules §19 impact): the comparison of what
``/v1/select`` answers for each before and after, and its table."""

from __future__ import annotations

import json
from typing import Any

from app.selection.placement import Placement
from app.selection.prediction import Prediction
from app.selection.questions import SelectionRow
from app.selection.values import checked

from .encode import text_table
from .payloads import select_answer
from .placement_body import placement_body
from .selections_body import selection_body

IMPACT_COLUMNS = ("NAMESPACE", "INFERENCESERVICE", "MODEL", "BEFORE", "AFTER", "MESSAGE")


class _Placements:
    """Each distinct placement rendered once: InferenceServices of one spec share one placement
    (``selections``), and so one body, whose size ``message_bytes`` then counts per change."""

    def __init__(self) -> None:
        self._bodies: dict[int, dict[str, Any] | None] = {}
        self._kept: list = []  # the placements, alive while this lives: no id is reused

    def body(self, placement: Placement | None) -> dict[str, Any] | None:
        if placement is None:
            return None
        found = self._bodies.get(id(placement), _MISSING)
        if found is _MISSING:
            found = self._bodies[id(placement)] = placement_body(placement)
            self._kept.append(placement)
        return found


_MISSING: Any = object()


def _outcome(row: SelectionRow, placements: _Placements) -> dict[str, Any]:
    body = selection_body(row)
    return {
        "runtime": body["runtime"],
        "message": body["message"],
        "error": body["error"],
        "placement": placements.body(row.placement),
    }


class _SelectAnswers:
    """What ``/v1/select`` answers for each InferenceService, byte for byte, rendered once per
    ranking: InferenceServices that ask the same question share one (its answer can list every
    runtime's reason)."""

    def __init__(self) -> None:
        self._by_ranking: dict[int, tuple] = {}
        self._rankings: list = []  # kept alive, so that no id is reused while this lives

    def of(self, row: SelectionRow) -> tuple:
        if row.ranking is None:
            return (row.message, row.error)
        found = self._by_ranking.get(id(row.ranking))
        if found is None:
            # the row's placement is compared on its own: the answer is the ranking's alone
            answer = select_answer(Prediction(row.ranking))
            found = self._by_ranking[id(row.ranking)] = (answer.status, answer.body)
            self._rankings.append(row.ranking)
        return found


def changed_rows(
    before: list[SelectionRow], after: list[SelectionRow]
) -> tuple[int, list[tuple[SelectionRow, SelectionRow]]]:
    """(InferenceServices compared, each changed one's rows before and after, in ``after``'s
    order): an InferenceService that only one side holds is not compared; one changes when its
    ``/v1/select`` answer does (status or body, its ``placement`` included)."""
    earlier = {(row.namespace, row.name): row for row in before}
    answers = _SelectAnswers()
    found = []
    compared = 0
    for row in checked(after):
        old = earlier.get((row.namespace, row.name))
        if old is None:
            continue
        compared += 1
        # The answer less its placement is shared by the InferenceServices of one ranking; the
        # placement is each one's own (rules §20.8: a changed class is a change).
        if answers.of(old) != answers.of(row) or old.placement != row.placement:
            found.append((old, row))
    return compared, found


def changes(before: list[SelectionRow], after: list[SelectionRow]) -> tuple[int, list[dict]]:
    """(InferenceServices compared, the changes): ``changed_rows``, as the impact answers them."""
    compared, pairs = changed_rows(before, after)
    placements = _Placements()
    found = [
        {
            "namespace": row.namespace,
            "name": row.name,
            "model": row.model,
            "before": _outcome(old, placements),
            "after": _outcome(row, placements),
        }
        for old, row in pairs
    ]
    return compared, found


def impact_text(found: list[dict]) -> str:
    return text_table([IMPACT_COLUMNS, *(_change_row(change) for change in found)])


def fleet_impact_text(clusters: list[dict]) -> str:
    """The fleet's changes (rules §19 "Fleet impact"): each cluster's rows, as its own impact
    writes them, after the cluster's name."""
    return text_table(
        [
            ("CLUSTER", *IMPACT_COLUMNS),
            *(
                (cluster["cluster"], *_change_row(change))
                for cluster in clusters
                for change in cluster["changes"]
            ),
        ]
    )


def _change_row(change: dict) -> tuple[str, ...]:
    def runtime(outcome: dict) -> str:
        return outcome["runtime"]["name"] if outcome["runtime"] else "-"

    return (
        change["namespace"],
        change["name"],
        change["model"] or "-",
        runtime(change["before"]),
        runtime(change["after"]),
        change["after"]["message"],
    )


def message_bytes(found: list[dict]) -> int:
    """What the changes' messages and placements weigh: a message can list every runtime's
    reason, a placement every listed class (and many changes share one placement's body)."""
    sizes: dict[int, int] = {}
    total = 0
    for change in checked(found, every=64):
        for side in (change["before"], change["after"]):
            total += len(side["message"])
            body = side["placement"]
            if body is not None:
                if id(body) not in sizes:
                    sizes[id(body)] = len(json.dumps(body))
                total += sizes[id(body)]
    return total
