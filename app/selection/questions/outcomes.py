"""Questions asked of a cluster's objects (rules §17–§19), as pure functions of one value, the
``CatalogView``: the outcome of every InferenceService (``selections``), the models no
InferenceService names, and the rankings and placements they will cost."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..placement import (
    ClassView,
    Placement,
    RuntimeRead,
    accelerator_request,
    place,
    read_selected_runtime,
    runtime_extras,
)
from ..ranking import (
    Question,
    Ranking,
    Selection,
    SelectionErrorCode,
    question_of,
    rank_runtimes,
    text_key,
)
from ..values import (
    DEFAULT_NAMESPACE,
    AcceleratorRequest,
    CatalogView,
    InferenceService,
    Model,
    ModelLookup,
    checked,
    classes_known,
    model_not_found,
)

if TYPE_CHECKING:
    from .shared import SharedAnswers


@dataclass(frozen=True, slots=True)
class SelectionRow:
    """One InferenceService's outcome: the runtime OME uses (or none) and OME's message."""

    namespace: str
    name: str
    model: str | None
    selected: Selection | None
    message: str
    error: SelectionErrorCode | None = None  # the code of OME's refusal, when there is one
    ranking: Ranking | None = field(default=None, compare=False)  # None: no model to rank
    placement: Placement | None = None  # rules §20.8, of this row's own InferenceService


def ranked_row(
    namespace: str, name: str, model: str, ranking: Ranking, placement: Placement | None = None
) -> SelectionRow:
    """The outcome a ranking gives: its selection and message, and the code of OME's refusal
    (``NoRuntimeFound`` when nothing qualifies)."""
    code = ranking.error.code if ranking.error else None
    if code is None and ranking.selected is None:
        code = SelectionErrorCode.NO_RUNTIME_FOUND
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
        self._placed: dict[tuple[Hashable, AcceleratorRequest], Placement | None] = {}

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
        self, question: Hashable, model: Model, read: RuntimeRead | None, isvc: InferenceService
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
            isvc_namespace,
            isvc.name,
            isvc.model_name,
            None,
            message,
            SelectionErrorCode.MODEL_NOT_FOUND,
        )
    return replace(isvc, namespace=isvc_namespace, model_name=model.name), model, isvc_namespace


def planned_rankings(
    view: CatalogView, *, namespace: str | None = None, unnamed: bool = False
) -> int:
    """How many rankings ``selections`` (and, with ``unnamed``, ``unnamed_model_rows``) will
    compute: one per distinct question. Linear, and cheap next to one ranking, so that work
    over a bound can be refused before it starts (rules §17 "Bounded work")."""
    questions = {question for question, _, _ in asked_questions(view, namespace=namespace)}
    if not unnamed:
        return len(questions)
    return len(questions) + len(_unnamed(ModelLookup(view.models), view.services))


def asked_questions(
    view: CatalogView, *, namespace: str | None = None
) -> Iterator[tuple[Question, Model, InferenceService]]:
    """The question, model and InferenceService (namespace defaulted) of every
    InferenceService ``selections`` ranks."""
    lookup = ModelLookup(view.models)
    for isvc in checked(view.services):
        found = _resolved(lookup, isvc, namespace)
        if isinstance(found, tuple):
            yield question_of(found[1], found[0]), found[1], found[0]


def planned_placements(view: CatalogView, *, namespace: str | None = None) -> int:
    """How many class checks the placements of ``selections`` may make, at most: per distinct
    question and accelerator fields, each component the InferenceService sets times the longest
    class list a runtime has (which runtime is selected is not known before ranking). Linear,
    so that a catalog whose placements would cost too much is refused before they start."""
    longest = longest_class_list(view)
    if longest == 0:
        return 0
    distinct = {
        (question, accelerator_request(isvc))
        for question, _, isvc in asked_questions(view, namespace=namespace)
    }
    return placement_checks((request for _, request in distinct), longest)


def longest_class_list(view: CatalogView) -> int:
    return max((len(runtime.accelerator_classes or ()) for runtime in view.runtimes), default=0)


def placement_checks(requests: Iterable[AcceleratorRequest], longest: int) -> int:
    """The class checks of placing each distinct request's components, ``longest`` each."""
    components = sum(
        (request.engine is not None) + (request.decoder is not None) for request in requests
    )
    return components * longest


class Answers:
    """What ``selections`` computes once per question over views that agree on what a ranking
    and a placement read besides the model and the InferenceService (runtimes, classes,
    settings): the rankings, each with its selected runtime read, and the placements. Over one
    view a question names its model; over several (``SharedAnswers``) the model's content is
    part of the key, as two clusters may hold different models of one name."""

    def __init__(self, view: CatalogView, model_key: Callable[[Model], Hashable] | None = None):
        self.placer = _Placer(view)
        self.rankings: dict[Hashable, tuple[Ranking, RuntimeRead | None]] = {}
        self._model_key = model_key

    def key(self, question: Question, model: Model) -> Hashable:
        return question if self._model_key is None else (question, self._model_key(model))


def selections(
    view: CatalogView, *, namespace: str | None = None, shared: SharedAnswers | None = None
) -> list[SelectionRow]:
    """Every InferenceService (of ``namespace`` when given) with its outcome, by namespace and
    name. Rankings are computed once per distinct question, not once per InferenceService;
    with ``shared``, once per distinct question across every view it was given."""
    rows = []
    lookup = ModelLookup(view.models)
    answers = Answers(view) if shared is None else shared.of(view)
    placer, rankings = answers.placer, answers.rankings
    for isvc in checked(view.services):
        found = _resolved(lookup, isvc, namespace)
        if found is None:
            continue
        if isinstance(found, SelectionRow):
            rows.append(found)
            continue
        isvc, model, isvc_namespace = found
        question = answers.key(question_of(model, isvc), model)
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
