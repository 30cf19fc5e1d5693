"""Objects as a backend stores them (manifest and document JSON, digest, size), and the state of a
cluster that a write decides on: what both backends share below ``base``."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from . import codec
from .history import HistoryEntry
from .records import (
    KINDS,
    ClusterInfo,
    ClusterSettings,
    Document,
    ObjectKey,
    StoredObject,
    UnreadableCatalog,
)


@dataclass(frozen=True, slots=True)
class EncodedObject:
    """An object as a backend stores it. ``digest`` tells a changed object from an unchanged
    one without reading the stored manifest back; ``size`` is what it takes in the store
    (both texts are ASCII: characters are bytes), what the per-cluster quota counts."""

    key: ObjectKey
    manifest: str
    document: str
    digest: str

    @property
    def size(self) -> int:
        return stored_size(self.manifest, self.document)


def stored_size(manifest: str | bytes, document: str | bytes) -> int:
    return len(manifest) + len(document)


def object_digest(manifest: str, document: str) -> str:
    return hashlib.sha256(f"{manifest}\n{document}".encode()).hexdigest()


def encode_object(item: StoredObject) -> EncodedObject:
    """``ValueError`` for a manifest that is not JSON values (checked before any write)."""
    try:
        manifest = json.dumps(item.manifest, separators=(",", ":"), ensure_ascii=True)
        document = codec.dumps(item.document)
    except (TypeError, ValueError, RecursionError) as error:
        raise ValueError(f"{item.kind} {item.name}: cannot be stored: {error}") from None
    return EncodedObject(item.key, manifest, document, object_digest(manifest, document))


def encode_objects(items: Iterable[StoredObject]) -> dict[ObjectKey, EncodedObject]:
    """By key, the last of several with the same key winning (as ``kubectl apply`` leaves it)."""
    encoded: dict[ObjectKey, EncodedObject] = {}
    for item in items:
        if not isinstance(item, StoredObject):
            raise TypeError(f"not a StoredObject: {item!r}")
        value = encode_object(item)
        encoded[value.key] = value
    return encoded


def decode_object(key: ObjectKey, manifest: str | bytes, document: Any) -> StoredObject:
    """The object a backend read back: ``document`` is the parsed JSON of its stored document.
    Call it under ``reading``."""
    kind, namespace, name = key
    return StoredObject(
        kind, namespace or None, name, codec.parse_json(manifest), codec.decode(document)
    )


@contextlib.contextmanager
def reading(cluster: str) -> Iterator[None]:
    """Anything stored that does not decode is ``UnreadableCatalog``, never a wrong answer."""
    try:
        yield
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as error:
        raise UnreadableCatalog(f"cluster {cluster}: cannot read what is stored: {error}") from None


@dataclass(frozen=True, slots=True)
class ClusterState:
    """What a write decides on: the cluster's info, and the digest and stored size of every
    stored object; ``load``, the documents of the stored objects of the keys given, decoded,
    read in the write's transaction (what the selection history compares, rules §17)."""

    info: ClusterInfo
    digests: Mapping[ObjectKey, str]
    sizes: Mapping[ObjectKey, int]
    load: Callable[[list[ObjectKey]], list[Document]] | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """What a write does to one cluster. ``info`` is the cluster after it; nothing is written
    unless ``changed``. ``history``: what it did to the InferenceServices' outcomes, stored
    with it (as listed newest first)."""

    info: ClusterInfo
    created: bool = False
    settings_changed: bool = False
    puts: tuple[EncodedObject, ...] = ()
    deletes: tuple[ObjectKey, ...] = ()
    history: tuple[HistoryEntry, ...] = ()

    @property
    def changed(self) -> bool:
        return self.created or self.settings_changed or bool(self.puts or self.deletes)


def info_of(
    name: str,
    uid: str,
    settings: str | bytes,
    generation: int | str | bytes,
    updated_at: str,
    counts: str | bytes,
) -> ClusterInfo:
    """A cluster's info from its stored fields (JSON settings and counts); call it under
    ``reading``."""
    stored = json.loads(counts)
    return ClusterInfo(
        name,
        uid,
        ClusterSettings.from_json(json.loads(settings)),
        int(generation),
        updated_at,
        {kind: int(stored.get(kind, 0)) for kind in KINDS},
    )
