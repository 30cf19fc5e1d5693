"""An InferenceService's outcome in one word (rules §17.1): explicit, selected or noRuntime."""

from __future__ import annotations

from app.selection.questions import selections
from app.selection.questions.outcome_changes import (
    EXPLICIT,
    NO_RUNTIME,
    SELECTED,
    row_outcome,
)
from app.selection.values import CatalogView
from tests.builders import entry, isvc_doc, loaded, model_doc, runtime_doc


def test_each_row_has_one_outcome():
    view = CatalogView.of(
        loaded(manifest)
        for manifest in (
            model_doc("llama", namespace="demo"),
            runtime_doc("rt", entry()),
            isvc_doc("chosen", namespace="demo", model={"name": "llama"}, engine={}),
            isvc_doc(
                "named",
                namespace="demo",
                model={"name": "llama"},
                engine={},
                runtime={"name": "rt"},
            ),
            isvc_doc("lost", namespace="demo", model={"name": "ghost"}),
        )
    )
    outcomes = {row.name: row_outcome(row) for row in selections(view)}
    assert outcomes == {"chosen": SELECTED, "named": EXPLICIT, "lost": NO_RUNTIME}
