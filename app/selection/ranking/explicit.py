"""An InferenceService that names its runtime (rules §7): lookup by ``spec.runtime.kind``,
inheritance, ``disabled``, and OME's warning or refusal when the runtime does not declare
support for the model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from packaging.version import Version

from ..values import InferenceService, Runtime, go_quote
from .checks import CHECK_FORMAT, CHECK_SIZE, RuntimeChecks
from .entries import model_format
from .inheritance import InheritanceError, effective_runtime, resolve_chain
from .ranked import Selection
from .selection_errors import SelectionError, SelectionErrorCode

NOTE_EXPLICIT = "spec.runtime is explicit; automatic selection below is hypothetical."
SERVING_RUNTIME = "ServingRuntime"
CLUSTER_SERVING_RUNTIME = "ClusterServingRuntime"
# rules §14: from this OME version spec.runtime.kind decides the lookup, and chains resolve.
KIND_AND_INHERITANCE_SINCE = Version("1.3")
# rules §7: the error OME wraps a failed check in names the model's format only for these.
_CHECKS_NAMING_THE_FORMAT = frozenset({CHECK_FORMAT, CHECK_SIZE})


@dataclass(frozen=True, slots=True)
class ExplicitChoice:
    selected: Selection | None
    message: str
    warnings: tuple[str, ...] = ()
    error: SelectionError | None = None


def _refusal(code: SelectionErrorCode, message: str) -> ExplicitChoice:
    return ExplicitChoice(None, message, (), SelectionError(code, message))


def lookup_order(kind: str | None, modern: bool) -> tuple[str, ...]:
    """rules §7 step 1: the kinds to look the name up in, in order. Absent is the CRD default,
    ``ClusterServingRuntime``; any other value (``""`` included) looks namespace scope first;
    before 1.3 ``kind`` is ignored."""
    if not modern:
        return SERVING_RUNTIME, CLUSTER_SERVING_RUNTIME
    if kind is None or kind == CLUSTER_SERVING_RUNTIME:
        return CLUSTER_SERVING_RUNTIME, SERVING_RUNTIME
    if kind == SERVING_RUNTIME:
        return (SERVING_RUNTIME,)
    return SERVING_RUNTIME, CLUSTER_SERVING_RUNTIME


def _find(candidates: list[Runtime], kind: str, name: str) -> Runtime | None:
    return next((r for r in candidates if r.kind == kind and r.name == name), None)


def find_named_runtime(
    candidates: list[Runtime], name: str, kind: str | None, modern: bool
) -> Runtime | None:
    """rules §7 step 1: the runtime ``spec.runtime`` names, looked up by its kind."""
    for wanted in lookup_order(kind, modern):
        found = _find(candidates, wanted, name)
        if found is not None:
            return found
    return None


def named_chain(
    found: Runtime, candidates: list[Runtime], modern: bool
) -> list[Runtime] | InheritanceError:
    """rules §7 step 2: the named runtime's chain, child first (the runtime alone before 1.3)."""
    if not modern:
        return [found]
    # A ServingRuntime's parents: its namespace first, then cluster scope; a
    # ClusterServingRuntime's: cluster scope only. The rule of the start holds for the chain.
    parent_kinds = (
        (CLUSTER_SERVING_RUNTIME,)
        if found.is_cluster
        else (SERVING_RUNTIME, CLUSTER_SERVING_RUNTIME)
    )

    def find_parent(parent_name: str) -> Runtime | None:
        for kind in parent_kinds:
            parent = _find(candidates, kind, parent_name)
            if parent is not None:
                return parent
        return None

    return resolve_chain(found, find_parent)


def explicit_choice(
    checks: RuntimeChecks,
    isvc: InferenceService,
    namespace: str,
    candidates: list[Runtime],
    ome_version: str,
) -> ExplicitChoice:
    """rules §7 for ``isvc.spec.runtime.name``; ``candidates`` are the target namespace's
    ServingRuntimes and every ClusterServingRuntime, one of each kind and name."""
    # cast: called only for an InferenceService that names its runtime (``rank_runtimes``
    # checks ``runtime_name is not None`` first); the type InferenceService does not carry it.
    name = cast(str, isvc.runtime_name)
    model = checks.model
    modern = Version(ome_version) >= KIND_AND_INHERITANCE_SINCE
    found = find_named_runtime(candidates, name, isvc.runtime_kind, modern)
    if found is None:
        if lookup_order(isvc.runtime_kind, modern) == (SERVING_RUNTIME,):
            message = f"ServingRuntime {name} not found in namespace {namespace}"
        else:
            message = f"runtime {name} not found in namespace {namespace} or at cluster scope"
        return _refusal(SelectionErrorCode.RUNTIME_NOT_FOUND, message)

    chain = named_chain(found, candidates, modern)
    if isinstance(chain, InheritanceError):
        return _refusal(SelectionErrorCode.RUNTIME_INHERITANCE_ERROR, chain.message)
    effective = effective_runtime(chain)

    if effective.is_disabled:
        scope = "cluster-scoped" if found.is_cluster else "namespace-scoped"
        return _refusal(SelectionErrorCode.RUNTIME_DISABLED, f"{scope} runtime {name} is disabled")

    warnings: tuple[str, ...] = ()
    support = checks.support(effective)
    if support.reason is not None:
        named = model_format(model).name if support.check in _CHECKS_NAMING_THE_FORMAT else ""
        error = f"runtime {name} does not support model {named}: {support.reason}"
        if model.is_sharded:
            # OME's webhook refuses a sharded model on a runtime that cannot load it.
            return _refusal(
                SelectionErrorCode.RUNTIME_INCOMPATIBLE,
                f"runtime {name} does not support model {model.name}: {error}",
            )
        warnings = (
            f"runtime {go_quote(name)} does not declare support for model "
            f"{go_quote(model.name)} ({error}); "
            "proceeding because the runtime was named explicitly",
        )
    selection = Selection(found.name, found.scope, checks.score(effective), True)
    message = f"Runtime {name} is named explicitly for model {model.name}"
    return ExplicitChoice(selection, message, warnings)
