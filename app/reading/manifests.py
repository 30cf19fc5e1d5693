"""Manifest streams as ``kubectl apply -f`` takes them (rules §15): YAML documents, a JSON object
or array of objects, ``kind: List`` flattened; turned into the request selection reads.

Pure functions over decoded documents, no Flask. What a stream holds besides the five kinds
selection reads (a Namespace, a Kustomization …), and what kubectl would not map (an object
without a kind, a kind or version of ``ome.io`` that OME does not serve: ``kinds``), is skipped
and reported; a model or an
InferenceService that appears more than once is taken as ``kubectl apply`` leaves it (the last
one), with the count for the warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from app.errors import MalformedRequest, ModelNotFound, PayloadTooLarge, UnsupportedMediaType
from app.schemas.ome_kinds import ACCELERATOR_CLASS_KIND, ISVC_KIND, MODEL_KINDS, RUNTIME_KINDS
from app.selection.values import OtherObject, RepeatedObject

from .decoding import JSON_TYPES, YAML_TYPES, clip, decode_json_body
from .kinds import NO_KIND_MATCH, Unmapped, unmapped
from .yaml_loader import load_documents

LIST_KIND = "List"
# Objects in one body, List items included (rules §17 "Safe to share"): each costs its label and
# its place in every list below beyond what decoding it cost, so a body of millions of `{}` stops
# here instead of being labelled whole. Far above any setting's default (20 000 objects a
# cluster, 10 000 runtimes a request).
MAX_BODY_OBJECTS = 100_000


class ModelNotInStream(ModelNotFound):
    """The stream's InferenceService names a model the stream does not hold: OME's lookup of
    that model fails (rules §17 "Finding the model"), an answer (404) rather than a malformed
    body."""

    def __init__(self, name: str) -> None:
        super().__init__(f"No BaseModel or ClusterBaseModel with the name: {name}")
        self.name = name


@dataclass
class ManifestStream:
    """A stream sorted by role; ``request`` is the body shape ``load_rank_request`` takes."""

    request: dict[str, Any]
    others: tuple[OtherObject, ...] = ()
    repeated: tuple[RepeatedObject, ...] = ()
    objects: int = 0  # objects read, Lists flattened (for the logs and limits)


@dataclass
class _Sorted:
    models: list[tuple[str, dict]] = field(default_factory=list)
    runtimes: list[dict] = field(default_factory=list)
    services: list[tuple[str, dict]] = field(default_factory=list)
    classes: list[dict] = field(default_factory=list)  # AcceleratorClass (rules §20.8)
    others: list[OtherObject] = field(default_factory=list)


def flatten(document: object, label: str, out: list[tuple[str, dict]]) -> None:
    """Append (label, object) for a Kubernetes object, or for each item of a (nested) v1 List;
    a null item is skipped, as a null document is (``collect``)."""
    if not isinstance(document, dict):
        shape = "a sequence" if isinstance(document, list) else "a scalar"
        raise MalformedRequest(f"{label} is {shape}, not a Kubernetes object")
    if document.get("kind") != LIST_KIND:
        if len(out) >= MAX_BODY_OBJECTS:
            raise PayloadTooLarge(
                f"request body holds more than {MAX_BODY_OBJECTS} objects; this service reads "
                "at most that many in one request"
            )
        out.append((label, document))
        return
    if document.get("apiVersion", "v1") != "v1":
        version = clip(document["apiVersion"])
        raise MalformedRequest(f"{label} is a List of apiVersion {version}, expected v1")
    items = document.get("items")
    if items is None:  # absent or null: an empty List, as kubectl reads it
        return
    if not isinstance(items, list):
        raise MalformedRequest(f"{label} is a List whose items is not a sequence")
    for index, item in enumerate(items):  # recursion bounded by the decoders' depth limit
        if item is not None:
            flatten(item, f"{label} items[{index}]", out)


_LABEL = re.compile(r"document (\d+)((?: items\[\d+\])*)")


def label_place(label: str) -> tuple[int, str] | None:
    """Where a ``collect``-ed object of a stream numbered from 1 sits: its document, from 0,
    and the path to it inside that document (``items[2].`` in a List; "" for the document);
    None for another label."""
    found = _LABEL.fullmatch(label)
    if found is None:
        return None
    items = "".join(f"{item}." for item in found.group(2).split())
    return int(found.group(1)) - 1, items


def _metadata_text(obj: dict, key: str) -> str | None:
    metadata = obj.get("metadata")
    value = metadata.get(key) if isinstance(metadata, dict) else None
    return value if isinstance(value, str) else None


def _identity(obj: dict, position: int) -> tuple:
    """Kind, namespace and name, as the cluster keys an object; a document whose metadata is
    not readable is its own identity (schema validation reports it later)."""
    name = _metadata_text(obj, "name")
    if not name:
        return ("#", position)
    return (obj["kind"], _metadata_text(obj, "namespace") or "", name)


def _last_of_each(found: list[tuple[str, dict]]) -> tuple[list[dict], list[RepeatedObject]]:
    latest: dict[tuple, dict] = {}
    counts: dict[tuple, int] = {}
    for position, (_, obj) in enumerate(found):
        key = _identity(obj, position)
        latest[key] = obj
        counts[key] = counts.get(key, 0) + 1
    repeated = [RepeatedObject(key[0], key[2], count) for key, count in counts.items() if count > 1]
    return list(latest.values()), repeated


def _other(obj: dict, refusal: str | None = None) -> OtherObject:
    kind = obj.get("kind")
    return OtherObject(
        kind if isinstance(kind, str) and kind else None,
        _metadata_text(obj, "name"),
        _metadata_text(obj, "namespace"),
        refusal,
    )


def unread_refusal(obj: dict) -> str | None:
    """kubectl's words for an object that is not read because kubectl would not map it (rules
    §18): no kind, or of ``ome.io`` with a kind or version OME does not serve. None for one it
    maps, or that is read by its kind all the same (rules §1: ``apiVersion`` may be absent)."""
    return _unread(unmapped(obj))


def _unread(found: Unmapped | None) -> str | None:
    if found is not None and (found.code == NO_KIND_MATCH or not found.kind_readable):
        return found.message
    return None


def _ignored(obj: dict, found: Unmapped | None) -> OtherObject | None:
    """What ``ignored`` says of an object the rules do not read, or None for one of a kind
    they read: one kubectl would not map (``found``: ``unmapped(obj)``), in its words, and one
    of any other kind."""
    refusal = _unread(found)
    if refusal is not None:
        return _other(obj, refusal)
    if obj["kind"] not in READ_KINDS:
        return _other(obj)
    return None


def _sort_by_kind(objects: list[tuple[str, dict]]) -> _Sorted:
    found = _Sorted()
    for label, obj in objects:
        other = _ignored(obj, unmapped(obj))
        if other is not None:
            found.others.append(other)
            continue
        kind = obj["kind"]
        if kind in MODEL_KINDS:
            found.models.append((label, obj))
        elif kind in RUNTIME_KINDS:
            found.runtimes.append(obj)
        elif kind == ISVC_KIND:
            found.services.append((label, obj))
        else:
            found.classes.append(obj)
    return found


READ_KINDS = frozenset((*MODEL_KINDS, *RUNTIME_KINDS, ISVC_KIND, ACCELERATOR_CLASS_KIND))


def collect(documents: list, what: str = "document", first: int = 1) -> list[tuple[str, dict]]:
    """Every object of a stream with its label, Lists flattened, null documents skipped (rules
    §15: a null is absent, in a YAML stream, a JSON array and a List's items alike).

    Documents are numbered from ``first`` in stream order, counting the null ones that are
    skipped (so numbers match the `---` separators); List items are named `items[i]`, from 0.
    """
    objects: list[tuple[str, dict]] = []
    for position, document in enumerate(documents, start=first):
        if document is not None:
            flatten(document, f"{what} {position}", objects)
    return objects


def split_objects(
    objects: list[tuple[str, dict]], *, strict: bool = False
) -> tuple[list[tuple[str, dict]], list[OtherObject], list[tuple[str, dict, Unmapped]]]:
    """The objects of the kinds the rules read (AcceleratorClass included), in stream order;
    the others, as ``ignored`` lists them; and, ``strict`` (lint), the objects kubectl would
    not map with its refusal, in place of the first two: of those, the ones whose kind the
    rules read but whose ``apiVersion`` is not set right are read too, to be judged apart
    (rules §18 "One error per object")."""
    read: list[tuple[str, dict]] = []
    others: list[OtherObject] = []
    refused: list[tuple[str, dict, Unmapped]] = []
    for label, obj in objects:
        found = unmapped(obj)
        if strict and found is not None:
            if found.kind_readable and obj["kind"] in READ_KINDS:
                read.append((label, obj))
            else:
                refused.append((label, obj, found))
            continue
        other = _ignored(obj, found)
        if other is None:
            read.append((label, obj))
        else:
            others.append(other)
    return read, others, refused


def read_stream(
    documents: list, what: str = "document", first: int = 1, *, require_model: bool = True
) -> ManifestStream:
    """The request a manifest stream makes: exactly one model (repeats of the same one count
    once), any number of runtimes, at most one InferenceService.

    Documents are numbered from 1 in stream order, counting the null ones that are skipped (so
    numbers match the `---` separators); List items are named `items[i]`, counted from 0.
    """
    objects = collect(documents, what, first)
    found = _sort_by_kind(objects)
    given_models, repeated_models = _last_of_each(found.models)
    services, repeated_services = _last_of_each(found.services)
    models: list[dict | None] = list(given_models)
    if not models and not require_model:
        models = [None]  # the caller supplies the model (a stored catalog's, rules §17)
    if not models and len(services) == 1:
        # OME looks the InferenceService's model up by spec.model.name, absent or not.
        spec = services[0].get("spec")
        model = spec.get("model") if isinstance(spec, dict) else None
        name = model.get("name") if isinstance(model, dict) else None
        raise ModelNotInStream(name if isinstance(name, str) else "")
    if len(models) != 1:
        wanted = " or ".join(MODEL_KINDS)
        raise MalformedRequest(f"the manifests must hold exactly one {wanted}, found {len(models)}")
    if len(services) > 1:
        raise MalformedRequest(
            f"the manifests must hold at most one {ISVC_KIND}, found {len(services)}"
        )
    request: dict[str, Any] = {"runtimes": found.runtimes}
    if found.classes:  # every one as given: the request keeps the last of each name
        request["acceleratorClasses"] = found.classes
    if models[0] is not None:
        request["model"] = models[0]
    if services:
        request["inferenceService"] = services[0]
    return ManifestStream(
        request=request,
        others=tuple(found.others),
        repeated=(*repeated_models, *repeated_services),
        objects=len(objects),
    )


def is_json_type(mimetype: str) -> bool:
    return mimetype in JSON_TYPES or mimetype.endswith("+json")


def decode_body(raw: bytes, mimetype: str) -> tuple[bool, Any]:
    """``(is_yaml, value)``: a YAML body's documents, or a JSON body's object or array;
    ``MalformedRequest`` when it does not decode, ``UnsupportedMediaType`` for another type."""
    if is_json_type(mimetype):
        return False, decode_json_body(raw)
    if mimetype in YAML_TYPES:
        return True, load_documents(raw)
    raise UnsupportedMediaType(
        f"unsupported Content-Type {mimetype!r}: send application/json or application/yaml"
    )


def read_yaml_stream(raw: bytes, *, require_model: bool = True) -> ManifestStream:
    """A YAML request body read as a manifest stream."""
    return read_stream(load_documents(raw), require_model=require_model)


def request_of(is_yaml: bool, data: Any, *, require_model: bool = True) -> ManifestStream:
    """The request a decoded body makes (``decode_body``). rules §15: a JSON object with
    a top-level ``kind`` is a manifest (one object or a ``kind: List``), an array a list of
    manifests; any other object is the request itself."""
    if is_yaml:
        return read_stream(data, require_model=require_model)
    if isinstance(data, list):
        return read_stream(data, "array item", 0, require_model=require_model)
    if "kind" in data:
        return read_stream([data], "manifest", require_model=require_model)
    return ManifestStream(request=data)
