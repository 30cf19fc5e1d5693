"""Questions asked of a cluster's objects (rules §17–§19), as pure functions of one value, the
``CatalogView``: which model a name (or an InferenceService) means, objects laid over others,
and the outcome of every InferenceService (``selections``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from .budget import checked
from .constraints import requested_modes, required_accelerator_classes
from .documents import DEFAULT_OME_VERSION, InferenceService, Model, RankRequest, Runtime
from .placement import (
    ACCELERATOR_CLASS,
    AcceleratorClass,
    AcceleratorRequest,
    ClassView,
    Placement,
    RuntimeRead,
    accelerator_request,
    classes_known,
    place,
    read_selected_runtime,
    runtime_extras,
)
from .ranking import rank_runtimes, target_namespace
from .results import Ranking, Selection, text_key

BASE_MODEL, CLUSTER_BASE_MODEL = "BaseModel", "ClusterBaseModel"
CLUSTER_SCOPED_KINDS = frozenset({CLUSTER_BASE_MODEL, "ClusterServingRuntime", ACCELERATOR_CLASS})
DEFAULT_NAMESPACE = "default"
Document = Runtime | Model | InferenceService | AcceleratorClass
# ``overlaid`` of runtimes gives runtimes, of any documents any documents.
AnyDocument = TypeVar("AnyDocument", Runtime, AcceleratorClass, Document)
ObjectKey = tuple[str, str, str]  # (kind, namespace or "", name), as a cluster keys objects
# What a ranking for an InferenceService depends on besides the runtimes (``question_of``).
Question = tuple[
    str,  # the model's kind
    str | None,  # the model's namespace
    str,  # the model's name
    str | None,  # the InferenceService's namespace
    frozenset[str],  # the accelerator classes it requires
    tuple[str | None, str | None],  # the deployment modes it asks for (engine, decoder)
    str | None,  # spec.runtime.name
    str | None,  # spec.runtime.kind
]


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


def find_inference_service(
    services: Iterable[InferenceService], namespace: str, name: str
) -> InferenceService | None:
    return next((s for s in services if s.name == name and s.namespace == namespace), None)


@dataclass(frozen=True, slots=True)
class SelectionRow:
    """One InferenceService's outcome: the runtime OME uses (or none) and OME's message."""

    namespace: str
    name: str
    model: str | None
    selected: Selection | None
    message: str
    error: str | None = None  # the code of OME's refusal, when there is one
    ranking: Ranking | None = field(default=None, compare=False)  # None: no model to rank
    placement: Placement | None = None  # rules §20.8, of this row's own InferenceService


def question_of(model: Model, isvc: InferenceService) -> Question:
    """What a ranking for this InferenceService depends on besides the model and the runtimes:
    InferenceServices that ask the same question share one ranking."""
    return (
        model.kind,
        model.namespace,
        model.name,
        isvc.namespace,
        required_accelerator_classes(isvc),
        requested_modes(isvc),
        isvc.runtime_name,
        isvc.runtime_kind,
    )


def ranked_row(
    namespace: str, name: str, model: str, ranking: Ranking, placement: Placement | None = None
) -> SelectionRow:
    """The outcome a ranking gives: its selection and message, and the code of OME's refusal
    (``NoRuntimeFound`` when nothing qualifies)."""
    code = ranking.error.code if ranking.error else None
    if code is None and ranking.selected is None:
        code = "NoRuntimeFound"
    return SelectionRow(
        namespace, name, model, ranking.selected, ranking.message, code, ranking, placement
    )


class _Placer:
    """The placements of many rankings over one view (rules §20.8): the classes are indexed once
    and each question's selected runtime is read once, so a placement per InferenceService costs
    its own entries and listed classes, not the cluster's runtimes."""

    def __init__(self, view: CatalogView) -> None:
        self.view = view
        self.classes = ClassView(
            {accelerator.name: accelerator for accelerator in view.classes},
            classes_known(view.classes_known, len(view.classes)),
        )
        # InferenceServices that ask one question with equal accelerator fields (the common
        # case: many services of one spec) get one placement.
        self._placed: dict[tuple[Question, AcceleratorRequest], Placement | None] = {}

    def place(
        self, model: Model, read: RuntimeRead | None, isvc: InferenceService | None
    ) -> Placement | None:
        if read is None:
            return None
        view = self.view
        return place(
            model,
            read,
            None if isvc is None else accelerator_request(isvc),
            self.classes,
            view.ome_version,
            view.model_cache_provider,
            runtime_extras,
        )

    def place_service(
        self, question: Question, model: Model, read: RuntimeRead | None, isvc: InferenceService
    ) -> Placement | None:
        key = (question, accelerator_request(isvc))
        if key not in self._placed:
            self._placed[key] = self.place(model, read, isvc)
        return self._placed[key]


def _resolved(
    lookup: ModelLookup, isvc: InferenceService, namespace: str | None
) -> SelectionRow | tuple[InferenceService, Model, str] | None:
    """An InferenceService's row when it needs no ranking (it names no model, or one that does
    not exist), else itself (namespace defaulted, model named as found), its model and its
    namespace; None when ``namespace`` filters it out."""
    isvc_namespace = isvc.namespace or DEFAULT_NAMESPACE
    if namespace is not None and isvc_namespace != namespace:
        return None
    if not isvc.model_name:
        return SelectionRow(
            isvc_namespace, isvc.name, None, None, "InferenceService names no model"
        )
    # OME's lookup ignores spec.model.kind (rules §20.10 item 6).
    model = lookup.find(isvc.model_name, isvc_namespace)
    if model is None:
        message = model_not_found(isvc.model_name)
        return SelectionRow(
            isvc_namespace, isvc.name, isvc.model_name, None, message, "ModelNotFound"
        )
    return replace(isvc, namespace=isvc_namespace, model_name=model.name), model, isvc_namespace


def planned_rankings(
    view: CatalogView, *, namespace: str | None = None, unnamed: bool = False
) -> int:
    """How many rankings ``selections`` (and, with ``unnamed``, ``unnamed_model_rows``) will
    compute: one per distinct question. Linear, and cheap next to one ranking, so that work
    over a bound can be refused before it starts (rules §17 "Bounded work")."""
    lookup = ModelLookup(view.models)
    services = view.services
    questions = set()
    for isvc in checked(services):
        found = _resolved(lookup, isvc, namespace)
        if isinstance(found, tuple):
            questions.add(question_of(found[1], found[0]))
    return len(questions) + (len(_unnamed(lookup, services)) if unnamed else 0)


def planned_placements(view: CatalogView, *, namespace: str | None = None) -> int:
    """How many class checks the placements of ``selections`` may make, at most: per distinct
    question and accelerator fields, each component the InferenceService sets times the longest
    class list a runtime has (which runtime is selected is not known before ranking). Linear,
    so that a catalog whose placements would cost too much is refused before they start."""
    longest = max((len(runtime.accelerator_classes or ()) for runtime in view.runtimes), default=0)
    if longest == 0:
        return 0
    lookup = ModelLookup(view.models)
    distinct = set()
    for isvc in checked(view.services):
        found = _resolved(lookup, isvc, namespace)
        if isinstance(found, tuple):
            service, model, _ = found
            distinct.add((question_of(model, service), accelerator_request(service)))
    components = sum(
        (request.engine is not None) + (request.decoder is not None) for _, request in distinct
    )
    return components * longest


def selections(view: CatalogView, *, namespace: str | None = None) -> list[SelectionRow]:
    """Every InferenceService (of ``namespace`` when given) with its outcome, by namespace and
    name. Rankings are computed once per distinct question, not once per InferenceService."""
    rows = []
    lookup = ModelLookup(view.models)
    placer = _Placer(view)
    rankings: dict[Question, tuple[Ranking, RuntimeRead | None]] = {}
    for isvc in checked(view.services):
        found = _resolved(lookup, isvc, namespace)
        if found is None:
            continue
        if isinstance(found, SelectionRow):
            rows.append(found)
            continue
        isvc, model, isvc_namespace = found
        question = question_of(model, isvc)
        known = rankings.get(question)
        if known is None:
            request = view.rank_request(model, isvc)
            ranking = rank_runtimes(request)
            known = rankings[question] = (ranking, read_selected_runtime(request, ranking))
        ranking, read = known
        placement = placer.place_service(question, model, read, isvc)
        rows.append(ranked_row(isvc_namespace, isvc.name, model.name, ranking, placement))
    rows.sort(key=lambda row: (text_key(row.namespace), text_key(row.name)))
    return rows


def _unnamed(lookup: ModelLookup, services: Iterable[InferenceService]) -> list[Model]:
    """The models no InferenceService names, in the lookup's order."""
    named = set()
    for isvc in checked(services):
        if isvc.model_name:
            model = lookup.find(isvc.model_name, isvc.namespace)
            if model is not None:
                named.add((model.kind, model.namespace, model.name))
    return [
        model for model in lookup.models if (model.kind, model.namespace, model.name) not in named
    ]


def unnamed_model_rows(view: CatalogView) -> list[SelectionRow]:
    """rules §19: a row for every model that no InferenceService names, ranked as a request with
    the model alone ranks it (``name`` empty); by namespace (cluster models first) and name."""
    rows = []
    placer = _Placer(view)
    for model in _unnamed(ModelLookup(view.models), view.services):
        request = view.rank_request(model)
        ranking = rank_runtimes(request)
        placement = placer.place(model, read_selected_runtime(request, ranking), None)
        namespace = ranking.namespace if model.namespace is None else model.namespace
        rows.append(ranked_row(namespace, "", model.name, ranking, placement))
    rows.sort(key=lambda row: (text_key(row.namespace), text_key(row.model)))
    return rows


__all__ = [
    "CatalogView",
    "ModelLookup",
    "SelectionRow",
    "find_inference_service",
    "find_model",
    "model_not_found",
    "object_key",
    "overlaid",
    "planned_placements",
    "planned_rankings",
    "question_of",
    "selections",
    "target_namespace",
    "unnamed_model_rows",
]
