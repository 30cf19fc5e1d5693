"""A stream of any number of OME objects (rules §15's reading, §17-§19): validated one by one,
the last of each kind, namespace and name kept, other kinds reported."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.schemas.objects import load_object
from app.selection.admission import ERROR, Finding
from app.selection.budget import checked
from app.selection.documents import InferenceService, Model, OtherObject, RepeatedObject, Runtime
from app.selection.warnings import repeat_warnings
from app.store import StoredObject

from . import manifests
from .decoding import decode_body

Document = Runtime | Model | InferenceService


@dataclass
class ObjectStream:
    objects: list[StoredObject] = field(default_factory=list)  # valid, last of each, in order
    others: list[OtherObject] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # objects given more than once
    problems: dict[str, list[str]] = field(default_factory=dict)  # every invalid object's
    invalid: list[Finding] = field(default_factory=list)  # the API server's refusals
    full_runners: set[tuple[str | None, str]] = field(default_factory=set)

    def documents(self) -> list[Document]:
        """The valid objects' documents, in order."""
        return [item.document for item in self.objects]

    def refuse_invalid(self) -> None:
        if self.problems:
            raise errors.InvalidDocument(self.problems)


def decoded_documents(raw: bytes, mimetype: str) -> list:
    """A body's documents: a YAML stream, or JSON (one object, a List, an array)."""
    is_yaml, data = decode_body(raw, mimetype)
    return data if is_yaml or isinstance(data, list) else [data]


def read_objects(raw: bytes, mimetype: str, limit: int | None = None) -> ObjectStream:
    """The body's objects; 400 when it does not decode, 422 (``LimitExceeded``) over ``limit``.
    Invalid objects are collected, not raised: see ``ObjectStream.refuse_invalid``."""
    return objects_in(decoded_documents(raw, mimetype), limit=limit)


def objects_in(
    documents: list, what: str = "document", first: int = 1, limit: int | None = None
) -> ObjectStream:
    """The objects of decoded documents, labelled ``<what> <n>`` from ``first``."""
    found = manifests.collect(documents, what, first)
    read, others = manifests.split_objects(found)
    return objects_of(read, others, limit)


def objects_of(
    read: list[tuple[str, dict]], others: list[OtherObject], limit: int | None = None
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
    kept: dict[tuple, StoredObject] = {}
    counts: dict[tuple, int] = {}
    for label, manifest in checked(read, every=8):
        problems: dict[str, list[str]] = {}
        loaded = load_object(manifest, label, problems)
        if loaded is None:
            stream.problems.update(problems)
            stream.invalid.append(_invalid(label, manifest, problems))
            continue
        stored, document = loaded
        item = StoredObject(manifest["kind"], document.namespace, document.name, stored, document)
        kept.pop(item.key, None)  # the last one wins, in its own place
        kept[item.key] = item
        counts[item.key] = counts.get(item.key, 0) + 1
        if isinstance(document, InferenceService) and has_full_runner(manifest):
            stream.full_runners.add((document.namespace, document.name))
    stream.objects = list(kept.values())
    stream.warnings = repeat_warnings(
        [RepeatedObject(kind, name, n) for (kind, _, name), n in counts.items() if n > 1]
    )
    return stream


def _get(value: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _has_image(runner: Any) -> bool:
    image = _get(runner, "image")
    return isinstance(image, str) and image != ""


def has_full_runner(manifest: dict) -> bool:
    """OME's "complete runner configuration": ``engine.runner.image``, or a runner image on
    both ``engine.leader`` and ``engine.worker``."""
    engine = _get(manifest, "spec", "engine")
    if not isinstance(engine, dict):
        return False
    if _has_image(engine.get("runner")):
        return True
    leader, worker = engine.get("leader"), engine.get("worker")
    if leader is not None and worker is not None:
        return _has_image(_get(leader, "runner")) and _has_image(_get(worker, "runner"))
    return False


def _invalid(label: str, manifest: dict, problems: dict[str, list[str]]) -> Finding:
    """What the API server says of an object its CRD's schema refuses."""
    kind = str(manifest["kind"])  # one of the five kinds: the stream sorted the others out
    metadata = manifest.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    name = metadata.get("name")
    if not isinstance(name, str):
        name = ""
    namespace = metadata.get("namespace") if isinstance(metadata.get("namespace"), str) else None
    entries = _get(manifest, "spec", "supportedModelFormats")
    if isinstance(entries, list):
        for index, entry in enumerate(entries):
            priority = _get(entry, "priority")
            if isinstance(priority, int) and not isinstance(priority, bool) and priority < 1:
                where = f"spec.supportedModelFormats[{index}].priority"
                return Finding(
                    ERROR,
                    kind,
                    namespace,
                    name,
                    where,
                    "PriorityBelowMinimum",
                    f'The {kind} "{name}" is invalid: {where}: Invalid value: {priority}: '
                    f"{where} in body should be greater than or equal to 1",
                )
    prefix = f"{label}."  # the object's own path, not the request's (rules §18)
    fields = sorted(path.removeprefix(prefix) for path in problems)
    detail = "; ".join(
        f"{path.removeprefix(prefix)}: {' '.join(messages)}"
        for path, messages in sorted(problems.items())
    )
    return Finding(
        ERROR,
        kind,
        namespace,
        name,
        fields[0] if fields else None,
        "Invalid",
        f'The {kind} "{name}" is invalid: {detail}',
    )
