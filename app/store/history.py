"""Selection history (rules §17 "Selection history"): per cluster, what each catalog write did to
its InferenceServices' outcomes, kept with the catalog, in the same transaction, bounded.

A write's changes are worked out by ``HistoryOf`` (given by the service: app/catalog.py) from
the catalogs before and after it, inside the write's transaction; a backend numbers them
(``seq``, per cluster, growing by one per entry, never reused while the cluster lives) and
stores them with the catalog, dropping the oldest past ``max_changes``. The newest ``seq`` of a
cluster counts every change it recorded, dropped ones included: what a counter of selection
changes per cluster would read at scrape time, from the store, the same in every worker.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from app.selection.questions import OutcomeChange, OutcomeChanges
from app.selection.values import CatalogView

from .records import ClusterInfo

DEFAULT_HISTORY_MAX_CHANGES = 10_000  # per cluster
# The changes one answer lists at most, and by default.
MAX_PAGE, DEFAULT_PAGE = 1000, 100

HistoryOf = Callable[[CatalogView, CatalogView], OutcomeChanges]


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One InferenceService whose outcome a write moved (``before`` None: the write added it,
    ``after`` None: it removed it); or, with ``truncated`` saying why, the mark of a write whose
    changes were not worked out (no namespace, name, before or after)."""

    generation: int
    at: str
    namespace: str | None
    name: str | None
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    truncated: str | None = None
    seq: int = 0  # given when stored

    def numbered(self, seq: int) -> HistoryEntry:
        return HistoryEntry(
            self.generation,
            self.at,
            self.namespace,
            self.name,
            self.before,
            self.after,
            self.truncated,
            seq,
        )

    def encoded(self) -> str:
        return json.dumps(
            {
                "seq": self.seq,
                "generation": self.generation,
                "at": self.at,
                "namespace": self.namespace,
                "name": self.name,
                "before": self.before,
                "after": self.after,
                "truncated": self.truncated,
            },
            separators=(",", ":"),
            ensure_ascii=True,
        )

    @classmethod
    def decoded(cls, text: str | bytes) -> HistoryEntry:
        value = json.loads(text)
        return cls(
            int(value["generation"]),
            value["at"],
            value["namespace"],
            value["name"],
            value["before"],
            value["after"],
            value.get("truncated"),
            int(value["seq"]),
        )


def history_entries(
    changes: OutcomeChanges, info: ClusterInfo, max_changes: int
) -> tuple[HistoryEntry, ...]:
    """A write's entries (generation and time of ``info``, the cluster after it), in the
    order they are listed newest first; one mark when the changes were not worked out or
    would not fit in the bound."""
    generation, at = info.generation, info.updated_at
    truncated = changes.truncated
    if truncated is None and len(changes.changes) > max_changes:
        truncated = (
            f"the write changed {len(changes.changes)} InferenceServices; a cluster's history "
            f"keeps at most {max_changes} changes (OME_RANKER_HISTORY_MAX_CHANGES)"
        )
    if truncated is not None:
        return (HistoryEntry(generation, at, None, None, None, None, truncated),)
    return tuple(_entry(generation, at, change) for change in changes.changes)


def _entry(generation: int, at: str, change: OutcomeChange) -> HistoryEntry:
    return HistoryEntry(
        generation,
        at,
        change.namespace,
        change.name,
        None if change.before is None else dict(change.before),
        None if change.after is None else dict(change.after),
    )


def numbered(entries: Iterable[HistoryEntry], last: int) -> list[HistoryEntry]:
    """``entries`` (as listed newest first) numbered after ``last``, oldest first: the first
    listed gets the highest number."""
    listed = list(entries)
    return [entry.numbered(last + len(listed) - i) for i, entry in enumerate(listed)][::-1]


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """What ``GET …/history`` asks: changes made after generation ``since``, of one namespace
    and name (a mark matches every one), older than ``cursor`` (a ``seq``), at most ``limit``."""

    since: int | None = None
    namespace: str | None = None
    name: str | None = None
    cursor: int | None = None
    limit: int = DEFAULT_PAGE

    @property
    def filtered(self) -> bool:
        return self.namespace is not None or self.name is not None

    def matches(self, entry: HistoryEntry) -> bool:
        if entry.truncated is not None:
            return True
        return (self.namespace is None or entry.namespace == self.namespace) and (
            self.name is None or entry.name == self.name
        )


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """One snapshot of a cluster: its info, the entries asked for (newest first), and the
    cursor of the next page (None: no more)."""

    info: ClusterInfo
    entries: tuple[HistoryEntry, ...]
    next: int | None


def page_of(info: ClusterInfo, entries: Iterable[HistoryEntry], query: HistoryQuery) -> HistoryPage:
    """The page from ``entries``, newest first, older than the cursor: those of the query,
    stopping at the first made at or before ``since``, one more than the limit telling whether
    there is a next page."""
    found: list[HistoryEntry] = []
    for entry in entries:
        if query.since is not None and entry.generation <= query.since:
            break
        if query.matches(entry):
            found.append(entry)
            if len(found) > query.limit:
                break
    more = len(found) > query.limit
    found = found[: query.limit]
    return HistoryPage(info, tuple(found), found[-1].seq if more else None)
