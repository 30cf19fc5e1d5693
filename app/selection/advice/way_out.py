"""The shortest way out of a ``No`` row: the changes to that runtime alone, per failing check of
rules §3 (every check it fails, not only the first, which gave the row its reason), that make it
a ``Yes`` row under the same rules, or why no change to the runtime alone can.

Exact by construction: each change sets a field to the value at the edge of what the check
accepts (the model's own value, size string or version; for ``GreaterThan``, whose left side is
the entry's version (§8), the next version up). The plan with the fewest changes wins; among
equals, the entry that comes first. docs/behaviours.md says what else is chosen here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TypeVar, cast

from ..ranking import (
    CHECK_ACCELERATOR,
    CHECK_AUTOSELECT,
    CHECK_DISABLED,
    CHECK_FORMAT,
    CHECK_MODE,
    CHECK_SCORE,
    CHECK_SIZE,
    LABEL_ACCELERATOR,
    LABEL_AUTOSELECT,
    LABEL_DISABLED,
    LABEL_MODE,
    LABEL_NO_FORMATS,
    LABEL_SCORE,
    LABEL_SIZE,
    LABELS,
    Ranking,
    RuntimeChecks,
    RuntimeRow,
    has_autoselect,
    name_key,
    score_key,
    valid_mode,
)
from ..values import Entry, Runtime, checked, parse_size, quick_init
from .changes import (
    ACCELERATOR_CLASSES,
    AUTO_SELECT,
    DECODER_MODE,
    DISABLED,
    ENGINE_MODE,
    SIZE_MAX,
    SIZE_MIN,
    Change,
)
from .entry_fixes import (
    Blocker,
    EntryFixes,
    FieldFixes,
    Fix,
    first_fix_check,
    score_fixes,
)
from .fix_counts import FixCounts

# A row's way out costs more than its advice (bench/README.md § "Figures behind the code"): a
# deadline check every 8 rows.
ROWS_PER_CHECK = 8
# Up to this many entries, a runtime's entries are read in their order, each compared with the
# best found, rather than sorted by their floors first (sorting them costs more than it spares),
# and without deadline checks of their own: the rows' cover them.
FEW_ENTRIES = 8

# rules §19: with more ``No`` rows than this, only the first this many (and the closest) carry
# a way out, which costs about as much as ranking its runtime (bench/README.md, round 10); the
# others this note.
WAY_OUTS = 64
FAR = (
    "not worked out: {count} runtimes do not qualify, and only the first {bound} of them and "
    "the closest carry a way out; ask with this runtime alone for its own"
)
# The changes of a row with no way out.
UNREACHABLE = sys.maxsize

NO_ENTRIES = (
    "the runtime has no supportedModelFormats entry to change: only a new entry for this "
    "model would make it qualify"
)


@quick_init
@dataclass(frozen=True, slots=True)
class WayOut:
    """The way out of one ``No`` row: ``changes`` (None when no change to the runtime alone
    makes it qualify, ``note`` then says why) and ``label``, the reason group of the row."""

    label: str
    changes: tuple[Change, ...] | None
    note: str | None = None


def _utf8(name: str) -> bytes:
    return name.encode("utf-8", "surrogatepass")


def _runtime_fixes(checks: RuntimeChecks, runtime: Runtime) -> list[Change]:
    """Checks 1, 2, 3 and 5: the runtime-wide fields, each fixed on its own."""
    fixes = []
    if runtime.is_disabled:
        fixes.append(Change(LABEL_DISABLED, DISABLED, False))
    required = checks.accelerators
    if required:
        offered = runtime.accelerator_classes or ()
        missing = sorted(required.difference(offered), key=_utf8)
        if missing:
            fixes.append(Change(LABEL_ACCELERATOR, ACCELERATOR_CLASSES, (*offered, *missing)))
    for field, wanted, annotation in (
        (ENGINE_MODE, checks.engine_mode, runtime.engine_mode_annotation),
        (DECODER_MODE, checks.decoder_mode, runtime.decoder_mode_annotation),
    ):
        mode = valid_mode(annotation)
        if wanted is not None and mode is not None and mode != wanted:
            fixes.append(Change(LABEL_MODE, field, wanted))
    return fixes


def _size_fixes(checks: RuntimeChecks, runtime: Runtime) -> list[Change]:
    """Check 5 (§9): the bound the model's size falls outside of becomes the model's own size
    string, which reads as the same number (bounds are inclusive); before 1.3, a missing bound
    is added the same way."""
    raw, size, bounds = checks.model.parameter_size, checks.size, runtime.size_range
    if raw is None or size is None or bounds is None:
        return []
    low, high = bounds.min, bounds.max
    fixes = []
    if checks.one_bound_unsupported and (low is None) != (high is None):
        # The missing bound becomes the size: that bound then fits whatever the other says.
        fixes.append(Change(LABEL_SIZE, SIZE_MIN if low is None else SIZE_MAX, raw))
    if low is not None and size < parse_size(low):
        fixes.append(Change(LABEL_SIZE, SIZE_MIN, raw))
    if high is not None and size > parse_size(high):
        fixes.append(Change(LABEL_SIZE, SIZE_MAX, raw))
    return fixes


RuntimeFixes = tuple[tuple[Change, ...], tuple[Change, ...]]  # before the entry's, after


class _EntryMemo:
    """The request's per-entry memo (entry_memo.py, shared with the ranking's checks) with what
    a way out adds: the fixes of an entry and of its score, and their floors."""

    def __init__(self, checks: RuntimeChecks):
        self.memo = checks.entries
        self.matches = self.memo.matches
        self.score = self.memo.score
        counts = FixCounts(checks.model, checks.provider)
        self.fix_floor, self.fix_rest = counts.floor, counts.rest
        self.fix_floors, self.score_fix_floors = counts.floors, counts.score_floors
        self.score_count = counts.score_count
        self.scores_once_matched = counts.scores_once_matched
        self.matched_score_fixes = counts.matched_score_fixes
        self._runtime_fixes: dict[tuple[object, ...], RuntimeFixes] = {}
        # entry_fixes of entry ``index``, its changes naming it
        self.fixes = FieldFixes(checks.model, checks.provider)
        self.least_floor = counts.least_floor

    def runtime_fixes(self, checks: RuntimeChecks, runtime: Runtime) -> RuntimeFixes:
        """``_runtime_fixes`` and ``_size_fixes``, once per distinct value of the fields they
        read: a catalog's runtimes repeat a few of them. A field is read only where the request
        asks what it answers (accelerator classes, deployment modes, a model's size); where it
        does not, the field plays no part in the key."""
        bounds = runtime.size_range
        key = (
            runtime.is_disabled,
            runtime.accelerator_classes if checks.accelerators else None,
            None if checks.engine_mode is None else runtime.engine_mode_annotation,
            None if checks.decoder_mode is None else runtime.decoder_mode_annotation,
            None if bounds is None or checks.size is None else (bounds.min, bounds.max),
        )
        found = self._runtime_fixes.get(key)
        if found is None:
            found = self._runtime_fixes[key] = (
                tuple(_runtime_fixes(checks, runtime)),
                tuple(_size_fixes(checks, runtime)),
            )
        return found

    def score_fixes(self, entry: Entry) -> list[Fix]:
        return self.memo.cached("score_fixes", score_key(entry), score_fixes, entry)


K = TypeVar("K", bound=tuple[object, ...])


def _least(
    floors: list[tuple[K, int]],
    exact: Callable[[K, int], K],
    best: tuple[K, int] | None = None,
    *,
    after: int | None = None,
) -> tuple[K, int] | None:
    """The least ``(exact(floor, i), i)``, given ``(floor, i)`` with ``floor <= exact(floor,
    i)`` for every entry ``i``, and the best known already, if any: the entries in the order
    of their floors, until a floor is past the best found (all after it are past it too). Way
    outs are the fewest changes; most entries of a ``No`` row are far from the fewest, and
    what tells how far exactly (their versions, parsed) is then never worked out. ``after``:
    ``floors`` is sorted already, and only those after that position are looked at."""
    if after is None:
        floors.sort()
    for floor in checked(floors if after is None else islice(floors, after, None), every=64):
        if best is not None and floor > best:
            break
        candidate = (exact(*floor), floor[1])
        if best is None or candidate < best:
            best = candidate
    return best


def _with_index(fixes: Sequence[Fix], index: int) -> list[Change]:
    return [
        Change(fix.check, fix.field, fix.value, index) for fix in fixes if isinstance(fix, Change)
    ]


class _Eligibility:
    """Checks 6 and 7 over the entries, once per runtime: which entry to change so that some
    entry has ``autoSelect: true`` and the score is above 0, whichever entry check 4 changes.
    Each entry's score and score fixes are worked out only when the answer depends on them."""

    __slots__ = ("_floors", "_has_autoselect", "entries", "memo")

    def __init__(self, memo: _EntryMemo, entries: tuple[Entry, ...]):
        self.memo = memo
        self.entries = entries
        self._has_autoselect: bool | None = None
        self._floors: list[int | None] | None = None

    @property
    def has_autoselect(self) -> bool:
        if self._has_autoselect is None:
            self._has_autoselect = has_autoselect(self.entries)
        return self._has_autoselect

    def _score_floors(self) -> list[int | None]:
        """Each entry's ``score_floor``, worked out once for the runtime (with a deadline check
        every 64 entries, ``FixCounts.score_floors``)."""
        if self._floors is None:
            self._floors = self.memo.score_fix_floors(self.entries)
        return self._floors

    def _scores_elsewhere(self, index: int | None) -> bool:
        """Whether an entry other than ``index``, not opted out, scores above 0."""
        score = self.memo.score
        # An entry that needs a score fix at least (a floor above 0, or a blocker) scores 0.
        for other, (entry, floor) in enumerate(
            zip(self.entries, self._score_floors(), strict=True)
        ):
            if other == index or entry.auto_select is False or floor != 0:
                continue
            if score(entry) > 0:
                return True
        return False

    def _needs_autoselect(self, entry: Entry) -> bool:
        return entry.auto_select is False or (
            not self.has_autoselect and entry.auto_select is not True
        )

    def _score_changes(self, entry: Entry, index: int) -> list[Change] | None:
        fixes = self.memo.score_fixes(entry)
        if any(isinstance(fix, Blocker) for fix in fixes):
            return None
        changes = _with_index(fixes, index)
        if self._needs_autoselect(entry):
            changes.append(Change(LABEL_AUTOSELECT, AUTO_SELECT, True, index))
        return changes

    def _cost(self, floor: tuple[int], index: int) -> tuple[int]:
        """How many changes ``_score_changes`` gives, counted without making them (an entry
        whose score fixes hold a blocker has no floor either, and is never asked)."""
        entry = self.entries[index]
        count = self.memo.score_count(entry)
        assert count is not None
        return (count + self._needs_autoselect(entry),)

    def _cheapest(self, index: int | None, own: tuple[int] | None) -> int:
        """The entry with the cheapest way to a positive score: ``index`` at the cost ``own``
        (None: no entry changed), or another entry, made as it is."""
        floors = []
        for other, (entry, floor) in enumerate(
            zip(self.entries, self._score_floors(), strict=True)
        ):
            if other != index and floor is not None:
                floors.append(((floor + self._needs_autoselect(entry),), other))
        seed = None if own is None or index is None else (own, index)
        best = _least(floors, self._cost, seed)
        assert best is not None  # the entry check 4 matches has every field the score reads agree
        return best[1]

    def changes(self, first_match: int, index: int | None = None) -> list[Change]:
        """What checks 6 and 7 need once entry ``index`` has the changes of its
        ``entry_fixes`` made (None: no entry changed); ``first_match`` is the first matching
        entry. Each is a ``LABEL_AUTOSELECT`` or ``LABEL_SCORE`` change."""
        entry = None if index is None else self.entries[index]
        # The changed entry alone (a runtime of one entry, as most are): no other entry scores,
        # and the cheapest way to a score is the changed entry's own.
        alone = index is not None and len(self.entries) == 1
        # Matching once changed, the entry's score needs no fix but its weight's.
        scores = entry is not None and self.memo.scores_once_matched(entry)
        eligible = entry is not None and entry.auto_select is not False
        if (scores and eligible) or (not alone and self._scores_elsewhere(index)):
            if self.has_autoselect:
                return []
            # As toWin does for check 6 (§19): autoSelect on the first matching entry.
            return [Change(LABEL_AUTOSELECT, AUTO_SELECT, True, first_match)]
        own = None
        if entry is not None:
            own = (int(not scores) + self._needs_autoselect(entry),)
        chosen = index if index is not None and alone else self._cheapest(index, own)
        if chosen != index or entry is None:
            return self._score_changes(self.entries[chosen], chosen) or []
        changes = _with_index(self.memo.matched_score_fixes(entry), chosen)
        if self._needs_autoselect(entry):
            changes.append(Change(LABEL_AUTOSELECT, AUTO_SELECT, True, chosen))
        return changes


Plan = tuple[Sequence[Change], list[Change]] | str  # the changes, or why none


def _fewest(memo: _EntryMemo, entries: tuple[Entry, ...]) -> tuple[int, EntryFixes]:
    """The entry with the fewest ``entry_fixes`` (the first of equals), and them; an entry is
    looked at only while its floor could still beat the best. A few entries: in their order,
    each one's fixes made at once (``FieldFixes`` shares them between entries of one state,
    so making them costs what counting them would). Many: in the order of their floors, each
    counted and only the chosen one's fixes made, with deadline checks (the rows' checks cover
    a few entries)."""
    fix_floor, fix_rest = memo.fix_floor, memo.fix_rest
    if len(entries) <= FEW_ENTRIES:
        fixes = memo.fixes(entries[0], 0)
        best, index = fixes.count, 0
        for other in range(1, len(entries)):
            entry = entries[other]
            if fix_floor(entry) >= best:
                continue
            found = memo.fixes(entry, other)
            if found.count < best:
                best, index, fixes = found.count, other, found
        return index, fixes

    def exact(floor: tuple[bool, int], other: int) -> tuple[bool, int]:
        rest_blocked, rest = fix_rest(entries[other])
        return floor[0] or rest_blocked, floor[1] + rest

    floors = memo.fix_floors(entries)
    floors.sort()
    index = floors[0][1]
    fixes = memo.fixes(entries[index], index)
    least = _least(floors, exact, (fixes.count, index), after=1)
    if least is None or least[1] == index:
        return index, fixes
    return least[1], memo.fixes(entries[least[1]], least[1])


def _entry_plan(memo: _EntryMemo, runtime: Runtime, unmatched: bool) -> Plan:
    """Checks 4, 6 and 7: the entry changes with the fewest changes, those of check 4 and those
    of checks 6 and 7 apart (or why none can). ``unmatched``: the ranking found no entry
    matching."""
    entries = runtime.entries
    if not entries:
        return NO_ENTRIES
    if not unmatched:
        first = next((i for i, e in enumerate(checked(entries, every=64)) if memo.matches(e)), None)
        if first is not None:
            return [], _Eligibility(memo, entries).changes(first)
    index, fixes = _fewest(memo, entries)
    if fixes.blocker is not None:
        return fixes.blocker.why
    entry = entries[index]
    if entry.auto_select is True and memo.scores_once_matched(entry):
        # What ``_Eligibility.changes`` finds first: the changed entry scores, selectable.
        return fixes.changes, []
    return fixes.changes, _Eligibility(memo, entries).changes(index, index)


def way_out(checks: RuntimeChecks, row: RuntimeRow) -> WayOut | None:
    """The way out of a ``No`` row; None for a ``Yes`` row. Each entry's answers come from
    the request's memo, which ``checks`` holds: every row of a ranking shares it."""
    return _way_out(_EntryMemo(checks), checks, row)


def _way_out(memo: _EntryMemo, checks: RuntimeChecks, row: RuntimeRow) -> WayOut | None:
    if row.compatible:
        return None
    runtime = row.runtime
    label = _label(checks, row)
    plan = _entry_plan(memo, runtime, row.failed_check == CHECK_FORMAT)
    if isinstance(plan, str):
        return WayOut(label, None, plan)
    entry_changes, late = plan
    early, sizes = memo.runtime_fixes(checks, runtime)
    return WayOut(label, (*early, *entry_changes, *sizes, *late))


def _label(checks: RuntimeChecks, row: RuntimeRow) -> str:
    """The reason group of a ``No`` row: the label of the check it fails, a check-4 row's by
    the first part its first entry fails (the first its ``reason`` names)."""
    if row.failed_check != CHECK_FORMAT:
        return _row_label(checks, row)
    entries = row.runtime.entries
    if not entries:
        return LABEL_NO_FORMATS
    return first_fix_check(checks.model, entries[0], checks.provider)


def _least_changes(memo: _EntryMemo, checks: RuntimeChecks, row: RuntimeRow, exact: bool) -> int:
    """How many changes the way out of ``row`` has at least (``UNREACHABLE`` when it has
    none): its runtime-wide fixes and the fewest its entries need (0 when one matches), by
    their floors or, ``exact``, the fewest ``entry_fixes`` of one (``_fewest``'s). Checks 6 and
    7 can only add to it."""
    runtime = row.runtime
    entries = runtime.entries
    if not entries:
        return UNREACHABLE
    early, sizes = memo.runtime_fixes(checks, runtime)
    if not exact:
        return len(early) + len(sizes) + memo.least_floor(entries)
    blocked, count = _fewest(memo, entries)[1].count
    return UNREACHABLE if blocked else len(early) + len(sizes) + count


def _row_label(checks: RuntimeChecks, row: RuntimeRow) -> str:
    check = row.failed_check
    if check == CHECK_DISABLED:
        return LABEL_DISABLED
    if check == CHECK_ACCELERATOR:
        return LABEL_ACCELERATOR
    if check == CHECK_MODE:
        return LABEL_MODE
    if check == CHECK_SIZE:
        return LABEL_SIZE
    if check == CHECK_AUTOSELECT:
        return LABEL_AUTOSELECT
    assert check == CHECK_SCORE
    first = next(e for e in row.runtime.entries if checks.entries.matches(e))
    return LABEL_AUTOSELECT if first.auto_select is not True else LABEL_SCORE


def way_outs(ranking: Ranking, bound: int = WAY_OUTS) -> tuple[WayOut | None, ...]:
    """One per row of the ranking: None for the ``Yes`` rows. With more than ``bound`` ``No``
    rows (rules §19), the first ``bound`` of them in the rows' order carry theirs, and so does
    the closest (the fewest changes, ties by the rows' order) wherever it stands; the others
    carry ``FAR`` as their note, and their reason group."""
    checks = ranking.checks
    rows = ranking.rows
    if checks is None:  # a model that is not Ready: no row
        return (None,) * len(rows)
    memo = _EntryMemo(checks)
    refused = [index for index, row in enumerate(rows) if not row.compatible]
    if len(refused) <= bound:
        return tuple(_way_out(memo, checks, row) for row in checked(rows, every=ROWS_PER_CHECK))
    found = {
        index: cast(WayOut, _way_out(memo, checks, rows[index]))
        for index in checked(refused[:bound], every=ROWS_PER_CHECK)
    }
    closest = _closest_after(memo, checks, rows, refused[bound:], found)
    if closest is not None:
        found[closest[0]] = closest[1]
    note = FAR.format(count=len(refused), bound=bound)
    return tuple(
        None
        if row.compatible
        else found[index]
        if index in found
        else WayOut(_label(checks, row), None, note)
        for index, row in enumerate(rows)
    )


def _closest_after(
    memo: _EntryMemo,
    checks: RuntimeChecks,
    rows: tuple[RuntimeRow, ...],
    after: list[int],
    found: dict[int, WayOut],
) -> tuple[int, WayOut] | None:
    """The row of ``after`` (rows after those ``found``) whose way out has fewer changes than
    any found, and it, if one has: the closest row, found without working out the way out of
    a row that needs as many changes at least (by its entries' floors, then their fixes
    counted). A row needs one change at least: after a row of one, none is looked at."""
    limit = min(
        (len(out.changes) for out in found.values() if out.changes is not None),
        default=UNREACHABLE,
    )
    closest = None
    for index in checked(after, every=ROWS_PER_CHECK):
        if limit <= 1:
            break
        row = rows[index]
        if _least_changes(memo, checks, row, False) >= limit:
            continue
        if _least_changes(memo, checks, row, True) >= limit:
            continue
        out = cast(WayOut, _way_out(memo, checks, row))
        if out.changes is not None and len(out.changes) < limit:
            limit, closest = len(out.changes), (index, out)
    return closest


def _unique(labels: list[str]) -> list[str]:
    return list(dict.fromkeys(labels))


def exclusion_summary(rows: tuple[RuntimeRow, ...], outs: tuple[WayOut | None, ...]) -> str | None:
    """One line: how many runtimes do not qualify, grouped by reason (in the order of the
    checks), and the one with the fewest changes to make (ties: the rows' order, §5)."""
    found = [(row, out) for row, out in zip(rows, outs, strict=True) if out is not None]
    if not found:
        return None
    counts: dict[str, int] = {}
    for _, out in found:
        counts[out.label] = counts.get(out.label, 0) + 1
    # the groups in the fixed order of the checks' labels
    groups = ", ".join(f"{label} ×{counts[label]}" for label in LABELS if label in counts)
    count = len(found)
    text = f"{count} runtime{'' if count == 1 else 's'} excluded: {groups}"
    closest = None
    for row, out in found:
        if out.changes is not None and (
            closest is None or len(out.changes) < len(closest[1].changes or ())
        ):
            closest = (row, out)
    if closest is None:
        return f"{text}; closest: none (no change to one runtime alone makes it qualify)"
    row, out = closest
    namesakes = sum(1 for other, _ in found if name_key(other.runtime) == name_key(row.runtime))
    name = f"{row.runtime.kind} {row.name}" if namesakes > 1 else row.name
    fixed = ", ".join(
        _unique([label for label in LABELS if any(c.check == label for c in out.changes or ())])
    )
    return f"{text}; closest: {name} ({fixed})"
