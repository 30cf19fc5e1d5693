"""What a ranking answers (rules §6, §15), as placement/placed.py is what the placement
answers: rows, the selection or OME's error, what was ignored. Each row's advice (§19) and the
placement (§20) are the prediction's (``prediction.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from ..values import Model, Runtime, quick_init
from .checks import RuntimeChecks, RuntimeRow
from .selection_errors import SelectionError


@quick_init
@dataclass(frozen=True, slots=True)
class IgnoredObject:
    """Something in the request that is not a candidate (rules §2, §15): a ServingRuntime of
    another namespace, or an object of a kind selection does not read or that kubectl would
    not map (rules §18; ``scope`` None, and ``kind`` None when it has none)."""

    kind: str | None
    name: str | None
    namespace: str | None
    scope: str | None
    reason: str
    unmapped: bool = False  # kubectl would not map it: ``reason`` is kubectl's (rules §18)


def ignored_order(item: IgnoredObject) -> tuple[str, str, str]:
    """The order of what a ranking ignores: by namespace, name and kind."""
    return text_key(item.namespace), text_key(item.name), text_key(item.kind)


@dataclass(frozen=True, slots=True)
class Selection:
    name: str
    scope: str
    score: int
    explicit: bool


@dataclass(frozen=True, slots=True)
class Ranking:
    model: Model
    namespace: str
    ome_version: str
    selected: Selection | None
    message: str
    rows: tuple[RuntimeRow, ...]
    ignored: tuple[IgnoredObject, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    error: SelectionError | None = None
    # What the rows were checked against: the advice explains the rows from it, for the answers
    # that show them (lint, impact and selections never pay for it).
    checks: RuntimeChecks | None = field(default=None, compare=False, repr=False)

    def excluded(self) -> list[tuple[str, str]]:
        """rules §15: (name, reason) of the runtimes OME's no-runtime text lists."""
        return self.excluded_of(self.rows)

    @staticmethod
    def excluded_of(rows: tuple[RuntimeRow, ...]) -> list[tuple[str, str]]:
        """(name, reason) of the excluded rows in name order, each name once as OME keys them
        by name: the ClusterServingRuntime's reason when it is excluded, else the other's."""
        reasons: dict[str, tuple[str, str]] = {}
        for row in sorted(rows, key=name_scope_key):
            if row.excluded:  # a ClusterServingRuntime sorts after its namesake: it wins
                # cast: a row that failed a check has that check's reason (RuntimeChecks.row)
                reasons[name_key(row.runtime)] = (row.name, cast(str, row.reason))
        return list(reasons.values())


def distance_order(a: float, b: float) -> int:
    """rules §5, item 3: the controller truncates the difference to an integer, so distances
    less than 1 apart tie. A NaN difference (NaN or inf - inf) truncates to no order either: such
    rows tie and keep name order."""
    difference = a - b
    if difference <= -1:
        return -1
    if difference >= 1:
        return 1
    return 0


def name_key(runtime: Runtime) -> str:
    """rules §15 "Byte order": names compare by their UTF-8 bytes (``text_key``)."""
    return runtime.name


def name_scope_key(row: RuntimeRow) -> tuple[str, bool]:
    runtime = row.runtime
    return runtime.name, runtime.is_cluster


def text_key(text: str | None) -> str:
    """rules §15 "Byte order": texts compare by their UTF-8 bytes. UTF-8 keeps the order of
    code points (a lone surrogate, written with ``surrogatepass``, included), and Python
    compares texts by their code points: the text itself is the key, never encoded
    (tests/selection/ranking/test_ranked.py holds the two orders to each other)."""
    return "" if text is None else text
