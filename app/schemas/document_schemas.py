"""marshmallow schemas of the documents selection reads (rules §1).

Every schema excludes unknown fields: real manifests carry containers,
resources and router configs that are accepted and never looked at. The
schemas check shape and types only and build the immutable documents of
``app.selection.values.documents``; selection decides everything else.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, post_load, validate

from app.selection import values as doc
from app.selection.values import (
    MAX_URI_CHARS,
    NOT_JSON,
    AcceleratorRequest,
    PlacementDocumentError,
    is_json_value,
)

from .fields import (
    AnnotationValue,
    BoundedString,
    opt_bool,
    opt_int,
    opt_list,
    opt_nested,
    opt_str,
    validate_namespace,
    validate_object_name,
)
from .names import LABEL_MAX
from .ome_kinds import (
    ACCELERATOR_CLASS_ANNOTATION,
    API_VERSION,
    DEPLOYMENT_MODE_ANNOTATION,
    INHERIT_FROM_ANNOTATION,
    ISVC_KIND,
    MODEL_KINDS,
    PRIORITY_MAX,
    PRIORITY_MIN,
    RUNTIME_KINDS,
    WEIGHT_MAX,
    WEIGHT_MIN,
    is_pvc_uri,
)

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _not_json() -> bool:
    raise ValidationError(NOT_JSON)


def placement_error(error: PlacementDocumentError) -> ValidationError:
    """``error`` as marshmallow reports a field's error, nested by the steps of its path
    (``spec.resources[0].name``), so that it reads back at the same path."""
    messages: Any = [error.message]
    steps = [name or int(index) for name, index in _STEP.findall(error.field)]
    for step in reversed(steps):
        messages = {step: messages}
    return ValidationError(messages)


_NON_EMPTY = validate.Length(min=1, error="Must be a non-empty string.")


class _Lenient(Schema):
    class Meta:
        unknown = EXCLUDE


class MetadataSchema(_Lenient):
    # rules §17: names as the API server takes them (an empty namespace is an absent one), their
    # length bounds among its rules, in its words.
    name = fields.String(required=True, validate=[_NON_EMPTY, validate_object_name])
    namespace = fields.String(
        allow_none=True,
        load_default=None,
        validate=validate_namespace,
        metadata={"maxLength": LABEL_MAX},
    )


class ModelRefSchema(_Lenient):
    name = BoundedString(required=True)
    version = opt_str()

    @post_load
    def build(self, data, **kwargs) -> doc.ModelRef:
        return doc.ModelRef(data["name"], data["version"])


class ModelFormatSchema(_Lenient):
    """The model's ``modelFormat``: a missing or empty name is a model that is not Ready yet
    (rules §1.1, §15), which selection answers as OME does; here it only has to be a string."""

    name = opt_str()
    version = opt_str()

    @post_load
    def build(self, data, **kwargs) -> doc.ModelRef | None:
        if not data["name"]:
            return None
        return doc.ModelRef(data["name"], data["version"])


class PipelineComponentSchema(_Lenient):
    library = opt_str()
    type = opt_str()

    @post_load
    def build(self, data, **kwargs) -> doc.PipelineComponent:
        return doc.PipelineComponent(data["library"], data["type"])


class DiffusionPipelineSchema(_Lenient):
    class_name = opt_str(data_key="className")
    scheduler = opt_nested(PipelineComponentSchema)
    text_encoder = opt_nested(PipelineComponentSchema, data_key="textEncoder")
    tokenizer = opt_nested(PipelineComponentSchema)
    transformer = opt_nested(PipelineComponentSchema)
    vae = opt_nested(PipelineComponentSchema)
    additional = fields.Dict(
        keys=BoundedString(),
        values=fields.Nested(PipelineComponentSchema, allow_none=True),
        allow_none=True,
        load_default=None,
        data_key="additionalComponents",
    )

    @post_load
    def build(self, data, **kwargs) -> doc.DiffusionPipeline:
        components = {
            name: data[attr]
            for name, attr in (
                ("scheduler", "scheduler"),
                ("textEncoder", "text_encoder"),
                ("tokenizer", "tokenizer"),
                ("transformer", "transformer"),
                ("vae", "vae"),
            )
            if data[attr] is not None
        }
        additional = data["additional"]
        if additional is not None:
            # rules §15: a component set to null is not set.
            additional = {key: value for key, value in additional.items() if value is not None}
        return doc.DiffusionPipeline(data["class_name"], components, additional)


class StorageSchema(_Lenient):
    """A model's ``storage``: its URI is read only when it names a PVC (the InferenceService
    webhook's namespace rule, rules §18); any other is not kept."""

    uri = opt_str(MAX_URI_CHARS, data_key="storageUri")

    @post_load
    def build(self, data, **kwargs) -> str | None:
        return data["uri"] if is_pvc_uri(data["uri"]) else None


class ModelSpecSchema(_Lenient):
    format = opt_nested(ModelFormatSchema, data_key="modelFormat")
    framework = opt_nested(ModelRefSchema, data_key="modelFramework")
    architecture = opt_str(data_key="modelArchitecture")
    quantization = opt_str()
    parameter_size = opt_str(data_key="modelParameterSize")
    diffusion = opt_nested(DiffusionPipelineSchema, data_key="diffusionPipeline")
    distribution = opt_str()
    disabled = opt_bool()
    storage_uri = opt_nested(StorageSchema, data_key="storage")


class ModelDocumentSchema(_Lenient):
    api_version = fields.String(
        allow_none=True, validate=validate.Equal(API_VERSION), data_key="apiVersion"
    )
    kind = fields.String(required=True, validate=validate.OneOf(MODEL_KINDS))
    metadata = fields.Nested(MetadataSchema, required=True)
    spec = fields.Nested(ModelSpecSchema, required=True)

    @post_load
    def build(self, data, **kwargs) -> doc.Model:
        spec, meta = data["spec"], data["metadata"]
        return doc.Model(
            kind=data["kind"],
            name=meta["name"],
            namespace=meta["namespace"] or None,
            **spec,
        )


class EntryRefSchema(_Lenient):
    name = BoundedString(required=True)
    version = opt_str()
    operator = opt_str()
    weight = opt_int(
        validate=validate.Range(
            min=WEIGHT_MIN, max=WEIGHT_MAX, error="Must be a 64-bit integer ({min} to {max})."
        )
    )

    @post_load
    def build(self, data, **kwargs) -> doc.EntryRef:
        weight = 1 if data["weight"] is None else data["weight"]  # rules §1.2
        return doc.EntryRef(data["name"], data["version"], data["operator"], weight)


PRIORITY_RANGE_MIN = validate.Range(min=PRIORITY_MIN, error="Must be at least 1.")
PRIORITY_RANGE_MAX = validate.Range(
    max=PRIORITY_MAX, error="Must be a 32-bit integer (at most {max})."
)


class EntrySchema(_Lenient):
    name = opt_str()
    format = opt_nested(EntryRefSchema, data_key="modelFormat")
    framework = opt_nested(EntryRefSchema, data_key="modelFramework")
    architecture = opt_str(data_key="modelArchitecture")
    quantization = opt_str()
    diffusion = opt_nested(DiffusionPipelineSchema, data_key="diffusionPipeline")
    auto_select = opt_bool(data_key="autoSelect")
    # rules §1.2/§13: the CRD refuses priority < 1, disabled runtime or not; it is an int32.
    priority = opt_int(validate=[PRIORITY_RANGE_MIN, PRIORITY_RANGE_MAX])
    cache_providers = opt_list(BoundedString(), data_key="modelCacheProviders")
    version = opt_str()  # read only by the webhook's same-priority rule (rules §18)
    # rules §20.2: kept as written, read per class name by the placement.
    accelerator_config = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(allow_none=True),
        allow_none=True,
        load_default=None,
        data_key="acceleratorConfig",
        validate=lambda value: is_json_value(value) or _not_json(),
    )

    @post_load
    def build(self, data, **kwargs) -> doc.Entry:
        data["name"] = data["name"] or ""
        if data["cache_providers"] is not None:
            data["cache_providers"] = tuple(data["cache_providers"])
        return doc.Entry(**data)


class SizeRangeSchema(_Lenient):
    min = opt_str()
    max = opt_str()

    @post_load
    def build(self, data, **kwargs) -> doc.SizeRange:
        return doc.SizeRange(data["min"], data["max"])


class AcceleratorRequirementsSchema(_Lenient):
    classes = opt_list(BoundedString(), data_key="acceleratorClasses")


class ComponentConfigSchema(_Lenient):
    """``engineConfig`` / ``decoderConfig``: only the deployment-mode annotation is read."""

    annotations = AnnotationValue(DEPLOYMENT_MODE_ANNOTATION, allow_none=True, load_default=None)


class RuntimeSpecSchema(_Lenient):
    disabled = opt_bool()
    entries = opt_list(fields.Nested(EntrySchema), data_key="supportedModelFormats")
    size_range = opt_nested(SizeRangeSchema, data_key="modelSizeRange")
    accelerators = opt_nested(AcceleratorRequirementsSchema, data_key="acceleratorRequirements")
    engine = opt_nested(ComponentConfigSchema, data_key="engineConfig")
    decoder = opt_nested(ComponentConfigSchema, data_key="decoderConfig")
    protocol_versions = opt_list(BoundedString(), data_key="protocolVersions")


def _mode_annotation(config: dict | None) -> str | None:
    if config is None or config["annotations"] is None:
        return None
    return config["annotations"][1]


class RuntimeMetadataSchema(MetadataSchema):
    annotations = AnnotationValue(INHERIT_FROM_ANNOTATION, allow_none=True, load_default=None)


def inherit_from(annotation: tuple[bool, str | None] | None) -> str | None:
    """rules §7: absent, null or "" names no parent."""
    return (annotation[1] or None) if annotation is not None else None


class RuntimeDocumentSchema(_Lenient):
    api_version = fields.String(
        allow_none=True, validate=validate.Equal(API_VERSION), data_key="apiVersion"
    )
    kind = fields.String(required=True, validate=validate.OneOf(RUNTIME_KINDS))
    metadata = fields.Nested(RuntimeMetadataSchema, required=True)
    spec = fields.Nested(RuntimeSpecSchema, required=True)

    @post_load
    def build(self, data, **kwargs) -> doc.Runtime:
        spec, meta = data["spec"], data["metadata"]
        accelerators = spec["accelerators"]
        classes = None if accelerators is None else accelerators["classes"]
        return doc.Runtime(
            kind=data["kind"],
            name=meta["name"],
            namespace=meta["namespace"] or None,
            disabled=spec["disabled"],
            entries=tuple(spec["entries"] or ()),
            size_range=spec["size_range"],
            accelerator_classes=None if classes is None else tuple(classes),
            engine_mode_annotation=_mode_annotation(spec["engine"]),
            decoder_mode_annotation=_mode_annotation(spec["decoder"]),
            protocol_versions=tuple(spec["protocol_versions"] or ()),
            inherit_from=inherit_from(meta["annotations"]),
        )


class IsvcMetadataSchema(MetadataSchema):
    annotations = AnnotationValue(ACCELERATOR_CLASS_ANNOTATION, allow_none=True, load_default=None)


class NameRefSchema(_Lenient):
    name = opt_str()


class AcceleratorSelectorSchema(_Lenient):
    accelerator_class = opt_str(data_key="acceleratorClass")
    # Read by the placement from the document itself (``AcceleratorRequest.from_mapping``);
    # here so that a catalog keeps them (``stored.py`` keeps what the schemas declare).
    policy = opt_str()
    constraints = fields.Raw(allow_none=True, load_default=None)


class IsvcComponentSchema(_Lenient):
    """``spec.engine`` / ``spec.decoder`` of an InferenceService."""

    annotations = AnnotationValue(DEPLOYMENT_MODE_ANNOTATION, allow_none=True, load_default=None)
    accelerator = opt_nested(AcceleratorSelectorSchema, data_key="acceleratorOverride")


class RuntimeRefSchema(NameRefSchema):
    kind = opt_str()


class ModelRefKindSchema(NameRefSchema):
    kind = opt_str()


class IsvcSpecSchema(_Lenient):
    model = opt_nested(ModelRefKindSchema)
    runtime = opt_nested(RuntimeRefSchema)
    deployment_mode = opt_str(data_key="deploymentMode")
    accelerator_selector = opt_nested(AcceleratorSelectorSchema, data_key="acceleratorSelector")
    engine = opt_nested(IsvcComponentSchema)
    decoder = opt_nested(IsvcComponentSchema)


def _field(parent: dict | None, key: str):
    return None if parent is None else parent[key]


class InferenceServiceDocumentSchema(_Lenient):
    api_version = fields.String(
        allow_none=True, validate=validate.Equal(API_VERSION), data_key="apiVersion"
    )
    kind = fields.String(required=True, validate=validate.Equal(ISVC_KIND))
    metadata = fields.Nested(IsvcMetadataSchema, required=True)
    spec = fields.Nested(IsvcSpecSchema, required=True)

    @post_load(pass_original=True)
    def build(self, data, original, **kwargs) -> doc.InferenceService:
        meta, spec = data["metadata"], data["spec"]
        try:  # rules §20.1: policies are the CRD's enum, constraint counts int64 >= 0
            accelerators = AcceleratorRequest.from_mapping(original)
        except PlacementDocumentError as error:
            raise placement_error(error) from None
        engine, decoder = spec["engine"], spec["decoder"]
        annotation = meta["annotations"]
        accelerator = None
        if annotation is not None and annotation[0]:
            accelerator = annotation[1] or ""  # rules §15: null reads as ""
        return doc.InferenceService(
            name=meta["name"],
            namespace=meta["namespace"] or None,
            accelerator_annotation=accelerator,
            accelerator_selector=_field(spec["accelerator_selector"], "accelerator_class"),
            engine_accelerator=_field(_field(engine, "accelerator"), "accelerator_class"),
            decoder_accelerator=_field(_field(decoder, "accelerator"), "accelerator_class"),
            runtime_name=_field(spec["runtime"], "name"),
            runtime_kind=_field(spec["runtime"], "kind"),
            model_name=_field(spec["model"], "name"),
            model_kind=_field(spec["model"], "kind"),
            deployment_mode=spec["deployment_mode"],
            has_engine=engine is not None,
            engine_mode_annotation=_mode_annotation(engine),
            has_decoder=decoder is not None,
            decoder_mode_annotation=_mode_annotation(decoder),
            accelerators=accelerators,
        )


model_document_schema = ModelDocumentSchema()
runtime_document_schema = RuntimeDocumentSchema()
inference_service_document_schema = InferenceServiceDocumentSchema()
