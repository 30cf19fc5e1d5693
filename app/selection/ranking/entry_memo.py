"""One request's answers per ``supportedModelFormats`` entry (score; what a way out reads),
each computed once per distinct entry: a cluster's runtimes repeat a handful of formats and
frameworks. Check 4's verdict (match or mismatch text) is not kept per entry: it shares the texts
of its parts between entries instead (``entries.entry_verdicts``).

Keyed by the fields each function reads, the format and framework by identity: loading shares
one object per distinct reference (``documents.shared_entry_ref``; the references of a
``/v1/rank`` JSON request are each entry's own, so equal ones there cost a computation each),
and the memo keeps every entry it computed for alive (a way out's changed entries are made on
the fly), so no identity in a key is reused by another object while the memo lasts (two equal
references that are distinct objects only cost a second computation). Hashing them by value
ran their generated ``__hash__`` on every lookup. A ``None`` key (what cannot be keyed) is
computed every time.
The values held are shared: callers only read them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..values import Entry, Model
from .entries import NO_PART, entry_score, entry_unit_score, entry_verdicts

T = TypeVar("T")
Key = tuple[object, ...]


def score_key(entry: Entry) -> Key:
    """What ``entry_score`` and a way out's score fixes read."""
    return (id(entry.format), id(entry.framework), entry.cache_providers, entry.priority)


class EntryMemo:
    def __init__(self, model: Model, provider: str):
        self.model, self.provider = model, provider
        self._tables: dict[str, dict[Key, Any]] = {}
        self._alive: list[Entry] = []  # the entries whose references' identities are keys
        self._verdict = entry_verdicts(model, provider)

    def check(self, entries: tuple[Entry, ...]) -> tuple[Entry | None, list[str]]:
        """Check 4 of rules §3 on a runtime's entries: the first that matches, or None and
        every entry's mismatch text (§3.2), in order. Not memoised by entry: the verdict shares
        its parts' texts between entries (``entries.entry_verdicts``), which costs less than a
        key of the entry's fields where entries rarely repeat, and no more where they do."""
        verdict = self._verdict
        texts: list[str] = []
        for entry in entries:
            text = verdict(entry)
            if text is None:
                return entry, texts
            texts.append(text)
        return None, texts

    def verdict(self, entry: Entry) -> str | None:
        """``None`` when the entry matches the model (rules §3.1), else why not (§3.2)."""
        first, texts = self.check((entry,))
        return None if first is not None else texts[0]

    def cached(
        self,
        table: str,
        key: Key | None,
        compute: Callable[..., T],
        entry: Entry,
        *more: object,
    ) -> T:
        """``compute(model, entry, provider, *more)``, once per ``key`` in ``table`` (``key``
        holds what ``more`` says, if anything)."""
        if key is None:
            return compute(self.model, entry, self.provider, *more)
        values = self._tables.get(table)
        if values is None:
            values = self._tables[table] = {}
        found = values.get(key)
        if found is None:
            found = values[key] = compute(self.model, entry, self.provider, *more)
            self._alive.append(entry)
        return found

    def matches(self, entry: Entry) -> bool:
        return self.check((entry,))[0] is not None

    def mismatch(self, entry: Entry) -> str:
        """rules §3.2 (``entries.entry_mismatch``)."""
        return self.verdict(entry) or NO_PART

    def score(self, entry: Entry) -> int:
        return self.cached("score", score_key(entry), entry_score, entry)

    def unit_score(self, entry: Entry) -> int:
        """The entry's score at priority 1: what each unit of priority adds (the advice)."""
        return self.cached("unit_score", score_key(entry)[:-1], entry_unit_score, entry)
