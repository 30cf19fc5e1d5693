"""The AcceleratorClass document (app/schemas/accelerators.py, rules §20.1): its identity as the
API server creates it under its name, and the class the placement reads, with a value OME
cannot read refused at its field."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError

from app.schemas.accelerators import (
    accelerator_class_document_schema,
    accelerator_class_identity_schema,
)
from app.selection.values import AcceleratorClass
from tests.selection.placement.builders import class_doc, h100

SCHEMAS = [accelerator_class_document_schema, accelerator_class_identity_schema]


def refusal(schema, document) -> dict:
    with pytest.raises(ValidationError) as refused:
        schema.load(document)
    return refused.value.messages


def test_a_class_document_is_the_class_the_placement_reads():
    loaded = accelerator_class_document_schema.load(h100())
    assert loaded == AcceleratorClass.from_mapping(h100())
    assert (loaded.name, loaded.memory_gb.raw, loaded.cost.per_hour.raw) == (
        "nvidia-h100",
        "80Gi",
        "10",
    )


@pytest.mark.parametrize(
    ("fields", "path", "message"),
    [
        (
            {"memory": "80 GB"},
            ("capabilities", "memoryGB"),
            "'80 GB' is not a quantity (the CRD's pattern refuses it)",
        ),
        (
            {"cost": {"perHour": "x"}},
            ("cost", "perHour"),
            "'x' is not a quantity (the CRD's pattern refuses it)",
        ),
    ],
)
def test_a_value_ome_cannot_read_is_refused_at_its_field(fields, path, message):
    document = class_doc("gpu", **fields)
    found = refusal(accelerator_class_document_schema, document)
    assert found == {"spec": {path[0]: {path[1]: [message]}}}
    # The identity alone leaves the spec to the CRD's schema (lint judges it there).
    assert accelerator_class_identity_schema.load(document)["metadata"] == {"name": "gpu"}


@pytest.mark.parametrize("schema", SCHEMAS)
@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"kind": "BaseModel"}, "kind", "Must be equal to AcceleratorClass."),
        ({"apiVersion": "v1"}, "apiVersion", "Must be equal to ome.io/v1beta1."),
    ],
)
def test_the_identity_of_a_class(schema, change, field, message):
    assert refusal(schema, {**class_doc("gpu"), **change}) == {field: [message]}


@pytest.mark.parametrize("schema", SCHEMAS)
def test_a_class_is_named_as_the_api_server_names_objects(schema):
    found = refusal(schema, class_doc("Bad_Name"))
    assert found["metadata"]["name"][0].startswith(
        'Invalid value: "Bad_Name": a lowercase RFC 1123'
    )
