"""The §4 score at priority 1 (entries.entry_unit_score), from which the score at the entry's
own priority is multiplied: both held to the rules' reading of the score, each weight times
the priority, summed."""

from __future__ import annotations

from hypothesis import given, settings

from app.selection.ranking.entries import (
    entry_score,
    entry_unit_score,
    model_format,
    supports_cache_provider,
)
from app.selection.values import versions_match
from tests.selection.ranking.support import ENTRIES, MODELS, PROVIDERS


def _agrees(have, wanted):
    """rules §4: the same name, and versions that match where both sides set one."""
    if have.name != wanted.name:
        return False
    if have.version is None or wanted.version is None:
        return True
    return versions_match(have.version, wanted.version, wanted.operator)


def reference_score(model, entry, provider, priority):
    if not supports_cache_provider(model, entry, provider):
        return 0
    fmt, framework = entry.format, entry.framework
    if fmt is not None and not _agrees(model_format(model), fmt):
        return 0
    if (model.framework is None) != (framework is None):
        return 0
    if framework is not None and not _agrees(model.framework, framework):
        return 0
    weighted = ((fmt, 10), (framework, 5))  # an explicit 0 counts as 10 and 5
    return sum((ref.weight or zero) * priority for ref, zero in weighted if ref is not None)


@settings(max_examples=400)
@given(MODELS, ENTRIES, PROVIDERS)
def test_the_score_is_the_unit_score_times_the_priority(model, entry, provider):
    assert entry_unit_score(model, entry, provider) == reference_score(model, entry, provider, 1)
    expected = reference_score(model, entry, provider, entry.effective_priority)
    assert entry_score(model, entry, provider) == expected
