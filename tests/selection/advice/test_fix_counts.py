"""The counts of an entry's fixes: what a way out reads to skip the entries that cannot have the
fewest changes (advice/way_out.py). A floor above the fixes it bounds would hide the entry with
the fewest; one that is not exact once the rest is added would choose another; a wrong score
sign would skip the changes that make the runtime score."""

from __future__ import annotations

from hypothesis import given, settings

from app.schemas.requests import load_rank_request
from app.selection.advice.changes import Change, apply_to_entry
from app.selection.advice.entry_fixes import (
    Blocker,
    EntryFixes,
    FieldFixes,
    entry_fixes,
    first_fix_check,
    score_fixes,
)
from app.selection.advice.fix_counts import FixCounts
from app.selection.ranking import configured_provider, entry_score
from tests.builders import entry, model_doc, rank_body, runtime_doc
from tests.selection.advice.builders import requests


def _entries(body: dict):
    request = load_rank_request(body, {})
    provider = configured_provider(request.model_cache_provider)
    for runtime in request.runtimes:
        for item in runtime.entries:
            yield request.model, item, provider


def _blocked_and_count(fixes) -> tuple[bool, int]:
    return any(isinstance(fix, Blocker) for fix in fixes), len(fixes)


def _assert_counts_hold(body: dict) -> None:
    for model, item, provider in _entries(body):
        counts = FixCounts(model, provider)
        fixes = entry_fixes(model, item, provider)
        exact = _blocked_and_count(fixes)
        floor = counts.floor(item)
        assert floor <= exact, item
        rest = counts.rest(item)
        assert (floor[0] or rest[0], floor[1] + rest[1]) == exact, item
        if fixes:  # the summary's group of a check-4 row whose first entry this is
            assert first_fix_check(model, item, provider) == fixes[0].check, item
        if not exact[0]:
            changed = apply_to_entry(item, [fix for fix in fixes if isinstance(fix, Change)])
            scores = entry_score(model, changed, provider) > 0
            assert counts.scores_once_matched(item) is scores, item
            # Matching, the changed entry needs no score fix but its weight's.
            assert score_fixes(model, changed, provider) == counts.matched_score_fixes(item), item
        score_exact = _blocked_and_count(score_fixes(model, item, provider))
        if entry_score(model, item, provider) > 0:
            # No fix, and a floor of 0: a way out reads the score only of an entry at 0.
            assert score_exact == (False, 0) and counts.score_floor(item) == 0, item
        score_floor = counts.score_floor(item)
        if score_exact[0]:
            assert score_floor is None and counts.score_count(item) is None, item
        else:
            assert score_floor is not None and score_floor <= score_exact[1], item
            assert counts.score_count(item) == score_exact[1], item


@settings(max_examples=4 * settings.default.max_examples, deadline=None)
@given(requests())
def test_the_floor_never_passes_the_fixes_the_rest_makes_them_exact_and_the_score_agrees(body):
    _assert_counts_hold(body)


def test_the_counts_at_the_edges_of_versions_and_weights():
    """An unreadable model version blocks every entry with a version; GreaterThan at the
    largest version needs two changes; one side's version alone is one fix, or a blocker;
    weights of 0 count as 10 and 5, negative ones pull the score down."""
    top = "18446744073709551615"
    variants = [
        entry(),
        entry(format_version=None),
        entry(format_version=top, operator="GreaterThan"),
        entry(format_version=None, operator="GreaterThan"),
        entry(format_name="onnx", format_version="2.0.0", operator="GreaterThan"),
        entry(framework=None, framework_version=None),
        entry(framework_version="4.46.0", modelCacheProviders=["fleet"]),
        entry(format_name=None, framework=None),
        entry(weight=-9, framework_weight=-9),
        entry(weight=0, framework_weight=-9),
        entry(weight=-5, framework_weight=0, priority=3),
        entry(format_name=None, framework_weight=-1),
        entry(diffusionPipeline={"className": "FluxPipeline"}),
    ]
    for model in (
        model_doc(),
        model_doc(format_version=f"1.0.{top}"),
        model_doc(format_version="bad.."),
        model_doc(framework_version=None),
        model_doc(framework=None, framework_version=None, distribution="Sharded"),
    ):
        runtimes = [runtime_doc(f"r{i}", item) for i, item in enumerate(variants)]
        for provider in ({}, {"modelCacheProvider": "fleet"}):
            _assert_counts_hold(rank_body(model, *runtimes, **provider))


def _assert_shared_fixes_agree(body: dict) -> None:
    """Every entry of the request through one ``FieldFixes``, at its own index and at one
    further on: the same fixes as ``entry_fixes`` of that entry alone, though entries whose
    fields differ share the fixes of the same state."""
    request = load_rank_request(body, {})
    provider = configured_provider(request.model_cache_provider)
    shared = FieldFixes(request.model, provider)
    for runtime in request.runtimes:
        for at, item in enumerate(runtime.entries):
            for index in (at, at + 2):
                fixes = entry_fixes(request.model, item, provider, index)
                made = shared(item, index)
                assert made == EntryFixes.of(fixes), item
                assert made.fixes == tuple(fixes), item
                assert made.count == _blocked_and_count(fixes), item
                blocker = next((fix for fix in fixes if isinstance(fix, Blocker)), None)
                assert made.blocker == blocker, item
                if blocker is None:
                    assert made.changes == tuple(fixes), item


@settings(max_examples=4 * settings.default.max_examples, deadline=None)
@given(requests())
def test_fixes_shared_by_the_state_of_an_entry_are_its_own_fixes(body):
    _assert_shared_fixes_agree(body)


def test_entries_of_one_state_share_their_fixes_and_others_do_not():
    """Entries whose versions differ from the model's and each other's share one state
    (names alike, operators other than GreaterThan): the same fixes; GreaterThan, another
    version missing, another name, or a version that matches, each makes fixes of its own."""
    variants = [
        entry(format_version="2.0.0", framework_version="4.40.0"),
        entry(format_version="3.0.0", framework_version="4.41.0"),
        entry(format_version="3.0.0", framework_version="4.41.0", operator="GreaterThan"),
        entry(format_version=None, framework_version="4.41.0"),
        entry(format_version=None, framework_version="4.41.0", operator="GreaterThan"),
        entry(format_name="onnx", format_version="3.0.0", framework_version="4.41.0"),
        entry(format_version="3.0.0"),
        entry(format_version="3.0.0", architecture="Other", quantization="fp8"),
        entry(framework=None, framework_version=None),
        entry(format_name=None, framework=None),
        entry(diffusionPipeline={"className": "FluxPipeline"}),
        entry(modelCacheProviders=["local"]),
        entry(format_version="2.5.0", framework_version="4.42.0", operator="Equal"),
    ]
    runtimes = [runtime_doc(f"r{i}", item) for i, item in enumerate(variants)]
    for model in (
        model_doc(),
        model_doc(format_version="bad.."),
        model_doc(framework=None, framework_version=None, distribution="Sharded"),
        model_doc(format_version=None, framework_version=None),
    ):
        for provider in ({}, {"modelCacheProvider": "fleet"}):
            _assert_shared_fixes_agree(rank_body(model, *runtimes, **provider))
    request = load_rank_request(rank_body(model_doc(), *runtimes), {})
    shared = FieldFixes(request.model, "")
    made = [shared(runtime.entries[0], 0) for runtime in request.runtimes]
    assert made[0] is made[1] is made[-1]  # Equal or no operator: the model's own version
    assert len({id(fixes) for fixes in made[1:9]}) == 8


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(requests())
def test_the_floors_of_a_runtime_are_each_entrys_floor(body):
    """``floors`` and ``score_floors`` write ``floor`` and ``score_floor`` out over a runtime's
    entries: the same values (and types), in order."""
    request = load_rank_request(body, {})
    counts = FixCounts(request.model, configured_provider(request.model_cache_provider))
    for runtime in request.runtimes:
        entries = runtime.entries
        floors = counts.floors(entries)
        assert floors == [(counts.floor(item), index) for index, item in enumerate(entries)]
        assert [type(count) for (_, count), _ in floors] == [int] * len(entries)
        if entries:  # what a way out needs at least, by the floors
            assert counts.least_floor(entries) == min(count for (_, count), _ in floors)
        scores = counts.score_floors(entries)
        assert scores == [counts.score_floor(item) for item in entries]
        assert all(type(count) is int for count in scores if count is not None)
