"""The ``/v1/rank`` and ``/v1/select`` request: top-level shape (400) and the
documents inside it (422 with full field paths), rules §15."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from marshmallow import Schema, ValidationError

from app.errors import InvalidDocument, MalformedRequest
from app.selection.values import (
    DEFAULT_OME_VERSION,
    AcceleratorClass,
    InferenceService,
    Model,
    OtherObject,
    RankRequest,
    RepeatedObject,
    Runtime,
    checked,
    latest_classes,
    length_problem,
)

from .accelerators import accelerator_class_document_schema
from .document_schemas import (
    inference_service_document_schema,
    model_document_schema,
    runtime_document_schema,
)
from .fast_documents import load_inference_service, load_model
from .fast_runtime import load_runtime
from .names import label_problem
from .query_settings import classes_known_setting, version_problem

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# marshmallow reports Dict fields as {key: {"value": ...}}; these render as ["key"].
_MAP_FIELDS = frozenset({"additionalComponents"})


def _segment(key: Any) -> str:
    if isinstance(key, int):
        return f"[{key}]"
    if _IDENTIFIER.match(key):
        return f".{key}"
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return f'["{escaped}"]'


def flatten_messages(messages: Any, path: str, out: dict[str, list[str]]) -> None:
    """Turn marshmallow's nested error dict into ``{"a.b[2].c": [...]}``."""
    if isinstance(messages, dict):
        in_map = path.endswith(tuple(f".{name}" for name in _MAP_FIELDS))
        for key, value in messages.items():
            if key == "_schema":
                flatten_messages(value, path, out)
            elif in_map:
                inner = value.get("value", value) if isinstance(value, dict) else value
                escaped = str(key).replace("\\", "\\\\").replace('"', '\\"')
                flatten_messages(inner, f'{path}["{escaped}"]', out)
            else:
                flatten_messages(value, path + _segment(key), out)
    elif isinstance(messages, list):
        out.setdefault(path, []).extend(str(m) for m in messages)
    else:
        out.setdefault(path, []).append(str(messages))


def load_document(schema: Schema, value: Any, path: str, errors: dict[str, list[str]]):
    if not isinstance(value, dict):
        errors[path] = ["Not an object."]
        return None
    try:
        return schema.load(value)
    except ValidationError as error:
        flatten_messages(error.messages, path, errors)
        return None


def _optional_string(body: Mapping[str, Any], query: Mapping[str, str], key: str) -> str | None:
    value = body.get(key)
    if value is None:
        return query.get(key)
    if not isinstance(value, str):
        raise MalformedRequest(f"'{key}' must be a string")
    return value


def load_accelerator_classes(
    body: Mapping[str, Any], errors: dict[str, list[str]]
) -> list[AcceleratorClass]:
    """``acceleratorClasses``: each one validated at ``acceleratorClasses[<i>]``."""
    docs = body.get("acceleratorClasses")
    if docs is None:
        return []
    if not isinstance(docs, list):
        raise MalformedRequest("'acceleratorClasses' must be a list")
    loaded = [
        load_document(accelerator_class_document_schema, item, f"acceleratorClasses[{i}]", errors)
        for i, item in enumerate(checked(docs, every=32))
    ]
    return [item for item in loaded if item is not None]


def load_rank_request(
    body: dict[str, Any],
    query: Mapping[str, str],
    others: tuple[OtherObject, ...] = (),
    repeated: tuple[RepeatedObject, ...] = (),
    stored_model: Model | None = None,
    *,
    release: bool = False,
    loaded_runtimes: list[Runtime] | None = None,
) -> RankRequest:
    """Validate a decoded request body into the selection's ``RankRequest``.

    Raises ``MalformedRequest`` for the wrong top-level shape and ``InvalidDocument``
    for anything wrong inside a document; all document errors are reported at once.
    ``others`` and ``repeated`` are what a manifest stream held besides the request (rules §15).
    ``stored_model`` stands in for a body without ``model`` (a catalog's model, rules §17).
    ``release``: the caller reads ``body`` no more, so each runtime document that loads is
    dropped from it at once, and freed while it is still in the CPU's cache (a tenth of a large
    request's time went to freeing them all at the end, from memory).
    ``loaded_runtimes``: ``body["runtimes"]`` loaded already, every one of them plain
    (``fast_request.fast_request_object``).
    """
    model_doc = body.get("model")
    if model_doc is None and stored_model is not None:
        model_doc = stored_model
    elif not isinstance(model_doc, dict):
        raise MalformedRequest("'model' is required and must be an object")
    runtime_docs = body.get("runtimes")
    if not isinstance(runtime_docs, list):
        raise MalformedRequest("'runtimes' is required and must be a list")
    isvc_doc = body.get("inferenceService")
    if isvc_doc is not None and not isinstance(isvc_doc, dict):
        raise MalformedRequest("'inferenceService' must be an object")
    # rules §15: an empty namespace counts as absent, so the query may still give one.
    namespace = _optional_string(body, query, "namespace") or query.get("namespace") or None
    ome_version = _optional_string(body, query, "omeVersion")
    cache_provider = _optional_string(body, query, "modelCacheProvider")
    known = classes_known_setting(body, query)

    errors: dict[str, list[str]] = {}
    model: Model | None
    if isinstance(model_doc, Model):
        model = model_doc
    else:  # the plain loader for a plain, valid model; marshmallow decides the rest
        model = load_model(model_doc)
        if model is None:
            model = load_document(model_document_schema, model_doc, "model", errors)
    # (Not where the list is also the classes' list, as a YAML alias can make it.)
    release = release and body.get("acceleratorClasses") is not runtime_docs
    runtimes: list[Runtime | None] = []
    not_plain: list[int] = []  # not the plain, valid case: marshmallow decides and explains
    if loaded_runtimes is not None:
        runtimes, runtime_docs = list(loaded_runtimes), []
    for index, item in enumerate(checked(runtime_docs, every=32)):
        runtime = load_runtime(item)
        runtimes.append(runtime)
        if runtime is None:
            not_plain.append(index)
        elif release:
            runtime_docs[index] = None
    for index in checked(not_plain, every=32):
        item = runtime_docs[index]
        path = f"runtimes[{index}]"
        runtimes[index] = load_document(runtime_document_schema, item, path, errors)
    isvc: InferenceService | None = None
    if isvc_doc is not None:
        isvc = load_inference_service(isvc_doc)
        if isvc is None:
            isvc = load_document(
                inference_service_document_schema, isvc_doc, "inferenceService", errors
            )
    classes, repeated_classes = latest_classes(load_accelerator_classes(body, errors))
    namespace_problem = label_problem(namespace) if namespace else None
    if namespace_problem is not None:
        errors["namespace"] = [namespace_problem]
    provider_problem = length_problem(cache_provider) if cache_provider else None
    if provider_problem is not None:
        errors["modelCacheProvider"] = [provider_problem]
    if ome_version is None:
        ome_version = DEFAULT_OME_VERSION
    else:
        problem = version_problem(ome_version)
        if problem is not None:
            errors["omeVersion"] = [problem]
    if errors:
        raise InvalidDocument(errors)
    # cast: no errors, so every runtime loaded (load_document gives None only after it has
    # recorded an error); the list's type still holds load_runtime's None.
    loaded = cast("list[Runtime]", runtimes)

    if isvc is not None and isvc.model_name is not None and isvc.model_name != model.name:
        errors["inferenceService.spec.model.name"] = [
            f"InferenceService names model {isvc.model_name!r}, "
            f"but the request's model is {model.name!r}."
        ]
        raise InvalidDocument(errors)
    ordered_others = tuple(
        sorted(others, key=lambda o: (o.namespace or "", o.name or "", o.kind or "", o.reason))
    )
    return RankRequest(
        model,
        tuple(loaded),
        isvc,
        namespace,
        ome_version,
        cache_provider,
        ordered_others,
        (*repeated, *repeated_classes),
        # by name: no answer depends on the order they were given in, once the last is kept
        tuple(classes[name] for name in sorted(classes)),
        known,
    )
