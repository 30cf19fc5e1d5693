"""A cluster's objects as one value (rules §17–§19), the ``CatalogView`` every question over a
catalog reads (selections, lint, impact), and OME's lookups in it: how a cluster keys an object,
objects laid over others, which model a name means."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from .accelerator_classes import ACCELERATOR_CLASS, AcceleratorClass
from .documents import DEFAULT_OME_VERSION, InferenceService, Model, RankRequest, Runtime

BASE_MODEL, CLUSTER_BASE_MODEL = "BaseModel", "ClusterBaseModel"
CLUSTER_SCOPED_KINDS = frozenset({CLUSTER_BASE_MODEL, "ClusterServingRuntime", ACCELERATOR_CLASS})
DEFAULT_NAMESPACE = "default"
Document = Runtime | Model | InferenceService | AcceleratorClass
# ``overlaid`` of runtimes gives runtimes, of any documents any documents.
AnyDocument = TypeVar("AnyDocument", Runtime, AcceleratorClass, Document)
ObjectKey = tuple[str, str, str]  # (kind, namespace or "", name), as a cluster keys objects


def object_key(document: Document, namespace: str = "") -> ObjectKey:
    """How a cluster keys ``document``: kind, namespace (``namespace`` for a namespaced one
    that names none, "" at cluster scope) and name."""
    kind: str = getattr(document, "kind", "InferenceService")
    where = "" if kind in CLUSTER_SCOPED_KINDS else (document.namespace or namespace)
    return kind, where, document.name


def overlaid(
    stored: Iterable[AnyDocument],
    given: Iterable[AnyDocument],
    *,
    namespace: str = "",
    deleted: Iterable[ObjectKey] = (),
) -> list[AnyDocument]:
    """``stored`` with ``given`` laid over it, as ``kubectl apply`` of ``given`` leaves a
    cluster: same kind, namespace and name replaces (a namespaced object that names no
    namespace is in ``namespace``), ``deleted`` keys removed; the kept ones first, in order."""
    given = list(given)
    replaced = {object_key(document, namespace) for document in given} | set(deleted)
    kept = [document for document in stored if object_key(document, namespace) not in replaced]
    return kept + given


@dataclass(frozen=True, slots=True)
class CatalogView:
    """What the rules read of a cluster: its objects, and the OME version and model cache
    provider they are read with. Selections, lint and impact take one; a change to a cluster is
    another (``laid_over``). ``classes_known`` is the cluster's ``acceleratorClassesKnown``
    (None: known when it holds at least one class, rules §20.8)."""

    runtimes: tuple[Runtime, ...] = ()
    models: tuple[Model, ...] = ()
    services: tuple[InferenceService, ...] = ()
    ome_version: str = DEFAULT_OME_VERSION
    model_cache_provider: str | None = None
    classes: tuple[AcceleratorClass, ...] = ()
    classes_known: bool | None = None

    @classmethod
    def of(
        cls,
        documents: Iterable[Document],
        *,
        ome_version: str = DEFAULT_OME_VERSION,
        model_cache_provider: str | None = None,
        classes_known: bool | None = None,
    ) -> CatalogView:
        """The view of ``documents``, each kind in the given order."""
        runtimes: list[Runtime] = []
        models: list[Model] = []
        services: list[InferenceService] = []
        classes: list[AcceleratorClass] = []
        for document in documents:
            if isinstance(document, Runtime):
                runtimes.append(document)
            elif isinstance(document, Model):
                models.append(document)
            elif isinstance(document, AcceleratorClass):
                classes.append(document)
            else:
                services.append(document)
        return cls(
            tuple(runtimes),
            tuple(models),
            tuple(services),
            ome_version,
            model_cache_provider,
            tuple(classes),
            classes_known,
        )

    @property
    def documents(self) -> tuple[Document, ...]:
        return (*self.runtimes, *self.models, *self.services, *self.classes)

    def laid_over(
        self, given: Iterable[Document], deleted: Iterable[ObjectKey] = ()
    ) -> CatalogView:
        """This cluster after ``kubectl apply`` of ``given`` and the deletion of ``deleted``."""
        return CatalogView.of(
            overlaid(self.documents, given, deleted=deleted),
            ome_version=self.ome_version,
            model_cache_provider=self.model_cache_provider,
            classes_known=self.classes_known,
        )

    def rank_request(
        self, model: Model, isvc: InferenceService | None = None, namespace: str | None = None
    ) -> RankRequest:
        """The request a ranking of ``model`` (for ``isvc``) over this cluster makes, with its
        classes (one per name: a view keeps one object per key)."""
        return RankRequest(
            model,
            self.runtimes,
            isvc,
            namespace=namespace,
            ome_version=self.ome_version,
            model_cache_provider=self.model_cache_provider,
            accelerator_classes=self.classes,
            accelerator_classes_known=self.classes_known,
        )


def model_not_found(name: str) -> str:
    """OME's text when its model lookup fails (rules §17)."""
    return f"No BaseModel or ClusterBaseModel with the name: {name}"


class ModelLookup:
    """OME's model lookup over a set of models, indexed once by name, so that finding the
    model of every InferenceService is linear in the objects."""

    def __init__(self, models: Iterable[Model]) -> None:
        self.models = tuple(models)
        self._by_name: dict[str, list[Model]] = {}
        for model in self.models:
            self._by_name.setdefault(model.name, []).append(model)

    def find(self, name: str, namespace: str | None, kind: str | None = None) -> Model | None:
        """``BaseModel`` in the namespace (``default`` when none), ``ClusterBaseModel`` at
        cluster scope; without a kind the BaseModel of that name first, then the cluster one."""
        where = namespace or DEFAULT_NAMESPACE
        base = cluster = None
        for model in self._by_name.get(name, ()):
            if model.is_cluster:
                cluster = model
            elif model.namespace == where:
                base = model
        if kind == BASE_MODEL:
            return base
        if kind == CLUSTER_BASE_MODEL:
            return cluster
        return base or cluster


def find_model(
    models: Iterable[Model], name: str, namespace: str | None, kind: str | None = None
) -> Model | None:
    """One lookup (``ModelLookup`` for many)."""
    return ModelLookup(models).find(name, namespace, kind)


def namespaces_holding(
    models: Iterable[Model], name: str, namespace: str | None, kind: str | None = None
) -> list[str]:
    """Where else a BaseModel of that name is, sorted, when OME's lookup in ``namespace``
    (``default`` when none) fails: the namespaces a question by name could ask about instead
    (none when it asks for the ClusterBaseModel)."""
    if kind == CLUSTER_BASE_MODEL:
        return []
    where = namespace or DEFAULT_NAMESPACE
    found = {m.namespace for m in models if m.name == name and not m.is_cluster}
    return sorted(ns for ns in found if ns is not None and ns != where)


def find_inference_service(
    services: Iterable[InferenceService], namespace: str, name: str
) -> InferenceService | None:
    return next((s for s in services if s.name == name and s.namespace == namespace), None)
