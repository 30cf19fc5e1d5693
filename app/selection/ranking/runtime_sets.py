"""What every question asked of one set of runtimes shares, worked out once per namespace:
the runtimes a ``kubectl apply`` of them leaves (rules §2), the candidates of the namespace and
the ones it ignores, the candidates' size warnings (rules §9), and which candidates can match
a model at all. Admission asks one question per distinct InferenceService of a stream, each of
the same runtimes: without this, each question re-derived all of it from every runtime.

``RuntimeSet`` is built for one tuple of runtimes and answers only for that tuple
(``rank_runtimes`` checks the identity); nothing in it depends on a model but ``may_match``,
which is keyed by what a match compares for equality."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from ..values import Model, RepeatedObject, Runtime
from .checks import RuntimeRow, has_autoselect
from .entries import model_format
from .ranked import IgnoredObject, ignored_order
from .warnings import runtime_size_warnings

CLUSTER_KIND = "ClusterServingRuntime"


def is_candidate(runtime: Runtime, namespace: str) -> bool:
    return runtime.is_cluster or not runtime.namespace or runtime.namespace == namespace


def runtime_identity(runtime: Runtime, namespace: str) -> tuple[str, str, str]:
    """rules §2: what makes two runtimes of a request one object, the later replacing the
    earlier: kind, namespace ("" for a ClusterServingRuntime; a ServingRuntime without one is
    in ``namespace``, the target namespace) and name."""
    return (
        runtime.kind,
        "" if runtime.is_cluster else (runtime.namespace or namespace),
        runtime.name,
    )


def latest_runtimes(
    runtimes: tuple[Runtime, ...], namespace: str
) -> tuple[list[Runtime], list[RepeatedObject]]:
    """rules §2: one runtime per kind, namespace and name, the last one in the request (as
    ``kubectl apply -f`` of all of them leaves the cluster), and how often each repeated one
    appears. A ServingRuntime without a namespace lands in the target namespace. Only the
    candidates' repeats are reported: copies of a runtime that is not a candidate change
    nothing, and a warning naming kind and name could not tell namespaces apart."""
    latest: dict[tuple[str, str, str], Runtime] = {}
    counts: dict[tuple[str, str, str], int] = {}  # of the identities given more than once
    for runtime in runtimes:
        kind = runtime.kind  # runtime_identity, inline: one call fewer per runtime
        key = (kind, "" if kind == CLUSTER_KIND else (runtime.namespace or namespace), runtime.name)
        if key in latest:
            counts[key] = counts.get(key, 1) + 1
        latest[key] = runtime
    # In the order of each identity's first appearance, as the latest runtimes are.
    repeated = [
        RepeatedObject(kind, name, counts[kind, where, name])
        for kind, where, name in (latest if counts else ())
        if (kind, where, name) in counts and where in ("", namespace)
    ]
    return list(latest.values()), repeated


# What ``entry_matches`` requires to be equal between a model and an entry (rules §3.1): the
# format's name, the architecture, the quantization and the framework's name (None on both
# sides, or equal). An entry whose key is not the model's never matches it.
MatchKey = tuple[str | None, str | None, str | None, str | None]
# What an admission's rows for one question are worked out from (selector.rows_key).
RowsKey = tuple[Hashable, ...]


def model_match_key(model: Model) -> MatchKey:
    framework = model.framework
    return (
        model_format(model).name,
        model.architecture,
        model.quantization,
        None if framework is None else framework.name,
    )


def _entry_keys(runtime: Runtime) -> set[MatchKey]:
    keys: set[MatchKey] = set()
    for entry in runtime.entries:
        if entry.format is None:
            continue  # matches no model
        framework = entry.framework
        keys.add(
            (
                entry.format.name,
                entry.architecture,
                entry.quantization,
                None if framework is None else framework.name,
            )
        )
    return keys


@dataclass
class NamespaceRuntimes:
    """The runtimes as one namespace's questions see them."""

    latest: list[Runtime]  # one per identity, the last given (rules §2)
    repeated: list[RepeatedObject]
    candidates: list[Runtime]
    ignored: list[IgnoredObject]  # ServingRuntimes of other namespaces, by ``ignored_order``
    size_warnings: list[str]  # the candidates' (rules §9), in canonical order
    _matching: dict[MatchKey, frozenset[int]] | None = field(default=None, repr=False)
    # An admission's ordered rows, by what they are worked out from (``selector.rows_key``):
    # questions that differ only in what no row reads (the model's name) share them.
    ordered_rows: dict[RowsKey, tuple[RuntimeRow, ...]] = field(default_factory=dict, repr=False)

    def may_match(self, model: Model) -> frozenset[int]:
        """The ids of the candidates with an entry whose key is the model's and an entry with
        ``autoSelect: true``: the only ones that can be compatible with it."""
        if self._matching is None:
            matching: dict[MatchKey, set[int]] = {}
            for runtime in self.candidates:
                if has_autoselect(runtime.entries):
                    for key in _entry_keys(runtime):
                        matching.setdefault(key, set()).add(id(runtime))
            self._matching = {key: frozenset(ids) for key, ids in matching.items()}
        return self._matching.get(model_match_key(model), frozenset())


class RuntimeSet:
    """The shared facts of one tuple of runtimes, per namespace, computed on first use."""

    def __init__(self, runtimes: tuple[Runtime, ...]) -> None:
        self.runtimes = runtimes
        self._namespaces: dict[str, NamespaceRuntimes] = {}

    def in_namespace(self, namespace: str) -> NamespaceRuntimes:
        found = self._namespaces.get(namespace)
        if found is None:
            found = self._namespaces[namespace] = namespace_runtimes(self.runtimes, namespace)
        return found


def namespace_runtimes(runtimes: tuple[Runtime, ...], namespace: str) -> NamespaceRuntimes:
    latest, repeated = latest_runtimes(runtimes, namespace)
    candidates: list[Runtime] = []
    ignored: list[IgnoredObject] = []
    for runtime in latest:
        if is_candidate(runtime, namespace):
            candidates.append(runtime)
        else:
            reason = (
                f"ServingRuntime in namespace {runtime.namespace}, "
                f"not in the target namespace {namespace}"
            )
            ignored.append(
                IgnoredObject(runtime.kind, runtime.name, runtime.namespace, runtime.scope, reason)
            )
    ignored.sort(key=ignored_order)
    return NamespaceRuntimes(
        latest, repeated, candidates, ignored, runtime_size_warnings(candidates)
    )
