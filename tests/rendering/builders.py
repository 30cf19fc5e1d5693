"""A small cluster's outcomes for the rendering tests: one InferenceService that gets a runtime
and one whose model does not exist, as ``selections`` answers them (rules §17)."""

from __future__ import annotations

from app.selection.questions import SelectionRow, selections
from app.selection.values import CatalogView
from tests.builders import entry, isvc_doc, loaded, model_doc, runtime_doc

CLUSTER = [
    model_doc("llama"),
    runtime_doc("a", entry(priority=1)),
    isvc_doc("chat", model={"name": "llama"}, engine={}),
    isvc_doc("lost", model={"name": "ghost"}, engine={}),
]


def outcomes(*manifests: dict) -> list[SelectionRow]:
    """Every InferenceService's outcome in a cluster of ``manifests``."""
    return selections(CatalogView.of([loaded(manifest) for manifest in manifests]))
