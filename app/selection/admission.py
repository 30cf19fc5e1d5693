"""What ``kubectl apply`` would answer for a set of OME objects (rules §13, §18), checked without a
cluster: the refusals of the API server and of OME's admission webhooks, the warnings kubectl
prints, and what OME accepts but rarely does what the author meant.

The cluster is the given objects (for a stored catalog: the catalog with the new objects laid
over it); every object checked is judged as ``kubectl apply`` would judge it against the others,
so a clash between two runtimes refuses each of them, naming the other as the one that exists.

Where OME's webhook code and rules §13 differ, the webhook code is followed here (rules §18):

* runtime entries are "the same format" only when neither sets ``modelFormat`` nor
  ``modelFramework``: the webhook compares those as Go structs holding pointers (``version``,
  and ``operator``, which the CRD defaults to ``Equal``), and two pointers of two objects are
  never equal. So the same-priority refusal can only fire between entries that set neither.
* a disabled runtime is admitted without any check, and enabled runtimes are compared only
  with enabled runtimes that share at least one ``protocolVersions`` value (none set: none
  shared).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from packaging.version import Version

from .budget import checked as each_checked
from .budget import checkpoint
from .catalog import (
    CatalogView,
    Document,
    ModelLookup,
    ObjectKey,
    Question,
    model_not_found,
    object_key,
    question_of,
)
from .constraints import DEPLOYMENT_MODES
from .documents import Entry, EntryRef, InferenceService, Model, RankRequest, Runtime, SizeRange
from .explicit import CLUSTER_SERVING_RUNTIME, KIND_AND_INHERITANCE_SINCE, SERVING_RUNTIME
from .inheritance import InheritanceError, resolve_chain
from .ranking import rank_runtimes
from .results import Ranking
from .sizes import is_plain_size, parse_size
from .versions import GREATER_THAN, GREATER_THAN_OR_EQUAL, KNOWN_OPERATORS, parse_version
from .warnings import format_parameters

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}
WEBHOOKS = {
    SERVING_RUNTIME: "servingruntime.ome-webhook-server.validator",
    CLUSTER_SERVING_RUNTIME: "clusterservingruntime.ome-webhook-server.validator",
    "InferenceService": "inferenceservice.ome-webhook-server.validator",
}
SCHEMA_CODES = frozenset({"PriorityBelowMinimum", "Invalid"})  # the CRD's schema refuses them
AUTO_SELECT_NOTE = (
    "no supportedModelFormats[] entry has autoSelect: true, so OME never auto-selects it"
)

# What makes two entries "the same format with the same priority" (``_entry_key``): the name
# casefolded, architecture, quantization and priority.
EntryKey = tuple[str, str | None, str | None, int]
# What two runtimes must share to clash (``_clash_keys``): kind, namespace, size range and an
# entry key.
ClashKey = tuple[str, str | None, SizeRange | None, str, str | None, str | None, int]
# (severity, kind, namespace, name, field, code, message): the order of the findings.
FindingOrder = tuple[int, str, bytes, bytes, bytes, str, bytes]


@dataclass(frozen=True, slots=True)
class Finding:
    severity: str
    kind: str
    namespace: str | None
    name: str
    field: str | None
    code: str
    message: str

    @property
    def webhook(self) -> str | None:
        """The admission webhook that refuses it; None for the API server's own refusals."""
        if self.severity != ERROR or self.code in SCHEMA_CODES:
            return None
        return WEBHOOKS.get(self.kind)


def finding_order(finding: Finding) -> FindingOrder:
    return (
        SEVERITY_ORDER[finding.severity],
        finding.kind,
        (finding.namespace or "").encode(),
        finding.name.encode(),
        (finding.field or "").encode(),
        finding.code,
        finding.message.encode(),
    )


# --- runtimes ---------------------------------------------------------------------------------


def _kind_word(runtime: Runtime) -> str:
    return "clusterservingruntime" if runtime.is_cluster else "servingruntime"


def different_priorities(runtime: Runtime) -> str | None:
    """Within one runtime, two ``autoSelect: true`` entries of the same name (exact) with two
    different priorities, both set (the first entry of a name records its priority)."""
    first: dict[str, int | None] = {}
    for entry in runtime.entries:
        if entry.auto_select is not True:
            continue
        if entry.name not in first:
            first[entry.name] = entry.priority
            continue
        recorded = first[entry.name]
        if recorded is not None and entry.priority is not None and recorded != entry.priority:
            return (
                f"different priorities assigned for the model format {entry.name} "
                f"under the {_kind_word(runtime)} {runtime.name}"
            )
    return None


def _entry_key(entry: Entry) -> EntryKey | None:
    """What makes two entries "the same format with the same priority" to the webhook, or None
    for an entry that can never clash: ``autoSelect: true``, a priority set, and neither
    ``modelFormat`` nor ``modelFramework`` (equal only when both are absent: see the module
    docstring)."""
    if entry.auto_select is not True or entry.priority is None:
        return None
    if entry.format is not None or entry.framework is not None:
        return None
    return (entry.name.casefold(), entry.architecture, entry.quantization, entry.priority)


def same_priority(new: Runtime, existing: Runtime) -> str | None:
    """The webhook's comparison of a runtime being applied with one that exists: the first
    entry of ``existing`` that has the same format and priority as an entry of ``new``, named
    by the first such entry of ``new``. Linear in the entries (indexed, not compared pairwise)."""
    if existing.is_disabled or existing.name == new.name:
        return None
    if set(existing.protocol_versions).isdisjoint(new.protocol_versions):
        return None
    if (new.size_range or None) != (existing.size_range or None):
        return None
    applied: dict[EntryKey, Entry] = {}
    for entry in new.entries:
        key = _entry_key(entry)
        if key is not None:
            applied.setdefault(key, entry)
    for old in existing.entries:
        key = _entry_key(old)
        clashing = None if key is None else applied.get(key)
        if clashing is None:
            continue
        text = f"same priority assigned for the model format {clashing.name}"
        if new.is_cluster:
            return f"{text} in the clusterservingruntimes {existing.name} and {new.name}"
        return (
            f"{text} in the servingruntimes {existing.name} and {new.name} "
            f"in namespace {new.namespace}"
        )
    return None


class _ParentFinder:
    """Runtimes by kind, namespace and name, built once: a chain's parents are found by name,
    a ServingRuntime's in its namespace first, then at cluster scope (rules §7)."""

    def __init__(self, runtimes: Iterable[Runtime]) -> None:
        self.by_key = {(r.kind, r.namespace, r.name): r for r in runtimes}

    def for_runtime(self, runtime: Runtime) -> Callable[[str], Runtime | None]:
        def find(name: str) -> Runtime | None:
            if not runtime.is_cluster:
                found = self.by_key.get((SERVING_RUNTIME, runtime.namespace, name))
                if found is not None:
                    return found
            return self.by_key.get((CLUSTER_SERVING_RUNTIME, None, name))

        return find


class Peers:
    """The runtimes a webhook compares an applied runtime with: those of its kind and
    namespace, in name order, indexed by the entries that can clash, so that a runtime is
    compared only with the runtimes that share such an entry. Protocol versions, the other
    thing two runtimes must share, are compared per pair of runtimes, once: memory stays
    linear in the input whatever the number of entries and protocol versions."""

    def __init__(self, runtimes: Iterable[Runtime]) -> None:
        self.by_entry: dict[ClashKey, list[Runtime]] = {}
        for runtime in sorted(runtimes, key=lambda r: r.name.encode()):
            checkpoint()
            if runtime.is_disabled or not runtime.protocol_versions:
                continue  # runtimes without protocol versions share none: they never clash
            for key in _clash_keys(runtime):
                self.by_entry.setdefault(key, []).append(runtime)

    def first_clash(self, runtime: Runtime) -> str | None:
        """The refusal naming the first runtime in name order that shares an entry key and a
        protocol version with ``runtime``, if any."""
        mine = frozenset(runtime.protocol_versions)
        first: Runtime | None = None
        shares: dict[int, bool] = {}  # id(other) -> whether it shares a protocol version
        for key in _clash_keys(runtime):
            for other in self.by_entry.get(key, ()):
                checkpoint()
                if first is not None and other.name.encode() >= first.name.encode():
                    break  # the rest of this list comes later in name order
                if other.name == runtime.name:
                    continue
                shared = shares.get(id(other))
                if shared is None:
                    shared = shares[id(other)] = not mine.isdisjoint(other.protocol_versions)
                if shared:
                    first = other
                    break
        return None if first is None else same_priority(runtime, first)


def _clash_keys(runtime: Runtime) -> set[ClashKey]:
    """What two runtimes must share to clash (rules §13 as OME's webhook compares them), but
    for a protocol version: scope, the size range, and an entry that can clash."""
    bounds = runtime.size_range or None
    keys: set[ClashKey] = set()
    for entry in runtime.entries:
        key = _entry_key(entry)
        if key is not None:
            keys.add((runtime.kind, runtime.namespace, bounds, *key))
    return keys


def runtime_refusal(
    runtime: Runtime,
    runtimes: list[Runtime],
    inheritance: bool = True,
    peers: Peers | None = None,
    finder: _ParentFinder | None = None,
) -> tuple[str, str | None, str] | None:
    """(code, field, OME's text) of the webhook's refusal of ``runtime``, or None; chains are
    checked from OME 1.3 on (``inheritance``)."""
    if inheritance and runtime.inherit_from:
        finder = finder or _ParentFinder(runtimes)
        chain = resolve_chain(runtime, finder.for_runtime(runtime))
        if isinstance(chain, InheritanceError):
            return "InheritanceError", "metadata.annotations[ome.io/inherit-from]", chain.message
    if runtime.is_disabled:
        return None
    text = different_priorities(runtime)
    if text is not None:
        return "DifferentPriorities", "spec.supportedModelFormats", text
    text = (peers or Peers(runtimes)).first_clash(runtime)
    if text is not None:
        return "SamePriority", "spec.supportedModelFormats", text
    return None


def _version_notes(runtime: Runtime, index: int, what: str, ref: EntryRef) -> list[Finding]:
    field = f"spec.supportedModelFormats[{index}].{what}"
    found = []
    operator = ref.operator
    if operator is not None and operator not in KNOWN_OPERATORS:
        found.append(
            _runtime_info(
                runtime,
                f"{field}.operator",
                "UnknownOperator",
                f'operator "{operator}" is not Equal, GreaterThan or GreaterThanOrEqual: OME '
                "matches the versions as Equal",
            )
        )
    if ref.version is None:
        return found
    if parse_version(ref.version) is None:
        found.append(
            _runtime_info(
                runtime,
                f"{field}.version",
                "UnparsableVersion",
                f'version "{ref.version}" does not parse as OME reads versions: this entry '
                f"never matches a model that sets a {what} version",
            )
        )
    elif operator in (GREATER_THAN, GREATER_THAN_OR_EQUAL):
        bound = "below" if operator == GREATER_THAN else "at most"
        found.append(
            _runtime_info(
                runtime,
                f"{field}.operator",
                "RuntimeVersionOnTheLeft",
                f"{operator} compares this entry's version {ref.version} with the model's, the "
                f"entry's on the left: it accepts models whose {what} version is {bound} "
                f"{ref.version} (with the same precision and prefix), not from it",
            )
        )
    return found


def _runtime_info(runtime: Runtime, field: str | None, code: str, message: str) -> Finding:
    return Finding(INFO, runtime.kind, runtime.namespace, runtime.name, field, code, message)


def _size_note(kind: str, namespace: str | None, name: str, field: str, raw: str) -> Finding | None:
    value = parse_size(raw)
    if is_plain_size(raw) and value != 0:
        return None
    return Finding(
        INFO,
        kind,
        namespace,
        name,
        field,
        "UnusualSize",
        f'"{raw}" is read by OME as {format_parameters(value)} parameters',
    )


def runtime_notes(runtime: Runtime) -> list[Finding]:
    """rules §13's warnings and §18's infos about one runtime."""
    found: list[Finding] = []
    bounds = runtime.size_range
    if bounds is not None:
        for field, raw in (("min", bounds.min), ("max", bounds.max)):
            if raw is not None:
                note = _size_note(
                    runtime.kind,
                    runtime.namespace,
                    runtime.name,
                    f"spec.modelSizeRange.{field}",
                    raw,
                )
                if note is not None:
                    found.append(note)
        if bounds.min is not None and bounds.max is not None:
            low, high = parse_size(bounds.min), parse_size(bounds.max)
            if low > high:
                found.append(
                    _runtime_info(
                        runtime,
                        "spec.modelSizeRange",
                        "EmptySizeRange",
                        f"min {bounds.min} is above max {bounds.max}: no model size fits",
                    )
                )
    for field, value in (
        ("spec.engineConfig.annotations[ome.io/deploymentMode]", runtime.engine_mode_annotation),
        ("spec.decoderConfig.annotations[ome.io/deploymentMode]", runtime.decoder_mode_annotation),
    ):
        if value is not None and value not in DEPLOYMENT_MODES:
            found.append(
                _runtime_info(
                    runtime,
                    field,
                    "UnknownDeploymentMode",
                    f'"{value}" is not a deployment mode OME knows: the annotation is ignored',
                )
            )
    for index, entry in enumerate(runtime.entries):
        for what, ref in (("modelFormat", entry.format), ("modelFramework", entry.framework)):
            if ref is not None:
                found.extend(_version_notes(runtime, index, what, ref))
    if runtime.is_disabled:
        return found
    if not any(entry.auto_select is True for entry in runtime.entries):
        found.append(
            _runtime_info(runtime, "spec.supportedModelFormats", "NoAutoSelect", AUTO_SELECT_NOTE)
        )
    elif runtime.inherit_from:
        found.append(
            _runtime_info(
                runtime,
                "metadata.annotations[ome.io/inherit-from]",
                "InheritedNotAutoSelected",
                f"inherits from {runtime.inherit_from} and sets autoSelect: true, but automatic "
                "selection reads only this runtime's own spec, not what it inherits",
            )
        )
    return found


# --- models and InferenceServices -------------------------------------------------------------


def model_notes(model: Model, sized_runtimes: bool) -> list[Finding]:
    """``sized_runtimes``: some runtime of the cluster sets a ``modelSizeRange``."""
    found = []
    if model.parameter_size is not None:
        note = _size_note(
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


def _isvc_finding(
    isvc: InferenceService, severity: str, code: str, field: str | None, message: str
) -> Finding:
    return Finding(severity, "InferenceService", isvc.namespace, isvc.name, field, code, message)


@dataclass(frozen=True, slots=True)
class SharedAnswers:
    """What InferenceServices that ask the same question share (``isvc_findings``): the
    ranking, and the text of the refusal when selection finds no runtime."""

    rankings: dict[Question, Ranking] = field(default_factory=dict)
    refusals: dict[Question, str] = field(default_factory=dict)


def isvc_findings(
    isvc: InferenceService,
    full_runner: bool,
    models: ModelLookup,
    runtimes: tuple[Runtime, ...],
    ome_version: str,
    model_cache_provider: str | None,
    answers: SharedAnswers | None = None,
) -> list[Finding]:
    """OME's InferenceService webhook: only an InferenceService with an ``engine`` is resolved.
    ``answers`` keeps, per question, the ranking and the refusal's text, so that
    InferenceServices that ask the same question share them (the text can hold every runtime's
    reason: one copy per question, not one per InferenceService)."""
    asked = _asked(isvc, full_runner, models)
    if asked is None or isinstance(asked, Finding):
        return [] if asked is None else [asked]
    model, question = asked
    answers = SharedAnswers() if answers is None else answers
    ranking = answers.rankings.get(question)
    if ranking is None:
        ranking = answers.rankings[question] = rank_runtimes(
            RankRequest(
                model,
                runtimes,
                isvc,
                ome_version=ome_version,
                model_cache_provider=model_cache_provider,
            )
        )
    name = isvc.model_name
    error = ranking.error
    if isvc.runtime_name:
        if error is not None:
            message = error.message
            if error.code != "RuntimeIncompatible":
                message = f"runtime {isvc.runtime_name} does not support model {name}: {message}"
            return [_isvc_finding(isvc, ERROR, error.code, "spec.runtime.name", message)]
        advisory = [text for text in ranking.warnings if text.startswith("runtime ")]
        return [
            _isvc_finding(isvc, WARNING, "ExplicitRuntimeAdvisory", "spec.runtime.name", text)
            for text in advisory[:1]
        ]
    if error is not None or ranking.selected is None:
        code = error.code if error is not None else "NoRuntimeFound"
        refusal = answers.refusals.get(question)
        if refusal is None:
            reason = error.message if error is not None else ranking.message
            refusal = answers.refusals[question] = (
                f"no supporting runtime found for model {name} and engine does not have "
                f"complete runner configuration: {reason}"
            )
        return [_isvc_finding(isvc, ERROR, code, "spec.model.name", refusal)]
    message = f"Runtime {ranking.selected.name} will be auto-selected for model {name}"
    return [_isvc_finding(isvc, WARNING, "AutoSelected", None, message)]


def _asked(
    isvc: InferenceService, full_runner: bool, models: ModelLookup
) -> tuple[Model, Question] | Finding | None:
    """What the webhook asks of selection for this InferenceService: its model and question;
    else its refusal before any ranking, or None when it asks nothing."""
    if not isvc.has_engine:
        return None
    if not isvc.model_name:
        if isvc.runtime_name is None and not full_runner:
            return _isvc_finding(
                isvc,
                ERROR,
                "ModelRequired",
                "spec.model",
                "model reference is required when runtime is not specified and engine "
                "does not have complete runner configuration",
            )
        return None
    if not isvc.runtime_name and full_runner:
        return None
    name = isvc.model_name
    model = models.find(name, isvc.namespace, isvc.model_kind)
    if model is None:
        message = f"failed to resolve model {name}: {model_not_found(name)}"
        return _isvc_finding(isvc, ERROR, "ModelNotFound", "spec.model.name", message)
    if model.disabled:
        message = f"model {name} is disabled"
        return _isvc_finding(isvc, ERROR, "ModelDisabled", "spec.model.name", message)
    return model, question_of(model, isvc)


def planned_admission_rankings(
    view: CatalogView,
    *,
    checked: frozenset[ObjectKey] | None = None,
    full_runners: frozenset[tuple[str | None, str]] = frozenset(),
) -> int:
    """How many rankings ``admit`` will compute for these InferenceServices: one per distinct
    question, so that work over a bound can be refused before it starts."""
    lookup = ModelLookup(view.models)
    questions = set()
    for isvc in each_checked(view.services):
        if checked is not None and object_key(isvc) not in checked:
            continue
        asked = _asked(isvc, (isvc.namespace, isvc.name) in full_runners, lookup)
        if isinstance(asked, tuple):
            questions.add(asked[1])
    return len(questions)


# --- the whole answer -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Admission:
    findings: tuple[Finding, ...]

    @property
    def admitted(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys((ERROR, WARNING, INFO), 0)
        for finding in self.findings:
            counts[finding.severity] += 1
        return counts


def admit(
    view: CatalogView,
    *,
    invalid: Iterable[Finding] = (),
    checked: frozenset[ObjectKey] | None = None,
    full_runners: frozenset[tuple[str | None, str]] = frozenset(),
) -> Admission:
    """Findings for every object of ``checked`` (kind, namespace, name) — all when None —
    against the cluster ``view``. ``invalid`` are the API server's refusals of the objects its
    schema refuses: they are not part of the cluster."""
    findings = list(invalid)
    runtimes, models, services = view.runtimes, view.models, view.services

    def wanted(document: Document) -> bool:
        return checked is None or object_key(document) in checked

    runtime_list = list(runtimes)
    modern = Version(view.ome_version) >= KIND_AND_INHERITANCE_SINCE
    peers = Peers(runtime_list)
    finder = _ParentFinder(runtime_list)
    for runtime in each_checked(runtime_list, every=8):
        if not wanted(runtime):
            continue
        refusal = runtime_refusal(runtime, runtime_list, modern, peers, finder)
        if refusal is not None:
            code, field, text = refusal
            findings.append(
                Finding(ERROR, runtime.kind, runtime.namespace, runtime.name, field, code, text)
            )
        findings.extend(runtime_notes(runtime))
    sized = any(runtime.size_range is not None for runtime in runtime_list)
    for model in each_checked(models):
        if wanted(model):
            findings.extend(model_notes(model, sized))
    answers = SharedAnswers()
    lookup = ModelLookup(models)
    for isvc in each_checked(services):
        if wanted(isvc):
            findings.extend(
                isvc_findings(
                    isvc,
                    (isvc.namespace, isvc.name) in full_runners,
                    lookup,
                    runtimes,
                    view.ome_version,
                    view.model_cache_provider,
                    answers,
                )
            )
    return Admission(tuple(sorted(findings, key=finding_order)))


__all__ = [
    "ERROR",
    "INFO",
    "WARNING",
    "Admission",
    "Finding",
    "admit",
    "different_priorities",
    "planned_admission_rankings",
    "same_priority",
]
