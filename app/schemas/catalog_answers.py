"""marshmallow schemas of the answers about stored catalogs, lint, impact and selections
(docs/rules.md §17-§19), as the OpenAPI description documents them. Like
``app.schemas.rank_answers``'s, they refuse unknown keys, so that the description says
``additionalProperties: false`` and the contract tests notice a field an answer adds without
documenting it. ``ClusterSettingsSchema`` is also the one list of a cluster's settings: the PUT body
is checked against its keys and answers dump through it.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from app.selection.admission import ERROR, INFO, WARNING

from .fields import BoundedString
from .placement_answer import placement_field
from .rank_answers import SCOPES

# The kinds a catalog stores, by which its counts are kept.
STORED_KINDS = (
    "AcceleratorClass",
    "BaseModel",
    "ClusterBaseModel",
    "ClusterServingRuntime",
    "InferenceService",
    "ServingRuntime",
)


def _doc(description: str) -> dict:
    return {"description": description}


def _counts(description: str) -> fields.Dict:
    return fields.Dict(
        keys=fields.String(validate=validate.OneOf(STORED_KINDS)),
        values=fields.Integer(),
        required=True,
        metadata=_doc(description),
    )


class ClusterSettingsSchema(Schema):
    """``PUT /v1/clusters/{cluster}``'s body: every key may be left out or null."""

    ome_version = BoundedString(
        data_key="omeVersion",
        allow_none=True,
        metadata=_doc("The OME version whose rules apply (left out or null: 1.3)."),
    )
    model_cache_provider = BoundedString(
        data_key="modelCacheProvider",
        allow_none=True,
        metadata=_doc("The model cache provider the cluster's OME is configured with."),
    )
    description = fields.String(allow_none=True, metadata=_doc("Free text, for people."))
    accelerator_classes_known = fields.Boolean(
        data_key="acceleratorClassesKnown",
        allow_none=True,
        metadata=_doc(
            "Whether the stored AcceleratorClasses are every class the cluster has (rules "
            "§20.8): `true` checks names and picks policies against them, `false` answers "
            "`known: false`; left out or null: known when at least one is stored."
        ),
    )


class ClusterInfoSchema(Schema):
    """A cluster: its settings, generation and object counts."""

    name = fields.String(required=True)
    ome_version = fields.String(data_key="omeVersion", required=True)
    model_cache_provider = fields.String(
        data_key="modelCacheProvider", required=True, allow_none=True
    )
    description = fields.String(required=True, allow_none=True)
    accelerator_classes_known = fields.Boolean(
        data_key="acceleratorClassesKnown", required=True, allow_none=True
    )
    generation = fields.Integer(
        required=True, metadata=_doc('Bumped by every write; the ETag is `"<generation>"`.')
    )
    updated_at = fields.String(
        data_key="updatedAt", required=True, metadata=_doc("The last write, RFC 3339 UTC.")
    )
    counts = _counts("Stored objects per kind.")


class ClusterListSchema(Schema):
    clusters = fields.List(fields.Nested(ClusterInfoSchema), required=True)


class OtherObjectSchema(Schema):
    """An object of a kind no rule reads, or that kubectl would not map: skipped, and
    reported."""

    kind = fields.String(required=True, allow_none=True, metadata=_doc("Null: it has none."))
    name = fields.String(required=True, allow_none=True)
    namespace = fields.String(required=True, allow_none=True)
    reason = fields.String(
        required=True,
        metadata=_doc(
            "`<Kind> is not read by runtime selection`; or kubectl's words for an object it "
            'would not map: `kind not set`, `no matches for kind "<kind>" in version '
            '"ome.io/<version>"`'
        ),
    )


def _ignored() -> fields.List:
    return fields.List(
        fields.Nested(OtherObjectSchema),
        required=True,
        metadata=_doc(
            "Objects of other kinds, and those kubectl would not map, by namespace, name, kind."
        ),
    )


def _warnings() -> fields.List:
    return fields.List(
        fields.String(),
        required=True,
        metadata=_doc("An object given more than once (the last one counts)."),
    )


class ObjectsWrittenSchema(Schema):
    """What a write stored."""

    cluster = fields.String(required=True)
    generation = fields.Integer(required=True)
    counts = _counts("Stored objects per kind, after the write.")
    ignored = _ignored()
    warnings = _warnings()


class ObjectDeletedSchema(Schema):
    cluster = fields.String(required=True)
    generation = fields.Integer(required=True)
    counts = _counts("Stored objects per kind, after the deletion.")


class ObjectListSchema(Schema):
    """The stored objects as a ``kind: List``: of each, only what selection and lint read, with
    ``metadata`` name, namespace, labels and annotations (not ``last-applied-configuration``).
    Containers, their ``env``, ``args`` and ``command``, volumes, ``status`` and every other field
    are not stored."""

    api_version = fields.String(data_key="apiVersion", required=True, validate=validate.Equal("v1"))
    kind = fields.String(required=True, validate=validate.Equal("List"))
    items = fields.List(fields.Dict(), required=True)


class RuntimeNamedSchema(Schema):
    name = fields.String(required=True)
    scope = fields.String(required=True, validate=validate.OneOf(SCOPES))
    explicit = fields.Boolean(
        required=True, metadata=_doc("True when the InferenceService named the runtime.")
    )


class SelectionRowSchema(Schema):
    """One InferenceService's outcome, as ``/v1/select`` would answer it."""

    namespace = fields.String(required=True)
    name = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc("Null: a model that no InferenceService names, ranked on its own."),
    )
    model = fields.String(required=True, allow_none=True)
    runtime = fields.Nested(RuntimeNamedSchema, required=True, allow_none=True)
    message = fields.String(required=True, metadata=_doc("OME's message, or its error's."))
    error = fields.String(
        required=True, allow_none=True, metadata=_doc("The error's code, when OME selects none.")
    )
    engine_accelerator_class = fields.String(
        data_key="engineAcceleratorClass",
        required=True,
        allow_none=True,
        metadata=_doc(
            "rules §20: the AcceleratorClass the engine's pods get; null when none, when the "
            "InferenceService has no engine, or when it is unknown."
        ),
    )
    decoder_accelerator_class = fields.String(
        data_key="decoderAcceleratorClass",
        required=True,
        allow_none=True,
        metadata=_doc("The same for the decoder."),
    )


class SelectionsSchema(Schema):
    """Every InferenceService (and every model no InferenceService names) with its outcome."""

    cluster = fields.String(metadata=_doc("A stored catalog's answer: its name."))
    generation = fields.Integer(metadata=_doc("A stored catalog's answer: the generation read."))
    ignored = fields.List(
        fields.Nested(OtherObjectSchema), metadata=_doc("A stream's answer: other kinds.")
    )
    count = fields.Integer(required=True)
    selections = fields.List(fields.Nested(SelectionRowSchema), required=True)


class FindingSchema(Schema):
    severity = fields.String(required=True, validate=validate.OneOf((ERROR, WARNING, INFO)))
    kind = fields.String(
        required=True, allow_none=True, metadata=_doc("Null: an object without one.")
    )
    namespace = fields.String(required=True, allow_none=True)
    name = fields.String(required=True, allow_none=True)
    field = fields.String(
        required=True, allow_none=True, metadata=_doc("The field it is about, as a path.")
    )
    code = fields.String(required=True, metadata=_doc("Stable: the rule that found it."))
    message = fields.String(
        required=True, metadata=_doc("What OME or kubectl says, word for word.")
    )
    document = fields.Integer(
        required=True,
        allow_none=True,
        metadata=_doc(
            "The document of the body that holds the object, from 0: a YAML stream's documents "
            "(empty ones counted), a JSON array's items (a single JSON object is 0); null for "
            "an object the body does not hold (a stored one)."
        ),
    )
    line = fields.Integer(
        required=True,
        allow_none=True,
        metadata=_doc(
            "The line (from 1) in the body of the field (the key; for `Unsupported` and "
            "`Invalid`, its value), or of the deepest part of its path the object holds; for a "
            "finding about the whole object, its `kind`. Null when not known."
        ),
    )
    column = fields.Integer(
        required=True,
        allow_none=True,
        metadata=_doc("The column (from 1, in characters) on that line; null when not known."),
    )


class LintSchema(Schema):
    """What ``kubectl apply`` of the objects would answer."""

    admitted = fields.Boolean(
        required=True, metadata=_doc("No finding is an `error`, suppressed or not.")
    )
    counts = fields.Dict(
        keys=fields.String(validate=validate.OneOf((ERROR, WARNING, INFO))),
        values=fields.Integer(),
        required=True,
    )
    findings = fields.List(
        fields.Nested(FindingSchema),
        required=True,
        metadata=_doc("Errors, then warnings, then infos; then by kind, namespace, name."),
    )
    suppressed = fields.List(
        fields.Nested(FindingSchema),
        required=True,
        metadata=_doc(
            "The findings an object's annotation `ome-ranker.io/ignore` names the code of, in "
            "the same order: not in `findings` or `counts`; an error among them still makes "
            "`admitted` false."
        ),
    )
    ignored = _ignored()
    warnings = _warnings()


class OutcomeSchema(Schema):
    runtime = fields.Nested(RuntimeNamedSchema, required=True, allow_none=True)
    message = fields.String(required=True)
    error = fields.String(required=True, allow_none=True)
    placement = placement_field()


class ChangeSchema(Schema):
    namespace = fields.String(required=True)
    name = fields.String(required=True)
    model = fields.String(required=True, allow_none=True)
    before = fields.Nested(OutcomeSchema, required=True)
    after = fields.Nested(OutcomeSchema, required=True)


class ImpactSchema(Schema):
    """The InferenceServices whose ``/v1/select`` answer a change moves."""

    checked = fields.Integer(
        required=True, metadata=_doc("InferenceServices both sides hold, compared.")
    )
    count = fields.Integer(required=True)
    changes = fields.List(fields.Nested(ChangeSchema), required=True)


class ClusterImpactSchema(ImpactSchema):
    """One cluster's part of a fleet's impact: its own impact's answer, with its name and the
    generation it was read at."""

    cluster = fields.String(required=True)
    generation = fields.Integer(required=True)


class FleetImpactSchema(Schema):
    """``POST /v1/fleet/impact``: a change's impact on every cluster the token may read."""

    summary = fields.String(
        required=True,
        metadata=_doc(
            "`37 InferenceServices would change in 3 of 12 clusters`, and `; 2 clusters not "
            "readable` when some are."
        ),
    )
    checked = fields.Integer(
        required=True, metadata=_doc("InferenceServices compared, in every cluster.")
    )
    count = fields.Integer(required=True, metadata=_doc("Changes, in every cluster."))
    clusters = fields.List(
        fields.Nested(ClusterImpactSchema),
        required=True,
        metadata=_doc("Every cluster asked and readable, by name, each as its own impact."),
    )
    not_readable = fields.Integer(
        required=True,
        data_key="notReadable",
        metadata=_doc("Clusters the token may not read: left out, counted, never named."),
    )


# A Kubernetes object as a stream of manifests holds it (app/reading/manifests.py): a mapping; a
# `kind: List`'s items are read as the stream's own documents. An object without a kind (or with
# one that is no string) is not refused by the body: rules §18 lists it under `ignored` in
# kubectl's words, and lint refuses it as kubectl does, so the schema requires no kind.
MANIFEST: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {
            "description": "The object's kind, a string; `List` holds more in `items` (null ones "
            "skipped). An object without one (`kind not set`), or of `ome.io` with a kind or "
            "version OME does not serve, is not read: it is listed under `ignored` (lint: an "
            "error), rules §18.",
        }
    },
}
# The documents of a JSON array, as those of a YAML stream: a null one is skipped.
MANIFEST_OR_NULL: dict[str, Any] = {"anyOf": [MANIFEST, {"type": "null"}]}
MANIFEST_ARRAY: dict[str, Any] = {"type": "array", "items": MANIFEST_OR_NULL}


class ImpactRequestSchema(Schema):
    """``POST /v1/impact``: the manifests of both sides (null: none)."""

    current = fields.List(
        fields.Raw(metadata=MANIFEST_OR_NULL),
        allow_none=True,
        metadata=_doc("What the cluster holds now."),
    )
    proposed = fields.List(
        fields.Raw(metadata=MANIFEST_OR_NULL),
        allow_none=True,
        metadata=_doc("What it would hold after the change."),
    )
