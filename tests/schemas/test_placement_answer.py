"""The ``placement`` of ``/v1/rank`` and ``/v1/select`` (app/schemas/placement_answer.py, rules
§20.8): the schema the OpenAPI description is made from describes every placement the rules
answer, errors and events included, and nothing it does not."""

from __future__ import annotations

import pytest

from app.rendering.placement_body import placement_body
from app.schemas.placement_answer import PlacementSchema, placement_field
from tests.selection.placement.builders import body_of, page_isvc, predict_body

SELECTORS = [
    {"policy": "BestFit", "constraints": {"minMemory": 80}},
    {"policy": "Cheapest"},
    {"policy": "MostCapable"},
    {"acceleratorClass": "nvidia-a100"},  # AcceleratorClassNotFound and its event
    {"policy": "BestFit"},  # BestFitWithoutConstraints, with the class a fix would pick
]


@pytest.mark.parametrize("selector", SELECTORS)
def test_every_placement_the_rules_answer_is_described(selector):
    body = placement_body(predict_body(body_of(page_isvc(acceleratorSelector=selector))))
    assert PlacementSchema().validate(body) == {}


def test_a_placement_the_rules_never_answer_is_not():
    body = placement_body(predict_body(body_of(page_isvc(acceleratorSelector=SELECTORS[3]))))
    body["engine"]["error"]["code"] = "SomethingElse"
    body["engine"]["policy"] = "Fastest"
    del body["engine"]["known"]
    assert set(PlacementSchema().validate(body)["engine"]) == {"error", "policy", "known"}


def test_the_answers_field_is_required_and_null_when_nothing_is_selected():
    field = placement_field()
    assert (field.required, field.allow_none) == (True, True)
    assert field.metadata["description"].startswith("rules §20:")
