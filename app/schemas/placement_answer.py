"""The ``placement`` of ``/v1/rank`` and ``/v1/select`` (rules §20.8): its schema, for the
OpenAPI document and its contract tests."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from app.selection.placement import ACCELERATOR_CLASS_NOT_FOUND, BEST_FIT_WITHOUT_CONSTRAINTS
from app.selection.values import POLICIES


def _doc(description: str) -> dict:
    return {"description": description}


def _nullable(field: fields.Field) -> fields.Field:
    field.required = True
    field.allow_none = True
    return field


class PlacementEntrySchema(Schema):
    index = fields.Integer(required=True, metadata=_doc("Its index in the list OME reads."))
    name = _nullable(fields.String(metadata=_doc("The entry's `name`, null when absent.")))
    score = fields.Integer(required=True, metadata=_doc("Its §4 score with priority 1."))
    defined_in = _nullable(
        fields.String(
            data_key="definedIn",
            metadata=_doc("The runtime of the inheritance chain whose own spec holds the list."),
        )
    )


class ClassLossSchema(Schema):
    name = fields.String(required=True)
    reason = _nullable(fields.String(metadata=_doc("Why it lost; null: it lost to nothing.")))


class PlacementErrorSchema(Schema):
    code = fields.String(
        required=True,
        validate=validate.OneOf((ACCELERATOR_CLASS_NOT_FOUND, BEST_FIT_WITHOUT_CONSTRAINTS)),
    )
    message = fields.String(required=True)
    if_fixed = fields.String(
        allow_none=True,
        data_key="ifFixed",
        metadata=_doc("BestFitWithoutConstraints only: the class OME code fixing it picks."),
    )


class ClassResourcesSchema(Schema):
    limits = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    requests = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


class ComponentPlacementSchema(Schema):
    accelerator_class = _nullable(
        fields.String(data_key="acceleratorClass", metadata=_doc("The class its pods get."))
    )
    from_ = _nullable(fields.String(data_key="from", metadata=_doc("The field that decided.")))
    policy = _nullable(fields.String(validate=validate.OneOf(POLICIES)))
    score = _nullable(fields.Float(metadata=_doc("The BestFit or MostCapable score.")))
    known = fields.Boolean(required=True)
    reason = _nullable(fields.String(metadata=_doc("Why there is no class.")))
    others = fields.List(fields.Nested(ClassLossSchema), required=True)
    accelerator_config = _nullable(fields.Dict(data_key="acceleratorConfig"))
    error = _nullable(fields.Nested(PlacementErrorSchema))
    node_selector = _nullable(
        fields.Dict(keys=fields.String(), values=fields.String(), data_key="nodeSelector")
    )
    resources = _nullable(fields.Nested(ClassResourcesSchema))


class PlacementEventSchema(Schema):
    reason = fields.String(required=True)
    message = fields.String(required=True)


class PlacementSchema(Schema):
    """What OME does after the runtime: the entry, each component's class, OME's event."""

    entry = _nullable(fields.Nested(PlacementEntrySchema))
    engine = _nullable(fields.Nested(ComponentPlacementSchema))
    decoder = _nullable(fields.Nested(ComponentPlacementSchema))
    event = _nullable(fields.Nested(PlacementEventSchema))


def placement_field() -> fields.Nested:
    return fields.Nested(
        PlacementSchema,
        required=True,
        allow_none=True,
        metadata=_doc(
            "rules §20: the entry, accelerator class and pod changes OME applies after the "
            "runtime; null when nothing is selected."
        ),
    )
