"""marshmallow schemas of the HTTP bodies of rules §15, as the OpenAPI spec documents them.

The request is loaded by ``app.schemas.requests`` (which needs full error paths and a 400/422
split no single schema gives); these schemas describe the same shape for ``/openapi.json``.
The response schemas refuse unknown keys, so the spec says ``additionalProperties: false`` and
a contract test notices any field the renderer adds without documenting it.
"""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema, fields, validate

from app.errors import HTTP_CODES, ApiError
from app.selection.ranking import LABELS

from .accelerators import AcceleratorClassDocumentSchema
from .document_schemas import (
    MODEL_KINDS,
    InferenceServiceDocumentSchema,
    ModelDocumentSchema,
    RuntimeDocumentSchema,
)
from .fields import BoundedString
from .names import LABEL_MAX, NAMESPACE_PATTERN
from .placement_answer import placement_field

SCOPES = ("Namespaced", "Cluster")
# Every ``error.code`` the service answers with: app/errors.py's, werkzeug's own under their
# stable codes, and the two of the last resort (app/http/error_answers.py).
ERROR_CODES = tuple(
    dict.fromkeys(
        [
            *(error.code for error in ApiError.__subclasses__()),
            *HTTP_CODES.values(),
            "InternalError",
            "HttpError",  # any other HTTP error werkzeug raises (none is known to reach a client)
        ]
    )
)


def _doc(description: str, **extra) -> dict:
    return {"description": description, **extra}


class RankRequestSchema(Schema):
    """The JSON body of ``/v1/rank`` and ``/v1/select``."""

    class Meta:
        unknown = EXCLUDE  # rules §15: other top-level keys are ignored

    model = fields.Nested(
        ModelDocumentSchema,
        required=True,
        metadata=_doc("The BaseModel or ClusterBaseModel manifest."),
    )
    runtimes = fields.List(
        fields.Nested(RuntimeDocumentSchema),
        required=True,
        metadata=_doc(
            "The candidate ServingRuntime and ClusterServingRuntime manifests; may be empty. "
            "Their order never changes the answer."
        ),
    )
    inference_service = fields.Nested(
        InferenceServiceDocumentSchema,
        allow_none=True,
        data_key="inferenceService",
        metadata=_doc("Optional InferenceService: namespace, explicit runtime, constraints."),
    )
    namespace = fields.String(
        allow_none=True,
        metadata=_doc(
            "Target namespace, a DNS-1123 label; wins over the `namespace` query parameter. "
            "Empty counts as absent.",
            example="llama-demo",
            pattern=NAMESPACE_PATTERN,
            maxLength=LABEL_MAX,
        ),
    )
    ome_version = BoundedString(
        allow_none=True,
        data_key="omeVersion",
        metadata=_doc(
            "OME version whose rules apply (default 1.3); wins over the query parameter.",
            example="1.3",
        ),
    )
    model_cache_provider = BoundedString(
        allow_none=True,
        data_key="modelCacheProvider",
        metadata=_doc(
            "The model cache provider the cluster's OME is configured with (absent: none, as in "
            "a default install); only sharded models read it. Wins over the query parameter.",
        ),
    )
    accelerator_classes = fields.List(
        fields.Nested(AcceleratorClassDocumentSchema),
        allow_none=True,
        data_key="acceleratorClasses",
        metadata=_doc(
            "The cluster's AcceleratorClass manifests (rules §20); a name given twice: "
            "the last one, with a warning. Null counts as absent: none given."
        ),
    )
    accelerator_classes_known = fields.Boolean(
        allow_none=True,
        data_key="acceleratorClassesKnown",
        metadata=_doc(
            "Whether these are all the cluster's classes (absent: when at least one "
            "is given); wins over the query parameter."
        ),
    )


class OverlayRequestSchema(RankRequestSchema):
    """The JSON body of a catalog's ``POST …/rank`` and ``…/select`` (rules §17): ``/v1/rank``'s,
    its runtimes and AcceleratorClasses laid over the stored ones."""

    model = fields.Nested(
        ModelDocumentSchema,
        metadata=_doc(
            "The BaseModel or ClusterBaseModel manifest; absent: the stored model `?model=` names."
        ),
    )


class ModelSummarySchema(Schema):
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(MODEL_KINDS))
    namespace = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc(
            "A BaseModel's namespace (the target namespace when it has none); "
            "null for a ClusterBaseModel."
        ),
    )


class SelectionSchema(Schema):
    name = fields.String(required=True)
    scope = fields.String(required=True, validate=validate.OneOf(SCOPES))
    score = fields.Integer(required=True)
    explicit = fields.Boolean(
        required=True, metadata=_doc("True when the InferenceService named the runtime.")
    )


class WayOutChangeSchema(Schema):
    """One change to a runtime's spec (``entry`` null) or to one of its entries."""

    check = fields.String(
        required=True,
        validate=validate.OneOf(LABELS),
        metadata=_doc("The failure it cures, by its short label (the summary's groups)."),
    )
    entry = fields.Integer(
        required=True,
        allow_none=True,
        metadata=_doc("The `supportedModelFormats` index; null for a field of the spec."),
    )
    field = fields.String(
        required=True,
        metadata=_doc(
            "The field's path in the spec or the entry, as the manifest writes it: "
            '`modelFramework.version`, `engineConfig.annotations["ome.io/deploymentMode"]`.'
        ),
    )
    change = fields.Raw(
        required=True,
        allow_none=True,
        metadata=_doc(
            "The value to set (a string, boolean, integer or list of strings); null removes "
            "the field. For a bound, a version with an ordering operator, or a weight, the "
            "value at the edge: any value further the same way works too."
        ),
    )


class RuntimeRowSchema(Schema):
    """One row of `kubectl ome runtime explain`."""

    name = fields.String(required=True)
    scope = fields.String(required=True, validate=validate.OneOf(SCOPES))
    compatible = fields.Boolean(required=True)
    priority = fields.Integer(required=True, allow_none=True)
    weight = fields.Integer(
        required=True, allow_none=True, metadata=_doc("Raw weights, as the WEIGHT column.")
    )
    score = fields.Integer(required=True, allow_none=True)
    distance = fields.Float(
        required=True,
        allow_none=True,
        metadata=_doc("Size distance in parameters; null when not finite."),
    )
    reason = fields.String(
        required=True, allow_none=True, metadata=_doc("Why the runtime is not compatible.")
    )
    decided_by = fields.String(
        required=True,
        allow_none=True,
        data_key="decidedBy",
        validate=validate.OneOf(("scope", "score", "distance", "name")),
        metadata=_doc(
            "The first rule of rules §5 that put this `Yes` row below the one above; null on "
            "the first `Yes` row and on `No` rows."
        ),
    )
    to_win = fields.Dict(
        required=True,
        allow_none=True,
        data_key="toWin",
        metadata=_doc(
            "`{entry, priority}`: the smallest priority on that entry that makes this `Yes` row "
            "first in its scope; `{entry, autoSelect: true}` for a `No` row that fails only on "
            "autoSelect; null otherwise (or when no priority can)."
        ),
    )
    to_win_note = fields.String(
        required=True,
        allow_none=True,
        data_key="toWinNote",
        metadata=_doc("Why even `toWin` would not make it the selected runtime."),
    )
    way_out = fields.List(
        fields.Nested(WayOutChangeSchema),
        required=True,
        allow_none=True,
        data_key="wayOut",
        metadata=_doc(
            "A `No` row: the fewest changes to this runtime alone, for every check it fails, "
            "that make it a `Yes` row under the same rules. Null on `Yes` rows, when no "
            "change to the runtime alone can, and past the first 64 `No` rows on all but the "
            "closest (`wayOutNote` says why)."
        ),
    )
    way_out_note = fields.String(
        required=True,
        allow_none=True,
        data_key="wayOutNote",
        metadata=_doc("Why a `No` row has no `wayOut`; else null."),
    )


class IgnoredRuntimeSchema(Schema):
    """A ServingRuntime of another namespace, or an object of a kind selection does not read or
    that kubectl would not map."""

    kind = fields.String(required=True, allow_none=True, metadata=_doc("Null: it has none."))
    name = fields.String(required=True, allow_none=True)
    scope = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(SCOPES),
        metadata=_doc("Null for kinds other than the runtimes."),
    )
    namespace = fields.String(required=True, allow_none=True)
    reason = fields.String(required=True)


class RankResponseSchema(Schema):
    """``/v1/rank``: every candidate in OME's order, and the runtime OME would use."""

    model = fields.Nested(ModelSummarySchema, required=True)
    namespace = fields.String(required=True, metadata=_doc("The target namespace."))
    ome_version = fields.String(required=True, data_key="omeVersion")
    selected = fields.Nested(SelectionSchema, required=True, allow_none=True)
    message = fields.String(
        required=True, metadata=_doc("OME's own message: the selection, or the no-runtime text.")
    )
    summary = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc(
            "The `No` rows in one line, grouped by reason in the order of the checks, and the "
            "one with the fewest changes in its `wayOut`: `5 runtimes excluded: format name "
            "mismatch ×4, framework version ×1; closest: vllm-llama (framework version)`. "
            "Null when every row is `Yes`."
        ),
    )
    runtimes = fields.List(fields.Nested(RuntimeRowSchema), required=True)
    ignored = fields.List(
        fields.Nested(IgnoredRuntimeSchema),
        required=True,
        metadata=_doc(
            "ServingRuntimes of another namespace, objects of other kinds in a manifest "
            "stream (`<Kind> is not read by runtime selection`), and objects kubectl would not "
            "map, with its words (`kind not set`, `no matches for kind …`), by namespace, name, "
            "kind."
        ),
    )
    warnings = fields.List(fields.String(), required=True)
    notes = fields.List(fields.String(), required=True)
    placement = placement_field()


class SelectResponseSchema(Schema):
    """``/v1/select``: only the runtime OME would use."""

    selected = fields.Nested(SelectionSchema, required=True)
    message = fields.String(required=True)
    warnings = fields.List(fields.String(), required=True)
    placement = placement_field()
    ignored = fields.List(
        fields.Nested(IgnoredRuntimeSchema),
        metadata=_doc(
            "Only when the manifest stream held objects kubectl would not map (no `kind`, or "
            "of `ome.io` with a kind or version OME does not serve): those, as `/v1/rank` "
            "lists them under `ignored`."
        ),
    )


class ErrorDetailSchema(Schema):
    code = fields.String(required=True, validate=validate.OneOf(ERROR_CODES))
    message = fields.String(required=True)
    fields_ = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.String()),
        data_key="fields",
        metadata=_doc(
            "InvalidDocument: full path (`runtimes[2].spec.supportedModelFormats[0].priority`) "
            "to its messages."
        ),
    )
    excluded = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        metadata=_doc("NoRuntimeFound: each excluded runtime's name to its reason."),
    )
    generation = fields.Integer(
        allow_none=True,
        metadata=_doc("PreconditionFailed: the cluster's current generation (null: no cluster)."),
    )
    hint = fields.String(
        metadata=_doc(
            "ModelNotReady: what fills the model's format, and what to do meanwhile. "
            "ModelNotFound of a model asked by name: `namespaces` in words "
            "(`not in namespace default; found in llama-demo`)."
        )
    )
    namespaces = fields.List(
        fields.String(),
        metadata=_doc(
            "ModelNotFound of a model asked by name (`?model=`) in a stored catalog: the "
            "namespaces that hold a BaseModel of that name, sorted (absent when none does)."
        ),
    )
    variable = fields.String(
        metadata=_doc("LimitExceeded: the setting that bounds it (`OME_RANKER_MAX_…`).")
    )
    limit = fields.Integer(metadata=_doc("LimitExceeded: the bound, this deployment's value."))
    requested = fields.Integer(metadata=_doc("LimitExceeded: what the request needed."))
    stored = fields.Integer(
        metadata=_doc("EmptyReplace: how many objects the catalog holds, kept.")
    )


class ErrorSchema(Schema):
    """Every error: ``{"error": {"code", "message", ...}}`` with a stable ``code``."""

    error = fields.Nested(ErrorDetailSchema, required=True)


class HealthSchema(Schema):
    status = fields.String(required=True, validate=validate.Equal("ok"))
    version = fields.String(required=True, metadata=_doc("The service's release."))


class CacheStateSchema(Schema):
    backend = fields.String(
        required=True, validate=validate.OneOf(("redis", "redis-cluster", "memory"))
    )
    state = fields.String(required=True, validate=validate.OneOf(("up", "down")))


class StoreStateSchema(Schema):
    backend = fields.String(
        required=True, validate=validate.OneOf(("redis", "redis-cluster", "sqlite"))
    )
    state = fields.String(
        required=True,
        validate=validate.OneOf(("up", "down", "refused", "unknown")),
        metadata=_doc(
            "`up`: it answered its last check. `down`: it does not answer, or fails. "
            "`refused`: it refuses this service's credentials, or its file cannot be opened "
            "or written (the instance is then not ready). `unknown`: no check has ended yet."
        ),
    )
    reason = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc("Why it is not up, without addresses, paths or secrets; null when up."),
    )


class ReadinessSchema(Schema):
    status = fields.String(
        required=True,
        validate=validate.OneOf(("ready", "degraded", "draining")),
        metadata=_doc(
            "`ready` (200); `degraded` (503): the token file no longer parses, or the store "
            "refuses this service; `draining` (503) from SIGTERM until the worker exits."
        ),
    )
    cache = fields.Nested(
        CacheStateSchema,
        required=True,
        allow_none=True,
        metadata=_doc(
            "The ranking cache. `down` does not make the service unready: the cache is an "
            "accelerator, never a dependency (rules §16). Null when no cache is configured."
        ),
    )
    store = fields.Nested(
        StoreStateSchema,
        required=True,
        metadata=_doc(
            "The catalog store, as its last background check found it. `down` does not make "
            "the service unready: catalog requests are 503 `StoreUnavailable` meanwhile, the "
            "stateless endpoints answer (rules §17)."
        ),
    )
    tokens = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc(
            "Why the tokens in force are not what the token file says: it no longer parses "
            "(or cannot be read), and the last good tokens stay in force until it is fixed. "
            "Null when they are, and without a token file."
        ),
    )
