"""A stream of any number of OME objects (rules §15's reading, §17-§19): validated one by one,
the last of each kind, namespace and name kept, other kinds reported, and what kubectl would not
map (rules §18) reported in its words: ignored, or, read strictly (lint), refused."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.schemas import crd
from app.schemas.names import subdomain_problem
from app.schemas.objects import (
    CLUSTER_SCOPED,
    DEFAULT_NAMESPACE,
    class_identity_taken,
    load_object,
)
from app.schemas.ome_kinds import ACCELERATOR_CLASS_KIND, API_VERSION
from app.selection.admission import ERROR, Finding
from app.selection.ranking import repeat_warnings
from app.selection.values import (
    AcceleratorClass,
    InferenceService,
    Model,
    ObjectKey,
    OtherObject,
    RepeatedObject,
    Runtime,
    checked,
    checkpoint,
    get,
)
from app.store import StoredObject

from . import manifests
from .kinds import Unmapped, unmapped

Document = Runtime | Model | InferenceService | AcceleratorClass


@dataclass(frozen=True)
class Body:
    """A request body as it came: its bytes, and whether it is YAML (else JSON)."""

    raw: bytes
    is_yaml: bool


@dataclass
class ObjectStream:
    objects: list[StoredObject] = field(default_factory=list)  # valid, last of each, in order
    others: list[OtherObject] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # objects given more than once
    problems: dict[str, list[str]] = field(default_factory=dict)  # every invalid object's
    invalid: list[Finding] = field(default_factory=list)  # the API server's refusals
    full_runners: set[tuple[str | None, str]] = field(default_factory=set)
    # Read strictly (lint): each object's manifest as applied, and what the API server's
    # strict decoding and CRD schema refuse of it (rules §18 "Parity").
    manifests: dict[ObjectKey, dict] = field(default_factory=dict)
    refused: dict[ObjectKey, tuple[crd.Refusal, ...]] = field(default_factory=dict)
    # Read strictly: the AcceleratorClasses the API server can create under their name (the
    # last of each, whatever else it refuses of them), by name (rules §20.7, §20.8).
    classes: dict[str, dict] = field(default_factory=dict)
    # Read strictly: the objects kubectl or the API server refuses whatever is fixed first (an
    # apiVersion not set right, a name no fix keeps), read as they would be once it is; judged
    # after their error, and no other object against them (rules §18).
    apart: list[Document] = field(default_factory=list)
    # Read strictly: where each object's manifest (the last of each) is in the body, by label
    # (``document 3 items[0]``), and the body itself, to say where a finding's field is.
    labels: dict[ObjectKey, str] = field(default_factory=dict)
    body: Body | None = None

    def documents(self) -> list[Document]:
        """The valid objects' documents, in order."""
        return [item.document for item in self.objects]

    def refuse_invalid(self) -> None:
        if self.problems:
            raise errors.InvalidDocument(self.problems)


def decoded_documents(raw: bytes, mimetype: str) -> tuple[bool, list]:
    """Whether a body is YAML, and its documents: a YAML stream, or JSON (one object, a List,
    an array)."""
    is_yaml, data = manifests.decode_body(raw, mimetype)
    return is_yaml, data if is_yaml or isinstance(data, list) else [data]


def read_objects(
    raw: bytes, mimetype: str, limit: int | None = None, *, strict: bool = False
) -> ObjectStream:
    """The body's objects; 400 when it does not decode, 422 (``LimitExceeded``) over ``limit``.
    Invalid objects are collected, not raised: see ``ObjectStream.refuse_invalid``. ``strict``:
    also as the API server decodes and validates them (lint)."""
    is_yaml, documents = decoded_documents(raw, mimetype)
    stream = objects_in(documents, limit=limit, strict=strict)
    if strict:
        stream.body = Body(raw, is_yaml)
    return stream


def objects_in(
    documents: list,
    what: str = "document",
    first: int = 1,
    limit: int | None = None,
    *,
    strict: bool = False,
) -> ObjectStream:
    """The objects of decoded documents, labelled ``<what> <n>`` from ``first``."""
    found = manifests.collect(documents, what, first)
    read, others, unmapped_objects = manifests.split_objects(found, strict=strict)
    return objects_of(read, others, limit, strict=strict, unmapped_objects=unmapped_objects)


def manifest_key(manifest: dict) -> ObjectKey:
    """How a cluster keys the object a manifest applies, before it is validated: kind,
    namespace (``default`` for a namespaced one that names none, "" at cluster scope), name."""
    kind = str(manifest["kind"])
    metadata = manifest.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    name = metadata.get("name")
    namespace = metadata.get("namespace")
    if kind in CLUSTER_SCOPED:
        namespace = ""
    elif not isinstance(namespace, str) or not namespace:
        namespace = DEFAULT_NAMESPACE
    return kind, namespace, name if isinstance(name, str) else ""


def objects_of(
    read: list[tuple[str, dict]],
    others: list[OtherObject],
    limit: int | None = None,
    *,
    strict: bool = False,
    unmapped_objects: list[tuple[str, dict, Unmapped]] | None = None,
) -> ObjectStream:
    if limit is not None and len(read) > limit:
        raise errors.LimitExceeded(
            f"the body holds {len(read)} objects; a cluster holds at most {limit} "
            "(OME_RANKER_MAX_OBJECTS_PER_CLUSTER)",
            variable="OME_RANKER_MAX_OBJECTS_PER_CLUSTER",
            limit=limit,
            requested=len(read),
        )
    stream = ObjectStream(others=others)
    for label, manifest, not_mapped in unmapped_objects or ():
        refusal = _unmapped(manifest, not_mapped)
        stream.invalid.append(refusal)
        stream.labels[(refusal.kind or "", refusal.namespace or "", refusal.name)] = label
    kept: dict[tuple, StoredObject] = {}
    apart: dict[ObjectKey, Document] = {}
    counts: dict[tuple, int] = {}
    # What the API server refuses of each, judged together (one fast check for the stream).
    judged = iter(crd.refusals_of([manifest for _, manifest in read]) if strict else ())
    for label, manifest in checked(read, every=8):
        found = None
        if strict:
            checkpoint()
            found = unmapped(manifest)  # its kind is read: only its apiVersion is wrong
            key = manifest_key(manifest)
            stream.manifests[key] = manifest
            stream.labels[key] = label
            refusals = next(judged)
            if found is not None:  # kubectl's, before the API server's
                refusals = (crd.Refusal(found.code, found.field, found.message), *refusals)
            if refusals:
                stream.refused[key] = refusals
            else:
                stream.refused.pop(key, None)  # the last one applied is the one judged
        problems: dict[str, list[str]] = {}
        if strict and manifest["kind"] == ACCELERATOR_CLASS_KIND:
            # Lint judges a class as the API server does (its CRD's refusals above), by name;
            # one kubectl refuses is not part of the cluster.
            if found is None and _read_class(stream, label, manifest, problems):
                key = manifest_key(manifest)
                counts[key] = counts.get(key, 0) + 1
            continue
        if found is not None or (strict and _name_refused(manifest)):
            document = _judged_apart(manifest, label)
            if document is not None:
                key = manifest_key(manifest)
                kept.pop(key, None)
                apart[key] = document  # the last one wins
                _note_full_runner(stream, document, manifest)
                continue
            if found is not None:  # its error is kubectl's; what else it has, after that
                continue
        loaded = load_object(manifest, label, problems, store=not strict)
        if loaded is None:
            _refuse(stream, label, manifest, problems)
            continue
        stored, document = loaded
        item = StoredObject(manifest["kind"], document.namespace, document.name, stored, document)
        kept.pop(item.key, None)  # the last one wins, in its own place
        kept[item.key] = item
        apart.pop(item.key, None)
        counts[item.key] = counts.get(item.key, 0) + 1
        _note_full_runner(stream, document, manifest)
    stream.objects = list(kept.values())
    stream.apart = list(apart.values())
    stream.warnings = repeat_warnings(
        [RepeatedObject(kind, name, n) for (kind, _, name), n in counts.items() if n > 1]
    )
    return stream


def _note_full_runner(stream: ObjectStream, document: Document, manifest: dict) -> None:
    if isinstance(document, InferenceService) and has_full_runner(manifest):
        stream.full_runners.add((document.namespace, document.name))


# A name the API server takes, for reading an object whose own name it refuses.
_STAND_IN_NAME = "name"


def _name_refused(manifest: dict) -> bool:
    """The API server refuses the object's name (rules §17), a string that is set."""
    metadata = manifest.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return isinstance(name, str) and name != "" and subdomain_problem(name) is not None


def _judged_apart(manifest: dict, label: str) -> Document | None:
    """The document of an object the API server refuses whatever is fixed first, read as it
    would be once its ``apiVersion`` is OME's and its name one the API server takes, with its
    own name: its further refusals follow its error (rules §18 "One error per object"), but no
    other object is judged against it. None when it does not read even so."""
    metadata = manifest.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    name = metadata.get("name")
    fixed = {**manifest, "apiVersion": API_VERSION, "metadata": metadata}
    if _name_refused(manifest):
        metadata["name"] = _STAND_IN_NAME
    loaded = load_object(fixed, label, {}, store=False)
    if loaded is None:
        return None
    document = loaded[1]
    return dataclasses.replace(document, name=name) if isinstance(name, str) else document


def _read_class(
    stream: ObjectStream, label: str, manifest: dict, problems: dict[str, list[str]]
) -> bool:
    """Keeps an AcceleratorClass whose identity the API server takes; whether it takes the
    rest is the CRD's schema's to say (``crd.refusals``). False, with the refusal in
    ``invalid``, when it cannot be created under its name."""
    if not class_identity_taken(manifest, label, problems):
        _refuse(stream, label, manifest, problems)
        return False
    stream.classes[manifest["metadata"]["name"]] = manifest  # the last one wins
    return True


def _has_image(runner: Any) -> bool:
    image = get(runner, "image")
    return isinstance(image, str) and image != ""


def has_full_runner(manifest: dict) -> bool:
    """OME's "complete runner configuration": ``engine.runner.image``, or a runner image on
    both ``engine.leader`` and ``engine.worker``."""
    engine = get(manifest, "spec", "engine")
    if not isinstance(engine, dict):
        return False
    if _has_image(engine.get("runner")):
        return True
    leader, worker = engine.get("leader"), engine.get("worker")
    if leader is not None and worker is not None:
        return _has_image(get(leader, "runner")) and _has_image(get(worker, "runner"))
    return False


def _refuse(
    stream: ObjectStream, label: str, manifest: dict, problems: dict[str, list[str]]
) -> None:
    stream.problems.update(problems)
    stream.invalid.append(_invalid(label, manifest, problems))


def _invalid(label: str, manifest: dict, problems: dict[str, list[str]]) -> Finding:
    """What the API server says of an object its CRD's schema refuses."""
    kind = str(manifest["kind"])  # a kind lint reads: the stream sorted the others out
    _, namespace, name = manifest_key(manifest)
    prefix = f"{label}."  # the object's own path, not the request's (rules §18)
    fields = sorted(path.removeprefix(prefix) for path in problems)
    detail = "; ".join(
        f"{path.removeprefix(prefix)}: {' '.join(messages)}"
        for path, messages in sorted(problems.items())
    )
    return Finding(
        ERROR,
        kind,
        namespace or None,
        name,
        fields[0] if fields else None,
        "Invalid",
        f'The {kind} "{name}" is invalid: {detail}',
    )


def _unmapped(manifest: dict, found: Unmapped) -> Finding:
    """kubectl's refusal of an object it does not map (rules §18): not part of the cluster."""
    kind = manifest.get("kind")
    metadata = manifest.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    name, namespace = metadata.get("name"), metadata.get("namespace")
    return Finding(
        ERROR,
        kind if isinstance(kind, str) and kind else None,
        namespace if isinstance(namespace, str) and namespace else None,
        name if isinstance(name, str) else "",
        found.field,
        found.code,
        found.message,
    )
