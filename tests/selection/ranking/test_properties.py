"""Property tests over the selection rules: invariants that must hold for any input."""

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from app.schemas.requests import load_rank_request
from app.selection.ranking import CHECK_SIZE, has_autoselect, rank_runtimes
from app.selection.values import Entry
from tests.selection.builders import requests


def _rank(body):
    return rank_runtimes(load_rank_request(body, {}))


def _summary(ranking):
    return (
        [(r.name, r.scope, r.compatible, r.score, r.weight, r.reason) for r in ranking.rows],
        ranking.selected,
        ranking.message,
        ranking.warnings,
        [(i.name, i.reason) for i in ranking.ignored],
    )


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(requests(), st.randoms(use_true_random=False))
def test_runtime_order_in_the_request_never_matters(body, random):
    shuffled = copy.deepcopy(body)
    random.shuffle(shuffled["runtimes"])
    assert _summary(_rank(body)) == _summary(_rank(shuffled))


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(requests())
def test_rows_are_consistent(body):
    ranking = _rank(body)
    seen_no = False
    previous = None
    for row in ranking.rows:
        if row.compatible:
            assert not seen_no, "a Yes row after a No row"
            assert row.reason is None and row.score > 0 and row.priority >= 1
            if previous is not None and previous.scope == row.scope:
                assert previous.score >= row.score
            if previous is not None:
                assert not (previous.scope == "Cluster" and row.scope == "Namespaced")
            previous = row
        else:
            seen_no = True
            assert row.reason and row.score is None and row.weight is None
    first = ranking.rows[0] if ranking.rows else None
    if first is not None and first.compatible:
        assert (ranking.selected.name, ranking.selected.scope) == (first.name, first.scope)
    else:
        assert ranking.selected is None
        assert ranking.message.startswith("no runtime found to support model")


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(requests())
def test_weight_zero_scores_like_ten_and_five(body):
    zeroed = copy.deepcopy(body)
    tens = copy.deepcopy(body)
    for z_doc, t_doc in zip(zeroed["runtimes"], tens["runtimes"], strict=True):
        for z_entry, t_entry in zip(
            z_doc["spec"]["supportedModelFormats"],
            t_doc["spec"]["supportedModelFormats"],
            strict=True,
        ):
            for key, ten in (("modelFormat", 10), ("modelFramework", 5)):
                if key in z_entry:
                    z_entry[key]["weight"] = 0
                    t_entry[key]["weight"] = ten
    zero_rows = [(r.name, r.scope, r.compatible, r.score) for r in _rank(zeroed).rows]
    ten_rows = [(r.name, r.scope, r.compatible, r.score) for r in _rank(tens).rows]
    assert zero_rows == ten_rows


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(requests())
def test_autoselect_false_everywhere_selects_nothing(body):
    for doc in body["runtimes"]:
        for item in doc["spec"]["supportedModelFormats"]:
            item["autoSelect"] = False
    ranking = _rank(body)
    assert ranking.selected is None
    assert not any(row.compatible for row in ranking.rows)


@given(st.lists(st.sampled_from([None, False, True]), max_size=5))
def test_a_runtime_has_autoselect_when_an_entry_says_true(values):
    entries = tuple(Entry(auto_select=value) for value in values)
    assert has_autoselect(entries) is (True in values)


@settings(deadline=None)
@given(requests())
def test_a_rows_checks_are_what_support_finds(body):
    # A row reads checks 2-5 without a ``Support``: the same reason, check and entry.
    ranking = _rank(body)
    if ranking.checks is None:
        return
    for row in ranking.rows:
        if row.runtime.is_disabled:
            continue
        support = ranking.checks.support(row.runtime)
        if support.reason is not None:
            assert (row.reason, row.failed_check) == (support.reason, support.check)
        else:
            assert support.first is not None and (row.failed_check or 0) > CHECK_SIZE
