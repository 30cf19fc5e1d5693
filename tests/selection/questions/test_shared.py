"""Answers shared across views (app/selection/questions/shared.py, rules §19 "Fleet impact"):
views whose runtimes, classes and settings agree share their rankings, even when read apart;
anything a ranking reads that differs (a runtime, a setting, the model's content behind one
name) shares nothing; and the rows are those of each view alone."""

from __future__ import annotations

from dataclasses import replace

from app.selection.questions import planned_placements, planned_rankings, selections
from app.selection.questions.shared import SharedAnswers
from app.selection.values import CatalogView
from tests.builders import entry, isvc_doc, loaded, model_doc, runtime_doc


def view(*manifests) -> CatalogView:
    return CatalogView.of([loaded(manifest) for manifest in manifests])


RUNTIMES = (runtime_doc("rt", entry()), runtime_doc("big", entry(), disabled=True))
SERVICES = (
    isvc_doc("a", model={"name": "llama"}, engine={}),
    isvc_doc("b", model={"name": "llama"}, engine={}),
)


def _ranked(views: list[CatalogView]) -> tuple[SharedAnswers, list]:
    shared = SharedAnswers()
    return shared, [selections(each, shared=shared) for each in views]


def test_views_that_agree_rank_once_and_answer_as_alone():
    east = view(*RUNTIMES, model_doc("llama"), *SERVICES)
    west = view(*RUNTIMES, model_doc("llama"), SERVICES[0])  # read apart: other objects
    shared, rows = _ranked([east, west])
    assert shared.of(east) is shared.of(west)
    assert len(shared.of(east).rankings) == 1
    assert rows == [selections(east), selections(west)]
    # The very same ranking object: computed once.
    assert rows[0][0].ranking is rows[1][0].ranking
    for each in (east, west):
        shared.plan(each)
    assert shared.planned() == [(1, 2)]


def test_a_model_of_the_same_name_but_other_content_is_its_own_question():
    east = view(*RUNTIMES, model_doc("llama"), *SERVICES)
    west = view(*RUNTIMES, model_doc("llama", format_version="2.0.0"), *SERVICES)
    shared, rows = _ranked([east, west])
    assert shared.of(east) is shared.of(west)
    assert len(shared.of(east).rankings) == 2
    assert rows == [selections(east), selections(west)]
    assert rows[0][0].selected is not None and rows[1][0].selected is None
    for each in (east, west):
        shared.plan(each)
    assert shared.planned() == [(2, 2)]


def test_other_runtimes_or_settings_share_nothing():
    east = view(*RUNTIMES, model_doc("llama"), *SERVICES)
    other_runtime = view(RUNTIMES[0], model_doc("llama"), *SERVICES)
    other_version = replace(east, ome_version="1.2")
    shared, rows = _ranked([east, other_runtime, other_version])
    assert len({id(shared.of(each)) for each in (east, other_runtime, other_version)}) == 3
    assert rows == [selections(each) for each in (east, other_runtime, other_version)]
    for each in (east, other_runtime, other_version):
        shared.plan(each)
    assert sorted(shared.planned()) == [(1, 1), (1, 2), (1, 2)]
    assert sum(questions for questions, _ in shared.planned()) == 3 * planned_rankings(east)


def test_placements_are_counted_once_per_context_too():
    classes = {"acceleratorRequirements": {"acceleratorClasses": ["h100", "a100", "l4"]}}
    runtime = runtime_doc("rt", entry(), **classes)
    east = view(runtime, model_doc("llama"), *SERVICES)
    west = view(runtime, model_doc("llama"), SERVICES[1])
    alone = planned_placements(east)
    assert alone > 0
    shared = SharedAnswers()
    for each in (east, west):
        shared.plan(each)
    assert shared.planned_placements() == alone
    other = view(runtime, model_doc("llama", format_version="2.0.0"), *SERVICES)
    shared.plan(other)
    assert shared.planned_placements() == 2 * alone
