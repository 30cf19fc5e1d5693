"""What ``kubectl apply`` would answer for a set of OME objects (SPEC §13, §18), checked without a
cluster: the refusals of the API server and of OME's admission webhooks, the warnings kubectl
prints, and what OME accepts but rarely does what the author meant.

The cluster is the given objects (for a stored catalog: the catalog with the new objects laid
over it); every object checked is judged as ``kubectl apply`` would judge it against the others,
so a clash between two runtimes refuses each of them, naming the other as the one that exists.

Where OME's webhook code and SPEC §13 differ, the webhook code is followed here (SPEC §18):

* runtime entries are "the same format" only when neither sets ``modelFormat`` nor
  ``modelFramework``: the webhook compares those as Go structs holding pointers (``version``,
  and ``operator``, which the CRD defaults to ``Equal``), and two pointers of two objects are
  never equal. So the same-priority refusal can only fire between entries that set neither.
* a disabled runtime is admitted without any check, and enabled runtimes are compared only
  with enabled runtimes that share at least one ``protocolVersions`` value (none set: none
  shared).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from packaging.version import Version

from .catalog import ModelLookup, model_not_found, question_of
from .constraints import DEPLOYMENT_MODES
from .documents import Entry, EntryRef, InferenceService, Model, RankRequest, Runtime
from .explicit import CLUSTER_SERVING_RUNTIME, KIND_AND_INHERITANCE_SINCE, SERVING_RUNTIME
from .inheritance import InheritanceError, resolve_chain
from .ranking import rank_runtimes
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


def finding_order(finding: Finding) -> tuple:
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


def _same_format(a: Entry, b: Entry) -> bool:
    # modelFormat / modelFramework: equal only when both are absent (see the module docstring).
    return (
        a.name.casefold() == b.name.casefold()
        and a.format is None
        and b.format is None
        and a.framework is None
        and b.framework is None
        and a.architecture == b.architecture
        and a.quantization == b.quantization
    )


def same_priority(new: Runtime, existing: Runtime) -> str | None:
    """The webhook's comparison of a runtime being applied with one that exists."""
    if existing.is_disabled or existing.name == new.name:
        return None
    if not set(existing.protocol_versions) & set(new.protocol_versions):
        return None
    if (new.size_range or None) != (existing.size_range or None):
        return None
    for old in existing.entries:
        for entry in new.entries:
            if old.auto_select is not True or entry.auto_select is not True:
                continue
            if not _same_format(old, entry):
                continue
            if old.priority is not None and old.priority == entry.priority:
                text = f"same priority assigned for the model format {entry.name}"
                if new.is_cluster:
                    return f"{text} in the clusterservingruntimes {existing.name} and {new.name}"
                return (
                    f"{text} in the servingruntimes {existing.name} and {new.name} "
                    f"in namespace {new.namespace}"
                )
    return None


class _ParentFinder:
    """Runtimes by kind, namespace and name, built once: a chain's parents are found by name,
    a ServingRuntime's in its namespace first, then at cluster scope (SPEC §7)."""

    def __init__(self, runtimes: Iterable[Runtime]) -> None:
        self.by_key = {(r.kind, r.namespace, r.name): r for r in runtimes}

    def for_runtime(self, runtime: Runtime):
        def find(name: str) -> Runtime | None:
            if not runtime.is_cluster:
                found = self.by_key.get((SERVING_RUNTIME, runtime.namespace, name))
                if found is not None:
                    return found
            return self.by_key.get((CLUSTER_SERVING_RUNTIME, None, name))

        return find


class Peers:
    """The runtimes a webhook compares an applied runtime with: those of its kind and
    namespace, in name order, indexed by the entries that can clash (``autoSelect: true``, a
    priority set, neither ``modelFormat`` nor ``modelFramework``), so that a runtime is compared
    only with the runtimes that share such an entry: linear in the runtimes."""

    def __init__(self, runtimes: Iterable[Runtime]) -> None:
        self.by_entry: dict[tuple, list[Runtime]] = {}
        for runtime in sorted(runtimes, key=lambda r: r.name.encode()):
            if runtime.is_disabled:
                continue
            for key in _clash_keys(runtime):
                self.by_entry.setdefault(key, []).append(runtime)

    def first_clash(self, runtime: Runtime) -> str | None:
        candidates: dict[str, Runtime] = {}
        for key in _clash_keys(runtime):
            for other in self.by_entry.get(key, ()):
                # Everything a clash needs is in the key: the first other one is the first
                # clash of this list (the rest come later in name order).
                if other.name != runtime.name:
                    candidates.setdefault(other.name, other)
                    break
        if not candidates:
            return None
        first = min(candidates.values(), key=lambda r: r.name.encode())
        return same_priority(runtime, first)


def _clash_keys(runtime: Runtime) -> set[tuple]:
    """What two runtimes must share to clash (SPEC §13 as OME's webhook compares them): scope,
    a protocol version, the size range, and an entry that can clash."""
    keys = set()
    bounds = runtime.size_range or None
    for entry in runtime.entries:
        if entry.auto_select is not True or entry.priority is None:
            continue
        if entry.format is not None or entry.framework is not None:
            continue
        for protocol in runtime.protocol_versions:
            keys.add(
                (
                    runtime.kind,
                    runtime.namespace,
                    protocol,
                    bounds,
                    entry.name.casefold(),
                    entry.architecture,
                    entry.quantization,
                    entry.priority,
                )
            )
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


def _size_note(kind: str, namespace, name: str, field: str, raw: str) -> Finding | None:
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
    """SPEC §13's warnings and §18's infos about one runtime."""
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


def model_notes(model: Model, runtimes: Iterable[Runtime]) -> list[Finding]:
    found = []
    if model.parameter_size is not None:
        note = _size_note(
            model.kind, model.namespace, model.name, "spec.modelParameterSize", model.parameter_size
        )
        if note is not None:
            found.append(note)
    elif model.is_ready and any(r.size_range is not None for r in runtimes):
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


def _isvc_finding(isvc: InferenceService, severity: str, code: str, field, message) -> Finding:
    return Finding(severity, "InferenceService", isvc.namespace, isvc.name, field, code, message)


def isvc_findings(
    isvc: InferenceService,
    full_runner: bool,
    models: ModelLookup,
    runtimes: tuple[Runtime, ...],
    ome_version: str,
    model_cache_provider: str | None,
    rankings: dict | None = None,
) -> list[Finding]:
    """OME's InferenceService webhook: only an InferenceService with an ``engine`` is resolved."""
    if not isvc.has_engine:
        return []
    explicit = bool(isvc.runtime_name)
    if not isvc.model_name:
        if isvc.runtime_name is None and not full_runner:
            return [
                _isvc_finding(
                    isvc,
                    ERROR,
                    "ModelRequired",
                    "spec.model",
                    "model reference is required when runtime is not specified and engine "
                    "does not have complete runner configuration",
                )
            ]
        return []
    if not explicit and full_runner:
        return []
    name = isvc.model_name
    model = models.find(name, isvc.namespace, isvc.model_kind)
    if model is None:
        message = f"failed to resolve model {name}: {model_not_found(name)}"
        return [_isvc_finding(isvc, ERROR, "ModelNotFound", "spec.model.name", message)]
    if model.disabled:
        message = f"model {name} is disabled"
        return [_isvc_finding(isvc, ERROR, "ModelDisabled", "spec.model.name", message)]
    # InferenceServices that ask the same question share one ranking (as selections do).
    question = question_of(model, isvc)
    ranking = None if rankings is None else rankings.get(question)
    if ranking is None:
        ranking = rank_runtimes(
            RankRequest(
                model,
                runtimes,
                isvc,
                ome_version=ome_version,
                model_cache_provider=model_cache_provider,
            )
        )
        if rankings is not None:
            rankings[question] = ranking
    error = ranking.error
    if explicit:
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
        reason = error.message if error is not None else ranking.message
        code = error.code if error is not None else "NoRuntimeFound"
        message = (
            f"no supporting runtime found for model {name} and engine does not have complete "
            f"runner configuration: {reason}"
        )
        return [_isvc_finding(isvc, ERROR, code, "spec.model.name", message)]
    message = f"Runtime {ranking.selected.name} will be auto-selected for model {name}"
    return [_isvc_finding(isvc, WARNING, "AutoSelected", None, message)]


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


def object_key(document) -> tuple[str, str, str]:
    """(kind, namespace or "", name): the key a catalog stores an object under."""
    kind = getattr(document, "kind", "InferenceService")
    return (kind, document.namespace or "", document.name)


def admit(
    runtimes: tuple[Runtime, ...],
    models: tuple[Model, ...],
    services: tuple[InferenceService, ...],
    *,
    invalid: Iterable[Finding] = (),
    checked: frozenset[tuple] | None = None,
    full_runners: frozenset[tuple[str | None, str]] = frozenset(),
    ome_version: str = "1.3",
    model_cache_provider: str | None = None,
) -> Admission:
    """Findings for every object of ``checked`` (kind, namespace, name) — all when None —
    against the cluster made of ``runtimes``, ``models`` and ``services``. ``invalid`` are the
    API server's refusals of the objects its schema refuses: they are not part of the cluster."""
    findings = list(invalid)

    def wanted(document) -> bool:
        return checked is None or object_key(document) in checked

    runtime_list = list(runtimes)
    modern = Version(ome_version) >= KIND_AND_INHERITANCE_SINCE
    peers = Peers(runtime_list)
    finder = _ParentFinder(runtime_list)
    for runtime in runtime_list:
        if not wanted(runtime):
            continue
        refusal = runtime_refusal(runtime, runtime_list, modern, peers, finder)
        if refusal is not None:
            code, field, text = refusal
            findings.append(
                Finding(ERROR, runtime.kind, runtime.namespace, runtime.name, field, code, text)
            )
        findings.extend(runtime_notes(runtime))
    for model in models:
        if wanted(model):
            findings.extend(model_notes(model, runtimes))
    rankings: dict = {}
    lookup = ModelLookup(models)
    for isvc in services:
        if wanted(isvc):
            findings.extend(
                isvc_findings(
                    isvc,
                    (isvc.namespace, isvc.name) in full_runners,
                    lookup,
                    runtimes,
                    ome_version,
                    model_cache_provider,
                    rankings,
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
    "object_key",
    "same_priority",
]
