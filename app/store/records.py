"""What a catalog store holds and answers (rules §17), and what it raises."""

from __future__ import annotations

import dataclasses
import re
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal

from app.selection.values import (
    DEFAULT_OME_VERSION,
    AcceleratorClass,
    CatalogView,
    InferenceService,
    Model,
    Runtime,
)

# Every kind a store holds, in the order objects are listed (byte order, as the key sorts).
KINDS = (
    "AcceleratorClass",
    "BaseModel",
    "ClusterBaseModel",
    "ClusterServingRuntime",
    "InferenceService",
    "ServingRuntime",
)
CLUSTER_SCOPED_KINDS = frozenset({"AcceleratorClass", "ClusterBaseModel", "ClusterServingRuntime"})
DOCUMENT_TYPES: dict[str, type] = {
    "AcceleratorClass": AcceleratorClass,
    "BaseModel": Model,
    "ClusterBaseModel": Model,
    "ClusterServingRuntime": Runtime,
    "InferenceService": InferenceService,
    "ServingRuntime": Runtime,
}
CLUSTER_NAME = re.compile(r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?\Z")  # a DNS-1123 label
DEFAULT_MAX_OBJECTS = 10_000  # per cluster
DEFAULT_MAX_BYTES = 64 * 1024 * 1024  # per cluster, as stored
DEFAULT_MAX_RUNTIMES = 10_000  # per cluster
DEFAULT_MAX_CLUSTERS = 100  # per service

ObjectKey = tuple[str, str, str]  # (kind, namespace or "", name)
Document = Runtime | Model | InferenceService | AcceleratorClass


class StoreError(Exception):
    """Base of everything a store raises on purpose."""


class ClusterNotFound(StoreError):
    """A write found no cluster to write. The HTTP layer answers it as the API's own
    ``ClusterNotFound`` (app/errors.py), translated in one place (app/http/access.py,
    ``store_errors``); reads say None instead."""

    def __init__(self, cluster: str) -> None:
        super().__init__(f"no cluster named {cluster!r}")
        self.cluster = cluster


class PreconditionFailed(StoreError):
    """``if_match`` is not the cluster's generation (``None``: the cluster does not exist)."""

    def __init__(self, current_generation: int | None) -> None:
        super().__init__(f"the cluster's generation is {current_generation}")
        self.current_generation = current_generation


class EmptyReplace(StoreError):
    """A replace of a non-empty catalog with no object at all, not asked for (``allow_empty``):
    what a sync whose ``kubectl get`` printed an empty list would do (rules §17). Decided in
    the write's transaction, on the objects stored when it commits."""

    def __init__(self, cluster: str, stored: int) -> None:
        super().__init__(f"cluster {cluster!r} holds {stored} objects; the write holds none")
        self.cluster = cluster
        self.stored = stored


class CreationRefused(StoreError):
    """The cluster does not exist and the write may not create it (its caller may write the
    cluster but not create clusters): decided in the write's transaction, so a cluster deleted
    while the write runs is not created again by it."""

    def __init__(self, cluster: str) -> None:
        super().__init__(f"no cluster named {cluster!r}, and this write may not create it")
        self.cluster = cluster


@dataclass(frozen=True, slots=True)
class Precondition:
    """What a write's ``If-Match`` asks (RFC 9110 §13.1.1), checked when the write commits: the
    cluster exists with one of ``generations``, or with any generation when that is ``None``
    (``*``). No generation (an empty set) never holds; nor does anything on a missing
    cluster."""

    generations: frozenset[int] | None

    EXISTS: ClassVar[Precondition]

    @classmethod
    def of(cls, condition: int | Precondition | None) -> Precondition | None:
        """A generation as the condition that names it alone."""
        if condition is None or isinstance(condition, Precondition):
            return condition
        return cls(frozenset((condition,)))

    def holds(self, generation: int | None) -> bool:
        """Whether a cluster of ``generation`` (``None``: none) meets it."""
        if generation is None:
            return False
        return self.generations is None or generation in self.generations


Precondition.EXISTS = Precondition(None)


class StoreUnavailable(StoreError):
    """The backend cannot be reached or used now: the caller answers 503 with Retry-After.

    ``problem`` says what is wrong in words fit for anyone to read (``/readyz``): no address,
    path or secret, which the message, for the log, may hold. ``refused``: the backend answers
    but refuses this service (credentials, permissions, a file it cannot open or write), which
    a fix of the settings ends, not time. ``answered``: False when nothing answered (a timeout,
    a connection refused): the store's circuit breaker then stops asking for a while.
    """

    problem = "the catalog store is unavailable"

    def __init__(
        self,
        message: str,
        *,
        problem: str | None = None,
        refused: bool = False,
        answered: bool = True,
    ) -> None:
        super().__init__(message)
        if problem is not None:
            self.problem = problem
        self.refused = refused
        self.answered = answered


class StoreNotAsked(StoreUnavailable):
    """Not tried: the store's circuit breaker is open after it stopped answering."""


class UnreadableCatalog(StoreUnavailable):
    """What the backend holds cannot be read by this version of the service: an encoding of a
    newer instance (a rolling upgrade in progress) or a damaged value. Unavailable, not wrong."""

    problem = "what the catalog store holds cannot be read by this version of the service"


# What a store bounds: objects and stored bytes per cluster, runtimes per cluster (each one a
# ranking reads), clusters per service.
Bound = Literal["objects", "bytes", "runtimes", "clusters"]


class LimitExceeded(StoreError):
    """A write over a bound: ``bound`` names which, ``requested`` is what the write would make
    of it, ``limit`` the bound."""

    def __init__(self, message: str, bound: Bound, limit: int, requested: int) -> None:
        super().__init__(message)
        self.message = message
        self.bound = bound
        self.limit = limit
        self.requested = requested


RUNTIME_KINDS = frozenset({"ClusterServingRuntime", "ServingRuntime"})


@dataclass(frozen=True, slots=True)
class ClusterSettings:
    """``PUT /v1/clusters/{cluster}``'s body (rules §17)."""

    ome_version: str = DEFAULT_OME_VERSION
    model_cache_provider: str | None = None
    description: str | None = None
    # rules §20.8: whether the stored AcceleratorClasses are all the cluster has (None: when
    # at least one is stored).
    accelerator_classes_known: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> ClusterSettings:
        # Fields unknown to this version are skipped (a newer instance's); missing ones default.
        names = {field.name for field in dataclasses.fields(cls)}
        return cls(**{name: item for name, item in value.items() if name in names})


@dataclass(frozen=True, slots=True)
class StoredObject:
    """One object of a cluster: ``manifest`` as written (JSON values; a tuple comes back as a
    list), ``document`` what selection reads. Namespaced kinds need a namespace (the caller
    defaults it, as kubectl does); cluster-scoped kinds have ``None``."""

    kind: str
    namespace: str | None
    name: str
    manifest: dict[str, Any]
    document: Document

    def __post_init__(self) -> None:
        expected = DOCUMENT_TYPES.get(self.kind)
        if expected is None:
            raise ValueError(f"a store does not hold objects of kind {self.kind!r}")
        document_kind = getattr(self.document, "kind", self.kind)
        if type(self.document) is not expected or document_kind != self.kind:
            raise ValueError(
                f"a {self.kind} needs a {expected.__name__} document of that kind, not a "
                f"{type(self.document).__name__} of kind {document_kind}"
            )
        if self.kind in CLUSTER_SCOPED_KINDS:
            if self.namespace is not None:
                raise ValueError(f"a {self.kind} has no namespace")
        elif not _key_part(self.namespace):
            raise ValueError(f"a {self.kind} needs a namespace")
        if not _key_part(self.name):
            raise ValueError("an object needs a name")
        if type(self.manifest) is not dict:
            raise ValueError("a manifest is a mapping")

    @property
    def key(self) -> ObjectKey:
        return (self.kind, self.namespace or "", self.name)


def _key_part(value: object) -> bool:
    """A non-empty str that every backend can store as it is (UTF-8: no lone surrogates)."""
    if type(value) is not str or not value:
        return False
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


# (name, uid, generation, synced at) of a stored cluster: which catalog, which state of it, and
# when a sync last replaced its objects (None: never).
Generation = tuple[str, str, int, str | None]


@dataclass(frozen=True, slots=True)
class ClusterInfo:
    """``uid`` names this incarnation of the cluster: one deleted and created again starts
    at generation 1 again, with another ``uid`` (key caches by both)."""

    name: str
    uid: str
    settings: ClusterSettings
    generation: int
    updated_at: str  # RFC 3339, UTC, of the last write that changed something
    counts: dict[str, int]  # every kind of KINDS, in that order, zeros included


@dataclass(frozen=True, slots=True)
class Catalog:
    """One consistent snapshot of a cluster: its info and every object, in key order."""

    info: ClusterInfo
    objects: tuple[StoredObject, ...]


@dataclass(frozen=True, slots=True)
class CatalogDocuments:
    """What ranking reads: a consistent snapshot of the documents alone, in key order (no
    manifest is read or parsed)."""

    info: ClusterInfo
    runtimes: tuple[Runtime, ...]
    models: tuple[Model, ...]
    inference_services: tuple[InferenceService, ...]
    classes: tuple[AcceleratorClass, ...] = ()

    def view(self) -> CatalogView:
        """The documents as the rules take them, with the cluster's settings."""
        settings = self.info.settings
        return CatalogView(
            self.runtimes,
            self.models,
            self.inference_services,
            settings.ome_version,
            settings.model_cache_provider,
            self.classes,
            settings.accelerator_classes_known,
        )

    @classmethod
    def of(cls, info: ClusterInfo, documents: Iterable[Document]) -> CatalogDocuments:
        view = CatalogView.of(documents)
        return cls(info, view.runtimes, view.models, view.services, view.classes)


def counts_of(keys: Iterable[ObjectKey]) -> dict[str, int]:
    counts = dict.fromkeys(KINDS, 0)
    for kind, _namespace, _name in keys:
        counts[kind] += 1
    return counts


def check_cluster_name(cluster: str) -> str:
    if type(cluster) is not str or not CLUSTER_NAME.match(cluster):
        raise ValueError(f"cluster names are DNS-1123 labels: {cluster!r}")
    return cluster


def new_uid() -> str:
    """Unique per creation, and saying when: milliseconds since the epoch (the real clock,
    whatever clock ``updated_at`` reads), a random part."""
    return f"{int(time.time() * 1000)}-{secrets.token_hex(8)}"


def uid_time(uid: str) -> float:
    """Seconds since the epoch when ``uid`` was made; 0 for anything else."""
    try:
        return int(uid.split("-", 1)[0]) / 1000
    except ValueError:
        return 0.0


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
