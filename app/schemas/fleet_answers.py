"""marshmallow schemas of the fleet's answers (docs/rules.md §21): each cluster's
InferenceServices counted by outcome, on ``GET /v1/fleet`` and on each cluster of
``GET /v1/clusters``. Like the other answers' schemas they refuse unknown keys, so the
description says ``additionalProperties: false``."""

from __future__ import annotations

from marshmallow import Schema, fields

from .catalog_answers import ClusterInfoSchema


def _count(description: str) -> fields.Integer:
    return fields.Integer(required=True, metadata={"description": description})


class OutcomeCountsSchema(Schema):
    """rules §21: `selected`, `explicit` and `noRuntime` split the InferenceServices; the
    other three count InferenceServices among them, each at most once."""

    total = _count("Stored InferenceServices.")
    selected = _count("Those whose runtime OME selects automatically.")
    explicit = _count("Those that name their runtime (`spec.runtime.name`) and get it.")
    no_runtime = fields.Integer(
        data_key="noRuntime",
        required=True,
        metadata={
            "description": "Those that get no runtime: no model named or found, nothing "
            "qualifies, or the named runtime fails (rules §7)."
        },
    )
    refused = _count(
        "Those lint would refuse if applied again as stored: an `error` finding (rules §18)."
    )
    class_unknown = fields.Integer(
        data_key="classUnknown",
        required=True,
        metadata={
            "description": "Those with a component whose accelerator class is `known: false` "
            "(rules §20.8)."
        },
    )
    class_error = fields.Integer(
        data_key="classError",
        required=True,
        metadata={
            "description": "Those with a component whose class fails (`error`, rules §20.5)."
        },
    )


def _outcomes(description: str = "", *, allow_none: bool = False) -> fields.Nested:
    return fields.Nested(
        OutcomeCountsSchema,
        data_key="inferenceServices",
        required=True,
        allow_none=allow_none,
        metadata={"description": f"The InferenceServices by outcome (rules §21).{description}"},
    )


class ClusterSummarySchema(ClusterInfoSchema):
    """A cluster of ``GET /v1/clusters``: its info, and its InferenceServices by outcome."""

    inference_services = _outcomes(
        " Null when counting them does not fit this request's bounds: the list answers "
        "whatever the counts cost, and the next request goes on from the counts made.",
        allow_none=True,
    )


class ClusterSummaryListSchema(Schema):
    clusters = fields.List(fields.Nested(ClusterSummarySchema), required=True)


class FleetClusterSchema(Schema):
    """One readable cluster of the fleet."""

    name = fields.String(required=True)
    generation = fields.Integer(required=True, metadata={"description": "Of the counts."})
    updated_at = fields.String(
        data_key="updatedAt", required=True, metadata={"description": "The last write."}
    )
    age_seconds = fields.Integer(
        data_key="ageSeconds",
        required=True,
        metadata={
            "description": "Whole seconds from `updatedAt` to this answer, computed as it is "
            "sent (a 304 keeps the client's: age `updatedAt` yourself)."
        },
    )
    synced_at = fields.String(
        data_key="syncedAt",
        required=True,
        allow_none=True,
        metadata={
            "description": "When a sync last replaced the objects (`PUT …/objects`), whether "
            "anything changed: a quiet catalog keeps its `updatedAt` while its syncs go on. "
            "null: never."
        },
    )
    inference_services = _outcomes()


class FleetSchema(Schema):
    clusters = fields.List(
        fields.Nested(FleetClusterSchema),
        required=True,
        metadata={"description": "Every cluster the token may read, by name."},
    )
    not_readable = fields.Integer(
        data_key="notReadable",
        required=True,
        metadata={"description": "Stored clusters the token may not read (never named)."},
    )
    totals = fields.Nested(
        OutcomeCountsSchema,
        required=True,
        metadata={"description": "The counts of `clusters`, summed."},
    )
