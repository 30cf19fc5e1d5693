"""OME's ServingRuntime and ClusterServingRuntime webhooks (rules §13, §18, §20.7), and what
OME accepts of a runtime but rarely does what the author meant.

Where OME's webhook code and rules §13 differ, the webhook code is followed (rules §18):

* two entries are "the same format" as the webhook's ``areSupportedModelFormatsEqual`` reads
  them: entry ``name`` case-insensitively, and entry ``version``, ``quantization`` and
  ``modelArchitecture`` by value; ``modelFormat`` and ``modelFramework`` are compared as Go
  structs that hold pointers (``version``, and ``operator``, which the CRD defaults to
  ``Equal``), and two pointers of two objects are never equal, so entries that set either are
  never the same format.
* a disabled runtime is admitted without any further check, and enabled runtimes are compared
  only with enabled runtimes that share at least one ``protocolVersions`` value (none set:
  none shared).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..ranking import (
    CLUSTER_SERVING_RUNTIME,
    DEPLOYMENT_MODES,
    SERVING_RUNTIME,
    InheritanceError,
    has_autoselect,
    resolve_chain,
)
from ..values import (
    GREATER_THAN,
    GREATER_THAN_OR_EQUAL,
    KNOWN_OPERATORS,
    Entry,
    EntryRef,
    Runtime,
    SizeRange,
    checkpoint,
    format_parameters,
    get,
    go_list,
    go_quote,
    is_plain_size,
    parse_size,
    parse_version,
)
from .findings import INFO, Finding, Refusal
from .service_rules import autoscaler_block, scaling_policy

AUTO_SELECT_NOTE = (
    "no supportedModelFormats[] entry has autoSelect: true, so OME never auto-selects it"
)
RUNTIME_PROFILE_ANNOTATION = "ome.io/runtime-profile"
CONFIGS = ("engineConfig", "decoderConfig", "routerConfig")

# What makes two entries "the same format with the same priority" (``_entry_key``): the name
# casefolded, version, architecture, quantization and priority.
EntryKey = tuple[str, str | None, str | None, str | None, int]
# What two runtimes must share to clash (``_clash_keys``): kind, namespace, size range and an
# entry key.
ClashKey = tuple[str, str | None, SizeRange | None, str, str | None, str | None, str | None, int]


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
    return (
        entry.name.casefold(),
        entry.version,
        entry.architecture,
        entry.quantization,
        entry.priority,
    )


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


class ParentFinder:
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
    compared only with the runtimes that share such an entry and a protocol version.

    A runtime with few clash keys and protocol versions (at most ``PAIRS`` of both) is indexed
    by each pair of them, keeping the first two runtimes in name order: finding its clash is
    then a few lookups, however many runtimes share an entry but no protocol version. A runtime
    with more is indexed by entry only and compared per pair of runtimes, once, so that memory
    stays linear in the input whatever the number of entries and protocol versions."""

    PAIRS = 64

    def __init__(self, runtimes: Iterable[Runtime]) -> None:
        self.by_entry: dict[ClashKey, list[Runtime]] = {}  # every runtime that can clash
        self.wide: dict[ClashKey, list[Runtime]] = {}  # the runtimes not indexed by pair
        self.by_pair: dict[tuple[ClashKey, str], list[Runtime]] = {}
        for runtime in sorted(runtimes, key=lambda r: r.name.encode()):
            checkpoint()
            if runtime.is_disabled or not runtime.protocol_versions:
                continue  # runtimes without protocol versions share none: they never clash
            keys = _clash_keys(runtime)
            protocols = set(runtime.protocol_versions)
            narrow = len(keys) * len(protocols) <= self.PAIRS
            for key in keys:
                self.by_entry.setdefault(key, []).append(runtime)
                if not narrow:
                    self.wide.setdefault(key, []).append(runtime)
                    continue
                for protocol in protocols:
                    firsts = self.by_pair.setdefault((key, protocol), [])
                    if len(firsts) < 2:
                        firsts.append(runtime)

    def first_clash(self, runtime: Runtime) -> str | None:
        """The refusal naming the first runtime in name order that shares an entry key and a
        protocol version with ``runtime``, if any."""
        keys = _clash_keys(runtime)
        protocols = set(runtime.protocol_versions)
        if len(keys) * len(protocols) > self.PAIRS:
            first = self._scan(runtime, keys, self.by_entry, None)
        else:
            first = None
            for key in keys:
                for protocol in protocols:
                    for other in self.by_pair.get((key, protocol), ()):
                        if other.name != runtime.name:
                            if first is None or other.name.encode() < first.name.encode():
                                first = other
                            break
            first = self._scan(runtime, keys, self.wide, first)
        return None if first is None else same_priority(runtime, first)

    @staticmethod
    def _scan(
        runtime: Runtime,
        keys: set[ClashKey],
        lists: dict[ClashKey, list[Runtime]],
        first: Runtime | None,
    ) -> Runtime | None:
        """The first runtime of ``lists`` in name order, before ``first``, that shares a key
        and a protocol version with ``runtime``."""
        mine = frozenset(runtime.protocol_versions)
        shares: dict[int, bool] = {}  # id(other) -> whether it shares a protocol version
        for key in keys:
            for other in lists.get(key, ()):
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
        return first


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


def annotation(manifest: Mapping[str, Any] | None, key: str) -> Any:
    """An annotation of a raw manifest as written (None when absent or not a map)."""
    return get(manifest, "metadata", "annotations", key)


def runtime_refusals(
    runtime: Runtime,
    runtimes: list[Runtime],
    modern: bool = True,
    peers: Peers | None = None,
    finder: ParentFinder | None = None,
    manifest: Mapping[str, Any] | None = None,
    classes: frozenset[str] | None = None,
) -> list[Refusal]:
    """The webhook's refusals of ``runtime``, in the order its code checks them (rules §20.7):
    it stops at the first, and each later one is what the next apply would meet once the
    earlier are fixed. The runtime-profile marker and chains are checked from OME 1.3 on
    (``modern``); a disabled runtime is admitted once those pass. ``manifest``: the runtime as
    applied, for what its document does not keep. ``classes``: the names of the cluster's
    AcceleratorClasses, None when they are not known (rules §20.8)."""
    found: list[Refusal] = []
    marked = annotation(manifest, RUNTIME_PROFILE_ANNOTATION) == "true"
    if modern and marked and not runtime.is_disabled:
        found.append(
            (
                "RuntimeProfileNotDisabled",
                "spec.disabled",
                'runtimes carrying ome.io/runtime-profile="true" must also set spec.disabled: true',
            )
        )
    if modern and runtime.inherit_from:
        finder = finder or ParentFinder(runtimes)
        chain = resolve_chain(runtime, finder.for_runtime(runtime))
        if isinstance(chain, InheritanceError):
            field = "metadata.annotations[ome.io/inherit-from]"
            found.append(("InheritanceError", field, chain.message))
    spec = get(manifest, "spec")
    if modern and manifest is not None:
        found.extend(_newer_refusals(spec))
    if runtime.is_disabled:
        return found
    if modern and manifest is not None:
        for config in CONFIGS:
            block = get(spec, config)
            text = autoscaler_block(get(block, "autoscaler"), get(block, "minReplicas"))
            if text is not None:
                found.append(
                    ("InvalidAutoscaler", f"spec.{config}.autoscaler", f"{config}: {text}")
                )
                break
    if classes is not None and runtime.accelerator_classes:
        missing = [name for name in runtime.accelerator_classes if name not in classes]
        if missing:
            found.append(
                (
                    "UnknownAcceleratorClass",
                    "spec.acceleratorRequirements.acceleratorClasses",
                    "unknown accelerator classes referenced in AcceleratorRequirements: "
                    + go_list(missing),
                )
            )
    text = different_priorities(runtime)
    if text is not None:
        found.append(("DifferentPriorities", "spec.supportedModelFormats", text))
    text = (peers or Peers(runtimes)).first_clash(runtime)
    if text is not None:
        found.append(("SamePriority", "spec.supportedModelFormats", text))
    return found


def _newer_refusals(spec: Any) -> list[Refusal]:
    """What OME's newest webhook checks before it admits a disabled runtime: policy refs,
    which attach to InferenceServices only, and the scaling policy."""
    found: list[Refusal] = []
    for config in CONFIGS:
        if get(spec, config, "autoscalerPolicyRef") is not None:
            found.append(
                (
                    "AutoscalerPolicyRefNotSupported",
                    f"spec.{config}.autoscalerPolicyRef",
                    f"{config}: autoscalerPolicyRef is not supported on serving runtimes; policy "
                    "refs attach on the InferenceService only",
                )
            )
            break
    text = scaling_policy(get(spec, "scalingPolicy", "mode"))
    if text is not None:
        found.append(("ScalingModeNotImplemented", "spec.scalingPolicy.mode", text))
    return found


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


def size_note(kind: str, namespace: str | None, name: str, field: str, raw: str) -> Finding | None:
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


def runtime_notes(
    runtime: Runtime, modern: bool = True, manifest: Mapping[str, Any] | None = None
) -> list[Finding]:
    """rules §13's warnings and §18's and §20.7's infos about one runtime."""
    found: list[Finding] = []
    marker = annotation(manifest, RUNTIME_PROFILE_ANNOTATION)
    if modern and isinstance(marker, str) and marker != "true":
        found.append(
            _runtime_info(
                runtime,
                f"metadata.annotations[{RUNTIME_PROFILE_ANNOTATION}]",
                "ProfileMarkerNotTrue",
                f"{RUNTIME_PROFILE_ANNOTATION} is {go_quote(marker)}; OME's webhook acts only "
                'on "true"',
            )
        )
    bounds = runtime.size_range
    if bounds is not None:
        for field, raw in (("min", bounds.min), ("max", bounds.max)):
            if raw is not None:
                note = size_note(
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
    if not has_autoselect(runtime.entries):
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
