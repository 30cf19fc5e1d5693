"""Plain-Python loaders for the common, well-formed model and InferenceService documents, as
``fast_runtime`` loads runtimes: the same ``Model`` and ``InferenceService`` as
``ModelDocumentSchema`` and ``InferenceServiceDocumentSchema`` build, or ``None`` for anything
unusual (an error, a diffusion pipeline, a type the schema converts or refuses) so that marshmallow
decides it and reports its errors with their paths. A local lint of valid manifests then never
imports marshmallow (its import was a fifth of a 200-file lint).
``tests/schemas/test_fast_documents.py`` checks that they agree with the schemas on generated
documents, valid and not.
"""

from __future__ import annotations

from typing import Any

from app.selection import values as doc
from app.selection.values import (
    MAX_URI_CHARS,
    AcceleratorRequest,
    PlacementDocumentError,
    length_problem,
)

from .fast_runtime import NOT_PLAIN, any_not_plain, plain_bool, plain_str
from .names import is_namespace, is_object_name
from .ome_kinds import (
    ACCELERATOR_CLASS_ANNOTATION,
    API_VERSION,
    DEPLOYMENT_MODE_ANNOTATION,
    ISVC_KIND,
    MODEL_KINDS,
)


def _identity(value: Any, kinds: tuple[str, ...]) -> tuple[str, dict, dict] | None:
    """(kind, metadata, spec) of a document of one of ``kinds`` whose apiVersion, name and
    namespace the schema takes as they are; None otherwise."""
    if type(value) is not dict:
        return None
    kind, metadata, spec = value.get("kind"), value.get("metadata"), value.get("spec")
    api_version = value.get("apiVersion")
    if (
        type(kind) is not str
        or kind not in kinds
        or (api_version is not None and api_version != API_VERSION)
        or type(metadata) is not dict
        or type(spec) is not dict
    ):
        return None
    namespace = metadata.get("namespace")
    if not is_object_name(metadata.get("name")) or (
        namespace is not None and not is_namespace(namespace)
    ):
        return None
    return kind, metadata, spec


def _model_format(value: Any) -> Any:
    """``modelFormat``: None when its name is missing or empty (a model not Ready, rules §1.1)."""
    if value is None:
        return None
    if type(value) is not dict:
        return NOT_PLAIN
    name, version = plain_str(value.get("name")), plain_str(value.get("version"))
    if name is NOT_PLAIN or version is NOT_PLAIN:
        return NOT_PLAIN
    return doc.ModelRef(name, version) if name else None


def _model_framework(value: Any) -> Any:
    if value is None:
        return None
    if type(value) is not dict:
        return NOT_PLAIN
    name, version = value.get("name"), plain_str(value.get("version"))
    if plain_str(name) is NOT_PLAIN or name is None or version is NOT_PLAIN:
        return NOT_PLAIN
    return doc.ModelRef(name, version)


def _storage_uri(value: Any) -> Any:
    """``storage.storageUri``, kept only when it names a PVC (rules §18)."""
    if value is None:
        return None
    if type(value) is not dict:
        return NOT_PLAIN
    uri = value.get("storageUri")
    if uri is None:
        return None
    if type(uri) is not str or len(uri) > MAX_URI_CHARS:
        return NOT_PLAIN
    return uri if uri.startswith("pvc://") else None


def load_model(value: Any) -> doc.Model | None:
    """The ``Model`` of a plain, valid model document, or ``None`` to ask marshmallow."""
    found = _identity(value, MODEL_KINDS)
    if found is None:
        return None
    kind, metadata, spec = found
    if spec.get("diffusionPipeline") is not None:
        return None
    parts = (
        _model_format(spec.get("modelFormat")),
        _model_framework(spec.get("modelFramework")),
        plain_str(spec.get("modelArchitecture")),
        plain_str(spec.get("quantization")),
        plain_str(spec.get("modelParameterSize")),
        plain_str(spec.get("distribution")),
        plain_bool(spec.get("disabled")),
        _storage_uri(spec.get("storage")),
    )
    if any_not_plain(parts):
        return None
    model_format, framework, architecture, quantization, size, distribution, disabled, uri = parts
    return doc.Model(
        kind=kind,
        name=metadata["name"],
        namespace=metadata.get("namespace") or None,
        format=model_format,
        framework=framework,
        architecture=architecture,
        quantization=quantization,
        parameter_size=size,
        diffusion=None,
        distribution=distribution,
        disabled=disabled,
        storage_uri=uri,
    )


def _annotation(annotations: Any, key: str) -> Any:
    """(present, value) of the one annotation the schema reads (``AnnotationValue``): a null
    value of a present key reads as None; None when there are no annotations."""
    if annotations is None:
        return None
    if type(annotations) is not dict:
        return NOT_PLAIN
    if key not in annotations:
        return (False, None)
    found = annotations[key]
    if found is None:
        return (True, None)
    if type(found) is not str or length_problem(found) is not None:
        return NOT_PLAIN
    return (True, found)


def _reference(value: Any) -> Any:
    """``spec.model`` / ``spec.runtime``: (name, kind), each optional."""
    if value is None:
        return (None, None)
    if type(value) is not dict:
        return NOT_PLAIN
    name, kind = plain_str(value.get("name")), plain_str(value.get("kind"))
    return NOT_PLAIN if name is NOT_PLAIN or kind is NOT_PLAIN else (name, kind)


def _accelerator_class(selector: Any) -> Any:
    """An ``acceleratorSelector`` / ``acceleratorOverride``: its ``acceleratorClass``."""
    if selector is None:
        return None
    if type(selector) is not dict or plain_str(selector.get("policy")) is NOT_PLAIN:
        return NOT_PLAIN
    return plain_str(selector.get("acceleratorClass"))


def _component(value: Any) -> Any:
    """``spec.engine`` / ``spec.decoder``: (present, deployment-mode annotation, class)."""
    if value is None:
        return (False, None, None)
    if type(value) is not dict:
        return NOT_PLAIN
    mode = _annotation(value.get("annotations"), DEPLOYMENT_MODE_ANNOTATION)
    accelerator = _accelerator_class(value.get("acceleratorOverride"))
    if mode is NOT_PLAIN or accelerator is NOT_PLAIN:
        return NOT_PLAIN
    return (True, None if mode is None else mode[1], accelerator)


def load_inference_service(value: Any) -> doc.InferenceService | None:
    """The ``InferenceService`` of a plain, valid document, or ``None`` to ask marshmallow."""
    found = _identity(value, (ISVC_KIND,))
    if found is None:
        return None
    _, metadata, spec = found
    parts = (
        _annotation(metadata.get("annotations"), ACCELERATOR_CLASS_ANNOTATION),
        _reference(spec.get("model")),
        _reference(spec.get("runtime")),
        plain_str(spec.get("deploymentMode")),
        _accelerator_class(spec.get("acceleratorSelector")),
        _component(spec.get("engine")),
        _component(spec.get("decoder")),
    )
    if any_not_plain(parts):
        return None
    annotation, model, runtime, mode, selector, engine, decoder = parts
    try:  # rules §20.1: policies are the CRD's enum, constraint counts int64 >= 0
        accelerators = AcceleratorRequest.from_mapping(value)
    except PlacementDocumentError:
        return None
    accelerator = None
    if annotation is not None and annotation[0]:
        accelerator = annotation[1] or ""  # rules §15: null reads as ""
    return doc.InferenceService(
        name=metadata["name"],
        namespace=metadata.get("namespace") or None,
        accelerator_annotation=accelerator,
        accelerator_selector=selector,
        engine_accelerator=engine[2],
        decoder_accelerator=decoder[2],
        runtime_name=runtime[0],
        runtime_kind=runtime[1],
        model_name=model[0],
        model_kind=model[1],
        deployment_mode=mode,
        has_engine=engine[0],
        engine_mode_annotation=engine[1],
        has_decoder=decoder[0],
        decoder_mode_annotation=decoder[1],
        accelerators=accelerators,
    )
