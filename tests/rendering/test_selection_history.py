"""What a change did to the outcomes (rules §17.1): the impact's comparison, the InferenceServices
only one side holds, and a mark instead of the changes when the work is over its bounds."""

from __future__ import annotations

from app.rendering.selection_history import selection_history
from app.selection.values import CatalogView, budget
from tests.builders import entry, isvc_doc, loaded, model_doc, runtime_doc
from tests.clock import TickingClock

BOUNDS = {"max_runtime_checks": 200_000, "max_runtimes": 10_000}


def view(*manifests) -> CatalogView:
    return CatalogView.of([loaded(manifest) for manifest in manifests])


def services(*names: str) -> list[dict]:
    return [isvc_doc(name, namespace="demo", model={"name": "llama"}, engine={}) for name in names]


BEFORE = view(model_doc("llama"), runtime_doc("a", entry()), *services("kept", "gone", "same"))
AFTER = view(
    model_doc("llama"),
    runtime_doc("a", entry()),
    runtime_doc("b", entry(weight=9)),
    *services("kept", "new", "same"),
)


def test_moved_added_and_removed_by_namespace_and_name():
    found = selection_history(BEFORE, AFTER, **BOUNDS)
    assert found.truncated is None
    moves = [
        (c.name, c.before and c.before["runtime"], c.after and c.after["runtime"])
        for c in found.changes
    ]
    assert moves == [
        ("gone", "a", None),
        ("kept", "a", "b"),
        ("new", None, "b"),
        ("same", "a", "b"),
    ]
    assert found.changes[0].after is None and found.changes[2].before is None


def test_nothing_moved_nothing_found():
    assert selection_history(BEFORE, BEFORE, **BOUNDS).changes == ()


def test_work_over_a_bound_is_a_mark_not_started():
    over = selection_history(BEFORE, AFTER, max_runtime_checks=2, max_runtimes=10_000)
    assert over.changes == () and "OME_RANKER_MAX_RUNTIME_CHECKS" in (over.truncated or "")
    wide = selection_history(BEFORE, AFTER, max_runtime_checks=200_000, max_runtimes=1)
    assert wide.changes == () and "OME_RANKER_MAX_RUNTIMES" in (wide.truncated or "")


def test_work_past_its_share_of_the_deadline_is_a_mark(monkeypatch):
    monkeypatch.setattr(budget, "time", TickingClock())  # one tick per check
    try:
        budget.start(6)  # a few checks: the comparison passes its share of them
        found = selection_history(BEFORE, AFTER, **BOUNDS)
        assert found.changes == () and "OME_RANKER_REQUEST_DEADLINE" in (found.truncated or "")
        budget.start(1e9)
        assert selection_history(BEFORE, AFTER, **BOUNDS).truncated is None
    finally:
        budget.clear()
