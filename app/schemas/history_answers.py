"""The schema of ``GET /v1/clusters/{cluster}/history`` (docs/rules.md §17.1 "Selection
history"), as the OpenAPI description documents it; like the other answers' schemas, it refuses
unknown keys."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from app.selection.questions import EXPLICIT, NO_RUNTIME, SELECTED

from .rank_answers import SCOPES

OUTCOMES = (SELECTED, EXPLICIT, NO_RUNTIME)


def _doc(description: str) -> dict:
    return {"description": description}


class OutcomeInBriefSchema(Schema):
    """One InferenceService's outcome on one side of a write."""

    runtime = fields.String(required=True, allow_none=True, metadata=_doc("null: none."))
    scope = fields.String(required=True, allow_none=True, validate=validate.OneOf(SCOPES))
    engine_class = fields.String(
        data_key="engineClass",
        required=True,
        allow_none=True,
        metadata=_doc("The engine's accelerator class, as `selections` gives it."),
    )
    decoder_class = fields.String(
        data_key="decoderClass",
        required=True,
        allow_none=True,
        metadata=_doc("The decoder's accelerator class, as `selections` gives it."),
    )
    outcome = fields.String(required=True, validate=validate.OneOf(OUTCOMES))


class HistoryChangeSchema(Schema):
    seq = fields.Integer(
        required=True, metadata=_doc("The change's number in the cluster's history (a cursor).")
    )
    generation = fields.Integer(required=True, metadata=_doc("The write's generation."))
    at = fields.String(required=True, metadata=_doc("The write's time (`updatedAt`)."))
    namespace = fields.String(required=True, allow_none=True)
    name = fields.String(required=True, allow_none=True)
    before = fields.Nested(
        OutcomeInBriefSchema,
        required=True,
        allow_none=True,
        metadata=_doc("null: the write added the InferenceService."),
    )
    after = fields.Nested(
        OutcomeInBriefSchema,
        required=True,
        allow_none=True,
        metadata=_doc("null: the write removed the InferenceService."),
    )
    truncated = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc(
            "Set on a mark: the write's changes were not worked out, and why (then namespace, "
            "name, before and after are null)."
        ),
    )


class HistorySchema(Schema):
    """What the cluster's writes did to its InferenceServices' outcomes, newest first."""

    cluster = fields.String(required=True)
    generation = fields.Integer(required=True, metadata=_doc("The cluster's generation now."))
    count = fields.Integer(required=True, metadata=_doc("Changes in this answer."))
    changes = fields.List(fields.Nested(HistoryChangeSchema), required=True)
    next = fields.Integer(
        required=True,
        allow_none=True,
        metadata=_doc("The `cursor` of the next page; null: no more."),
    )
