"""The AcceleratorClass document (rules §20.1): its shape as the CRD checks it, then the class
the placement reads (``AcceleratorClass.from_mapping``, which refuses what OME cannot read, such
as a quantity outside the CRD's pattern), every refusal at its field's path."""

from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, Schema, fields, post_load, validate

from app.selection.values import AcceleratorClass, PlacementDocumentError

from .document_schemas import placement_error
from .fields import (
    BoundedString,
    opt_int,
    opt_list,
    opt_nested,
    opt_str,
    validate_object_name,
)
from .ome_kinds import ACCELERATOR_CLASS_KIND, API_VERSION


class _Lenient(Schema):
    class Meta:
        unknown = EXCLUDE


class _Metadata(_Lenient):
    # Cluster-scoped: a namespace, if given, is ignored (rules §20.1).
    name = fields.String(
        required=True,
        validate=[
            validate.Length(min=1, error="Must be a non-empty string."),
            validate_object_name,
        ],
    )


class _Performance(_Lenient):
    fp32 = opt_int(data_key="fp32Tflops")
    fp16 = opt_int(data_key="fp16Tflops")
    int8 = opt_int(data_key="int8Tops")
    int4 = opt_int(data_key="int4Tops")


class _Capabilities(_Lenient):
    memory = fields.Raw(allow_none=True, load_default=None, data_key="memoryGB")
    compute_capability = opt_str(data_key="computeCapability")
    bandwidth = fields.Raw(allow_none=True, load_default=None, data_key="memoryBandwidthGBps")
    features = opt_list(BoundedString())
    performance = opt_nested(_Performance)


class _Discovery(_Lenient):
    node_selector = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        allow_none=True,
        load_default=None,
        data_key="nodeSelector",
    )
    affinity = fields.Dict(allow_none=True, load_default=None)


class _Cost(_Lenient):
    spot = fields.Raw(allow_none=True, load_default=None, data_key="spotPerHour")
    hourly = fields.Raw(allow_none=True, load_default=None, data_key="perHour")
    tokens = fields.Raw(allow_none=True, load_default=None, data_key="perMillionTokens")
    tier = opt_str()


class _Resource(_Lenient):
    name = BoundedString(required=True)
    quantity = fields.Raw(allow_none=True, load_default=None)


class _Spec(_Lenient):
    # The CRD: with a spec, discovery and capabilities are required objects (possibly {}).
    vendor = opt_str()
    family = opt_str()
    discovery = fields.Nested(_Discovery, required=True)
    capabilities = fields.Nested(_Capabilities, required=True)
    cost = opt_nested(_Cost)
    resources = opt_list(fields.Nested(_Resource))


class AcceleratorClassIdentitySchema(_Lenient):
    """What makes an AcceleratorClass an object the API server can create under its name; lint
    leaves the rest to the CRD's schema (``app.schemas.crd``)."""

    api_version = fields.String(
        allow_none=True, validate=validate.Equal(API_VERSION), data_key="apiVersion"
    )
    kind = fields.String(required=True, validate=validate.Equal(ACCELERATOR_CLASS_KIND))
    metadata = fields.Nested(_Metadata, required=True)


class AcceleratorClassDocumentSchema(AcceleratorClassIdentitySchema):
    spec = opt_nested(_Spec)

    @post_load(pass_original=True)
    def build(self, data: dict, original: dict, **kwargs: Any) -> AcceleratorClass:
        try:
            return AcceleratorClass.from_mapping(original)
        except PlacementDocumentError as error:
            raise placement_error(error) from None


accelerator_class_document_schema = AcceleratorClassDocumentSchema()
accelerator_class_identity_schema = AcceleratorClassIdentitySchema()
