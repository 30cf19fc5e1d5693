"""The questions asked of a cluster's objects (app/selection/questions/outcomes.py, rules
§17–§19): every InferenceService's outcome in namespace and name order, the models no
InferenceService names, and the rankings and class checks they will cost, counted first."""

from __future__ import annotations

import pytest

from app.selection.questions.outcomes import (
    planned_placements,
    planned_rankings,
    selections,
    unnamed_model_rows,
)
from app.selection.ranking import SelectionErrorCode
from app.selection.values import CatalogView
from tests.builders import entry, isvc_doc, loaded, model_doc, runtime_doc


def view(*manifests) -> CatalogView:
    return CatalogView.of([loaded(manifest) for manifest in manifests])


CLUSTER = view(
    model_doc("llama", namespace="demo"),
    model_doc("qwen", namespace="demo", architecture="Qwen2ForCausalLM"),
    model_doc("spare", namespace="team"),
    runtime_doc("rt", entry()),
    isvc_doc("zeta", namespace="demo", model={"name": "llama"}, engine={}),
    isvc_doc("alpha", namespace="demo", model={"name": "llama"}, engine={}),
    isvc_doc("odd", namespace="demo", model={"name": "qwen"}, engine={}),
    isvc_doc("nameless", namespace="b-team", engine={}),
    isvc_doc("ghostly", namespace="b-team", model={"name": "ghost"}),
)


def test_every_inference_service_has_an_outcome_by_namespace_and_name():
    rows = selections(CLUSTER)
    assert [(row.namespace, row.name, row.error) for row in rows] == [
        ("b-team", "ghostly", SelectionErrorCode.MODEL_NOT_FOUND),
        ("b-team", "nameless", None),
        ("demo", "alpha", None),
        ("demo", "odd", SelectionErrorCode.NO_RUNTIME_FOUND),
        ("demo", "zeta", None),
    ]
    by_name = {row.name: row for row in rows}
    assert by_name["nameless"].message == "InferenceService names no model"
    assert by_name["ghostly"].message == "No BaseModel or ClusterBaseModel with the name: ghost"
    assert by_name["alpha"].selected is not None and by_name["alpha"].selected.name == "rt"


def test_services_asking_one_question_share_one_ranking():
    rows = {row.name: row for row in selections(CLUSTER)}
    assert rows["alpha"].ranking is rows["zeta"].ranking
    assert planned_rankings(CLUSTER) == 2  # llama's question and qwen's


def test_a_namespace_filters_the_outcomes_and_their_cost():
    assert [row.name for row in selections(CLUSTER, namespace="b-team")] == ["ghostly", "nameless"]
    assert planned_rankings(CLUSTER, namespace="b-team") == 0


def test_the_models_no_inference_service_names():
    [row] = unnamed_model_rows(CLUSTER)
    assert (row.namespace, row.name, row.model) == ("team", "", "spare")
    assert row.selected is not None and row.selected.name == "rt"
    assert planned_rankings(CLUSTER, unnamed=True) == 3


@pytest.mark.parametrize(
    ("classes", "components", "checks"),
    [
        (None, {"engine": {}}, 0),  # no runtime lists a class: no check
        (["a", "b", "c"], {"engine": {}}, 3),
        (["a", "b", "c"], {"engine": {}, "decoder": {}}, 6),
    ],
)
def test_the_class_checks_the_placements_may_make(classes, components, checks):
    """Per distinct question and accelerator fields, each component set times the longest
    class list: two InferenceServices of one spec count once."""
    spec = {} if classes is None else {"acceleratorRequirements": {"acceleratorClasses": classes}}
    cluster = view(
        model_doc("llama", namespace="demo"),
        runtime_doc("rt", entry(), **spec),
        isvc_doc("a", namespace="demo", model={"name": "llama"}, **components),
        isvc_doc("b", namespace="demo", model={"name": "llama"}, **components),
    )
    assert planned_placements(cluster) == checks
