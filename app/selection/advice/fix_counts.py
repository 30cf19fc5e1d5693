"""How many fixes an entry needs (entry_fixes.py), counted without making them, from facts about
the model worked out once per request: a way out (way_out.py) is the fewest changes, and most
entries of a ``No`` row are far from the fewest.

``floor`` reads the fields as they are (names, presence, architecture, quantization, the cache
provider) and is at most what ``entry_fixes`` gives; ``rest`` adds what needs the versions parsed
(and a diffusion pipeline's parts), and the two added are exactly ``entry_fixes``'s (any
``Blocker``, how many fixes). ``score_floor`` is at most what ``score_fixes`` gives, and
``score_count`` is exactly how many, and ``scores_once_matched`` tells whether an entry scores
once ``entry_fixes``'s changes are made (so that its score needs no fix but the weight's).
tests/selection/test_fix_counts.py holds each to the fixes themselves.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ranking import (
    ZERO_FORMAT_WEIGHT,
    ZERO_FRAMEWORK_WEIGHT,
    diffusion_mismatch,
    model_format,
    supports_cache_provider,
)
from ..values import Entry, EntryRef, Model, ModelRef, checked, parse_version, versions_match
from .changes import Change
from .entry_fixes import version_accepting, weight_fix


class FixCounts:
    """The counts for one model and configured provider (``provider`` already trimmed)."""

    def __init__(self, model: Model, provider: str):
        self.model, self.provider = model, provider
        self.sharded = model.is_sharded
        self.format, self.framework = model_format(model), model.framework
        # Per model reference and operator: the fixes of a version that does not match it.
        self._outcomes: dict[tuple[bool, str | None], int | None] = {}

    def floor(self, entry: Entry) -> tuple[bool, int]:
        """(blocked, count) at most ``entry_fixes``'s: a version that one side sets alone is
        one fix (a change or a blocker), two set versions none yet."""
        model = self.model
        blocked = False
        count = int(entry.architecture != model.architecture)
        count += entry.quantization != model.quantization
        if self.sharded and not supports_cache_provider(model, entry, self.provider):
            blocked, count = self.provider == "", count + 1
        fmt, wanted = entry.format, self.format
        if fmt is None:
            count += 1 + (wanted.version is not None)
        else:
            count += (fmt.name != wanted.name) + ((wanted.version is None) != (fmt.version is None))
        framework, wanted_framework = entry.framework, self.framework
        if wanted_framework is None:
            return blocked, count + (framework is not None)
        if framework is None:
            return blocked, count + 1 + (wanted_framework.version is not None)
        count += framework.name != wanted_framework.name
        return blocked, count + ((wanted_framework.version is None) != (framework.version is None))

    def floors(self, entries: Sequence[Entry]) -> list[tuple[tuple[bool, int], int]]:
        """``(floor(entry), index)`` of each of a runtime's entries, in order: ``floor``
        written out over many entries (a call per entry cost as much as its counting)."""
        if self.sharded:  # rare: the provider's part as ``floor`` has it
            floor = self.floor
            return [(floor(entry), index) for index, entry in enumerate(checked(entries, every=64))]
        model, wanted, framework = self.model, self.format, self.framework
        architecture, quantization = model.architecture, model.quantization
        name, unversioned = wanted.name, wanted.version is None
        no_format = 2 - unversioned
        if framework is not None:
            framework_name = framework.name
            framework_unversioned = framework.version is None
            no_framework = 2 - framework_unversioned
        floors = []
        for index, entry in enumerate(checked(entries, every=64)):
            count = (entry.architecture != architecture) + (entry.quantization != quantization)
            fmt, ref = entry.format, entry.framework
            if fmt is None:
                count += no_format
            else:
                count += (fmt.name != name) + (unversioned != (fmt.version is None))
            if framework is None:
                count += ref is not None
            elif ref is None:
                count += no_framework
            else:
                count += (ref.name != framework_name) + (
                    framework_unversioned != (ref.version is None)
                )
            floors.append(((False, count), index))
        return floors

    def least_floor(self, entries: Sequence[Entry]) -> int:
        """The least ``floor`` count of a runtime's entries (0 when one matches)."""
        return min(count for (_, count), _ in self.floors(entries))

    def _outcome(self, framework: bool, model: ModelRef, operator: str | None) -> int | None:
        """The fixes of an entry version ``model``'s does not match (strict, §3.1): the
        version at the edge (1), the operator dropped too (2), or None (a blocker: the model's
        version does not parse)."""
        key = (framework, operator)
        if key not in self._outcomes:
            version = model.version
            assert version is not None
            if version_accepting(version, operator) is not None:
                self._outcomes[key] = 1
            else:
                self._outcomes[key] = None if parse_version(version) is None else 2
        return self._outcomes[key]

    def _version_rest(self, framework: bool, model: ModelRef, ref: EntryRef | None) -> int | None:
        version = model.version
        if version is None:
            return 0  # an entry version is removed: one fix, counted by the floor
        have, operator = (None, None) if ref is None else (ref.version, ref.operator)
        if have is not None and versions_match(version, have, operator):
            return 0
        outcome = self._outcome(framework, model, operator)
        if outcome is None:
            return None
        return outcome - (have is None)  # the floor counted one for a missing version

    def rest(self, entry: Entry) -> tuple[bool, int]:
        """What ``floor`` leaves out: the fixes of two set versions, a version's blocker and
        its second fix, a diffusion pipeline's."""
        blocked, count = False, 0
        if entry.diffusion is not None and diffusion_mismatch(
            self.model.diffusion, entry.diffusion
        ):
            count = 1
        for framework, model, ref in (
            (False, self.format, entry.format),
            (True, self.framework, entry.framework),
        ):
            if model is None:
                continue
            needed = self._version_rest(framework, model, ref)
            if needed is None:  # a blocker: one fix, which the floor counted for a missing version
                blocked, needed = True, int(ref is not None and ref.version is not None)
            count += needed
        return blocked, count

    def scores_once_matched(self, entry: Entry) -> bool:
        """Whether ``entry`` scores above 0 (§4) once ``entry_fixes``'s changes are made (it
        then matches, §3.1): none of them touches a weight or the priority, a reference they
        add weighs 1, and a framework the model has none of is removed."""
        fmt, framework = entry.format, entry.framework
        weight = (1 if fmt is None else fmt.weight) or ZERO_FORMAT_WEIGHT
        if self.framework is not None:
            weight += (1 if framework is None else framework.weight) or ZERO_FRAMEWORK_WEIGHT
        return weight * entry.effective_priority > 0

    def matched_score_fixes(self, entry: Entry) -> list[Change]:
        """``score_fixes`` of ``entry`` once ``entry_fixes``'s changes are made: none when it
        scores (``scores_once_matched``), else only the weight's, made without making the
        entry (its format is set then, its framework the model's or none)."""
        if self.scores_once_matched(entry):
            return []
        if self.framework is None:
            return [weight_fix(True, None)]
        framework = entry.framework
        return [weight_fix(True, 1 if framework is None else framework.weight)]

    def score_floor(self, entry: Entry) -> int | None:
        """How many fixes ``score_fixes`` gives at least; None when it gives a ``Blocker`` (only
        the provider's: the score reads no version alone). The versions and the weight it
        leaves out only add fixes."""
        count = 0
        if self.sharded and not supports_cache_provider(self.model, entry, self.provider):
            if self.provider == "":
                return None
            count = 1
        wanted = self.framework
        if entry.format is None:
            count += wanted is None  # nothing scored: the format's name is set
        else:
            count += entry.format.name != self.format.name
        if wanted is None:
            return count + (entry.framework is not None)
        return count + (entry.framework is None or entry.framework.name != wanted.name)

    def score_floors(self, entries: Sequence[Entry]) -> list[int | None]:
        """``score_floor`` of each of a runtime's entries, in order, written out over them."""
        if self.sharded:  # rare: the provider's part as ``score_floor`` has it
            return [self.score_floor(entry) for entry in checked(entries, every=64)]
        name, wanted = self.format.name, self.framework
        floors: list[int | None] = []
        for entry in checked(entries, every=64):
            fmt, ref = entry.format, entry.framework
            count = int(wanted is None) if fmt is None else int(fmt.name != name)
            if wanted is None:
                count += ref is not None
            else:
                count += ref is None or ref.name != wanted.name
            floors.append(count)
        return floors

    def _score_versions(self, framework: bool, ref: EntryRef | None) -> int:
        """The score's version fix (§4 reads two set versions only): 1 when they disagree."""
        model = self.framework if framework else self.format
        if model is None or ref is None or model.version is None or ref.version is None:
            return 0
        return not versions_match(model.version, ref.version, ref.operator)

    def score_count(self, entry: Entry) -> int | None:
        """Exactly how many fixes ``score_fixes`` gives; None when it gives a ``Blocker``."""
        count = self.score_floor(entry)
        if count is None:
            return None
        fmt, framework, wanted = entry.format, entry.framework, self.framework
        if fmt is not None:
            count += self._score_versions(False, fmt)
        count += self._score_versions(True, framework)
        # The weight fix: the score once the others are made, a reference they add weighing 1
        # (a format's name when nothing else is scored).
        weight = (fmt.weight or ZERO_FORMAT_WEIGHT) if fmt is not None else int(wanted is None)
        if wanted is not None:
            weight += (1 if framework is None else framework.weight) or ZERO_FRAMEWORK_WEIGHT
        return count + (weight * entry.effective_priority <= 0)
