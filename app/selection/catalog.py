"""Questions asked of a stored catalog (SPEC §17), as pure functions of its documents: which
model a name (or an InferenceService) means, a request's runtimes laid over the stored ones, and
the outcome of every InferenceService (``selections``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from .budget import checked
from .constraints import requested_modes, required_accelerator_classes
from .documents import InferenceService, Model, RankRequest, Runtime
from .ranking import rank_runtimes, target_namespace
from .results import Ranking, Selection, text_key

BASE_MODEL, CLUSTER_BASE_MODEL = "BaseModel", "ClusterBaseModel"
DEFAULT_NAMESPACE = "default"


def model_not_found(name: str) -> str:
    """OME's text when its model lookup fails (SPEC §17)."""
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


def overlay(stored: Iterable[Runtime], given: Iterable[Runtime], namespace: str) -> list[Runtime]:
    """The stored runtimes with those the request gives laid over them: same kind, namespace and
    name replaces (a ServingRuntime without a namespace lands in the target namespace)."""

    def key(runtime: Runtime) -> tuple[str, str, str]:
        where = "" if runtime.is_cluster else (runtime.namespace or namespace)
        return runtime.kind, where, runtime.name

    given = list(given)
    replaced = {key(runtime) for runtime in given}
    return [runtime for runtime in stored if key(runtime) not in replaced] + given


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


def question_of(model: Model, isvc: InferenceService) -> tuple:
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


def ranked_row(namespace: str, name: str, model: str, ranking: Ranking) -> SelectionRow:
    """The outcome a ranking gives: its selection and message, and the code of OME's refusal
    (``NoRuntimeFound`` when nothing qualifies)."""
    code = ranking.error.code if ranking.error else None
    if code is None and ranking.selected is None:
        code = "NoRuntimeFound"
    return SelectionRow(namespace, name, model, ranking.selected, ranking.message, code, ranking)


def _resolved(
    lookup: ModelLookup, isvc: InferenceService, namespace: str | None
) -> SelectionRow | tuple[InferenceService, Model] | None:
    """An InferenceService's row when it needs no ranking (it names no model, or one that does
    not exist), else itself (namespace defaulted, model named as found) and its model; None when
    ``namespace`` filters it out."""
    isvc_namespace = isvc.namespace or DEFAULT_NAMESPACE
    if namespace is not None and isvc_namespace != namespace:
        return None
    if not isvc.model_name:
        return SelectionRow(
            isvc_namespace, isvc.name, None, None, "InferenceService names no model"
        )
    model = lookup.find(isvc.model_name, isvc_namespace, isvc.model_kind)
    if model is None:
        message = model_not_found(isvc.model_name)
        return SelectionRow(
            isvc_namespace, isvc.name, isvc.model_name, None, message, "ModelNotFound"
        )
    return replace(isvc, namespace=isvc_namespace, model_name=model.name), model


def planned_rankings(
    models: Iterable[Model],
    services: Iterable[InferenceService],
    *,
    namespace: str | None = None,
    unnamed: bool = False,
) -> int:
    """How many rankings ``selections`` (and, with ``unnamed``, ``unnamed_model_rows``) will
    compute: one per distinct question. Linear, and cheap next to one ranking, so that work
    over a bound can be refused before it starts (SPEC §17 "Bounded work")."""
    lookup = ModelLookup(models)
    services = tuple(services)
    questions = set()
    for isvc in checked(services):
        found = _resolved(lookup, isvc, namespace)
        if isinstance(found, tuple):
            questions.add(question_of(found[1], found[0]))
    return len(questions) + (len(_unnamed(lookup, services)) if unnamed else 0)


def selections(
    models: tuple[Model, ...],
    runtimes: tuple[Runtime, ...],
    services: Iterable[InferenceService],
    *,
    ome_version: str,
    model_cache_provider: str | None,
    namespace: str | None = None,
) -> list[SelectionRow]:
    """Every InferenceService (of ``namespace`` when given) with its outcome, by namespace and
    name. Rankings are computed once per distinct question, not once per InferenceService."""
    rows = []
    lookup = ModelLookup(models)
    rankings: dict[tuple, Ranking] = {}
    for isvc in checked(services):
        found = _resolved(lookup, isvc, namespace)
        if found is None:
            continue
        if isinstance(found, SelectionRow):
            rows.append(found)
            continue
        isvc, model = found
        question = question_of(model, isvc)
        ranking = rankings.get(question)
        if ranking is None:
            request = RankRequest(
                model,
                runtimes,
                isvc,
                ome_version=ome_version,
                model_cache_provider=model_cache_provider,
            )
            ranking = rankings[question] = rank_runtimes(request)
        rows.append(ranked_row(isvc.namespace, isvc.name, model.name, ranking))
    rows.sort(key=lambda row: (text_key(row.namespace), text_key(row.name)))
    return rows


def _unnamed(lookup: ModelLookup, services: Iterable[InferenceService]) -> list[Model]:
    """The models no InferenceService names, in the lookup's order."""
    named = set()
    for isvc in checked(services):
        if isvc.model_name:
            model = lookup.find(isvc.model_name, isvc.namespace, isvc.model_kind)
            if model is not None:
                named.add((model.kind, model.namespace, model.name))
    return [
        model for model in lookup.models if (model.kind, model.namespace, model.name) not in named
    ]


def unnamed_model_rows(
    models: tuple[Model, ...],
    runtimes: tuple[Runtime, ...],
    services: Iterable[InferenceService],
    *,
    ome_version: str,
    model_cache_provider: str | None,
) -> list[SelectionRow]:
    """SPEC §19: a row for every model that no InferenceService names, ranked as a request with
    the model alone ranks it (``name`` empty); by namespace (cluster models first) and name."""
    rows = []
    for model in _unnamed(ModelLookup(models), services):
        ranking = rank_runtimes(
            RankRequest(
                model, runtimes, ome_version=ome_version, model_cache_provider=model_cache_provider
            )
        )
        namespace = ranking.namespace if model.namespace is None else model.namespace
        rows.append(ranked_row(namespace, "", model.name, ranking))
    rows.sort(key=lambda row: (text_key(row.namespace), text_key(row.model)))
    return rows


__all__ = [
    "ModelLookup",
    "SelectionRow",
    "find_inference_service",
    "find_model",
    "model_not_found",
    "overlay",
    "planned_rankings",
    "question_of",
    "selections",
    "target_namespace",
    "unnamed_model_rows",
]
