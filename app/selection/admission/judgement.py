"""What ``kubectl apply`` would answer for a set of OME objects (rules §13, §18, §20.7), checked
without a cluster: the refusals of the API server and of OME's admission webhooks, the
warnings kubectl prints, and what OME accepts but rarely does what the author meant.

The cluster is the given objects (for a stored catalog: the catalog with the new objects laid
over it); every object checked is judged as ``kubectl apply`` would judge it against the others,
so a clash between two runtimes refuses each of them, naming the other as the one that exists.
An object the API server refuses (strict decoding, the CRD's schema) is still part of the
cluster the others are judged against, as every object is; what OME's webhook would refuse of
it follows its error, as ``AlsoRefused`` infos (rules §18: one error per object, as kubectl
shows it). The exceptions are the objects judged *apart*: kubectl refuses their ``apiVersion``, or
the API server their name, so they never join the cluster; each is judged, after its error, against
the cluster with them laid over it, and no other object is judged against them.

The webhooks' rules: ``runtimes`` (runtimes), ``models`` (models), ``services`` and
``service_rules`` (InferenceServices); what OME reads otherwise of the accelerator fields:
``accelerator_notes``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from packaging.version import Version

from ..ranking import KIND_AND_INHERITANCE_SINCE
from ..values import (
    CatalogView,
    Document,
    InferenceService,
    Model,
    ModelLookup,
    ObjectKey,
    Runtime,
    go_list,
    object_key,
)
from ..values import checked as each_checked
from .accelerator_notes import (
    class_notes,
    effective_list,
    runtime_accelerator_notes,
    service_accelerator_notes,
)
from .findings import INFO, WARNING, Admission, Finding, Refusal, finding_order, refused
from .models import model_refusals
from .overlaps import overlap_notes
from .runtimes import ParentFinder, Peers, runtime_notes, runtime_refusals, size_note
from .services import ServiceContext, SharedAnswers, asked_question, service_verdict
from .suppressions import split_suppressed

Manifests = Mapping[ObjectKey, Mapping[str, Any]]


def model_notes(model: Model, sized_runtimes: bool) -> list[Finding]:
    """``sized_runtimes``: some runtime of the cluster sets a ``modelSizeRange``."""
    found = []
    if model.parameter_size is not None:
        note = size_note(
            model.kind, model.namespace, model.name, "spec.modelParameterSize", model.parameter_size
        )
        if note is not None:
            found.append(note)
    elif model.is_ready and sized_runtimes:
        found.append(
            Finding(
                INFO,
                model.kind,
                model.namespace,
                model.name,
                "spec.modelParameterSize",
                "NoParameterSize",
                "the model has no modelParameterSize, so no runtime's modelSizeRange excludes "
                "it or orders it: size ranges decide nothing for this model",
            )
        )
    return found


Wanted = Callable[[Document], bool]


def _passes(
    view: CatalogView, checked: frozenset[ObjectKey] | None, apart: Sequence[Document]
) -> list[tuple[CatalogView, Wanted]]:
    """Each cluster objects are judged against, with which objects it judges: ``view`` for
    those of ``checked`` (all when None); and for the objects judged apart, which no other
    object is judged against, ``view`` with them laid over it (rules §18)."""
    apart_keys = frozenset(object_key(document) for document in apart)

    def wanted(document: Document) -> bool:
        key = object_key(document)
        return (checked is None or key in checked) and key not in apart_keys

    passes: list[tuple[CatalogView, Wanted]] = [(view, wanted)]
    if apart:
        passes.append((view.laid_over(apart), lambda document: object_key(document) in apart_keys))
    return passes


def planned_admission_rankings(
    view: CatalogView,
    *,
    checked: frozenset[ObjectKey] | None = None,
    full_runners: frozenset[tuple[str | None, str]] = frozenset(),
    apart: Sequence[Document] = (),
) -> int:
    """How many rankings ``admit`` will compute for these InferenceServices: one per distinct
    question of each cluster they are judged against, so that work over a bound can be refused
    before it starts."""
    count = 0
    for cluster, wanted in _passes(view, checked, apart):
        lookup = ModelLookup(cluster.models)
        questions = set()
        for isvc in each_checked(cluster.services):
            if not wanted(isvc):
                continue
            question = asked_question(isvc, (isvc.namespace, isvc.name) in full_runners, lookup)
            if question is not None:
                questions.add(question)
        count += len(questions)
    return count


class _Judgement:
    """Each checked object's refusals, in the order the object meets them, and the warnings
    and infos about it."""

    def __init__(self) -> None:
        self.refusals: dict[ObjectKey, list[Refusal]] = {}
        self.where: dict[ObjectKey, tuple[str, str | None, str]] = {}
        self.others: list[Finding] = []

    def refuse(self, document: Document, refusals: Iterable[Refusal]) -> None:
        key = object_key(document)
        self.where[key] = (key[0], document.namespace, document.name)
        self.refusals.setdefault(key, []).extend(refusals)


def _judge(
    view: CatalogView,
    wanted: Wanted,
    full_runners: frozenset[tuple[str | None, str]],
    manifests: Manifests,
    judgement: _Judgement,
    classes: frozenset[str] | None,
    class_manifests: Mapping[str, Mapping[str, Any]],
) -> None:
    """Judges every object ``wanted`` against the cluster ``view``, and the applied
    AcceleratorClasses ``class_manifests``."""
    runtime_list = list(view.runtimes)
    modern = Version(view.ome_version) >= KIND_AND_INHERITANCE_SINCE
    peers = Peers(runtime_list)
    finder = ParentFinder(runtime_list)
    for runtime in each_checked(runtime_list, every=8):
        if wanted(runtime):
            manifest = manifests.get(object_key(runtime))
            judgement.refuse(
                runtime,
                runtime_refusals(runtime, runtime_list, modern, peers, finder, manifest, classes),
            )
            judgement.others.extend(runtime_notes(runtime, modern, manifest))
            if classes is None and runtime.accelerator_classes and not runtime.is_disabled:
                judgement.others.append(_classes_unknown(runtime))
            listed = effective_list(runtime, finder.for_runtime(runtime) if modern else None)
            judgement.others.extend(runtime_accelerator_notes(runtime, manifest, listed))
    judgement.others.extend(overlap_notes(runtime_list, wanted))
    sized = any(runtime.size_range is not None for runtime in runtime_list)
    for model in each_checked(view.models):
        if wanted(model):
            manifest = manifests.get(object_key(model))
            if manifest is not None:
                judgement.refuse(model, model_refusals(manifest))
            judgement.others.extend(model_notes(model, sized))
    context = ServiceContext(
        ModelLookup(view.models),
        view.runtimes,
        view.ome_version,
        view.model_cache_provider,
        SharedAnswers(),
    )
    for isvc in each_checked(view.services):
        if not wanted(isvc):
            continue
        full = (isvc.namespace, isvc.name) in full_runners
        verdict = service_verdict(isvc, manifests.get(object_key(isvc)), full, context)
        judgement.refuse(isvc, verdict.refusals)
        judgement.others.extend(_warning(isvc, *item) for item in verdict.warnings)
        judgement.others.extend(service_accelerator_notes(isvc))
    for name, manifest in each_checked(list(class_manifests.items()), every=8):
        judgement.others.extend(class_notes(name, manifest))


def _classes_unknown(runtime: Runtime) -> Finding:
    listed = go_list(runtime.accelerator_classes or ())
    return Finding(
        INFO,
        runtime.kind,
        runtime.namespace,
        runtime.name,
        "spec.acceleratorRequirements.acceleratorClasses",
        "AcceleratorClassesUnknown",
        f"the request holds no AcceleratorClass, so whether OME's webhook accepts {listed} is "
        "unknown",
    )


def _warning(isvc: InferenceService, code: str, field: str | None, text: str) -> Finding:
    return Finding(WARNING, "InferenceService", isvc.namespace, isvc.name, field, code, text)


def admit(
    view: CatalogView,
    *,
    invalid: Iterable[Finding] = (),
    checked: frozenset[ObjectKey] | None = None,
    full_runners: frozenset[tuple[str | None, str]] = frozenset(),
    manifests: Manifests | None = None,
    refused_by_schema: Mapping[ObjectKey, Sequence[Refusal]] | None = None,
    accelerator_classes: frozenset[str] | None = None,
    class_manifests: Mapping[str, Mapping[str, Any]] | None = None,
    apart: Sequence[Document] = (),
) -> Admission:
    """Findings for every object of ``checked`` (kind, namespace, name) — all when None —
    against the cluster ``view``. ``invalid`` are the API server's refusals of the objects that
    do not even load. ``refused_by_schema``: the API server's refusals of objects that load;
    what OME's webhook would refuse of them follows, as the next apply would meet it once those
    are fixed, and no warning of the webhook is printed for them. ``manifests``: the applied
    objects as written, for what their documents do not keep. ``accelerator_classes``: the
    names of the cluster's AcceleratorClasses, None when they are not known. ``apart``: objects
    whose error (in ``refused_by_schema``) no fix that keeps them the same object removes from
    the way of the others (an apiVersion not set right, a name the API server refuses): each
    is judged against the cluster and the others apart, and no other object against it. A
    finding whose object's manifest names its code in ``ome-ranker.io/ignore`` is set apart as
    suppressed (``suppressions``)."""
    schema_refusals = refused_by_schema or {}
    judgement = _Judgement()
    for index, (cluster, wanted) in enumerate(_passes(view, checked, apart)):
        _judge(
            cluster,
            wanted,
            full_runners,
            manifests or {},
            judgement,
            accelerator_classes,
            (class_manifests or {}) if index == 0 else {},  # judged once
        )
    findings = list(invalid)
    for key, first in schema_refusals.items():
        kind, namespace, name = key
        judgement.where.setdefault(key, (kind, namespace or None, name))
        judgement.refusals[key] = [*first, *judgement.refusals.get(key, ())]
    for key, refusals in judgement.refusals.items():
        if refusals:
            findings.extend(refused(*judgement.where[key], refusals))
    for finding in judgement.others:
        key = (finding.kind or "", finding.namespace or "", finding.name)
        if finding.severity != WARNING or key not in schema_refusals:
            findings.append(finding)
    reported, suppressed = split_suppressed(sorted(findings, key=finding_order), manifests or {})
    return Admission(tuple(reported), tuple(suppressed))
