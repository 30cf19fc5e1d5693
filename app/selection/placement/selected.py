"""After the runtime (rules §20): the ``supportedModelFormats`` entry OME applies, the class of
each component, what its pods get, and OME's event. Nothing here changes a ranking."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from ..ranking import (
    KIND_AND_INHERITANCE_SINCE,
    InheritanceError,
    Ranking,
    configured_provider,
    effective_runtime,
    entry_unit_score,
    find_named_runtime,
    is_candidate,
    latest_runtimes,
    named_chain,
    target_namespace,
)
from ..values import (
    DECODER,
    ENGINE,
    NO_EXTRAS,
    AcceleratorClass,
    AcceleratorRequest,
    Model,
    RankRequest,
    Runtime,
    RuntimeExtras,
)
from .components import (
    ClassView,
    ComponentContext,
    accelerator_config,
    listed_classes,
    place_component,
)
from .placed import (
    ACCELERATOR_CLASS_NOT_FOUND,
    EVENT_REASON,
    ComponentPlacement,
    Placement,
    PlacementEntry,
    PlacementEvent,
)

# rules §20.3.2, §20.6: from this OME version a missing listed class is left out of a policy's
# pool instead of making it pick nothing.
MISSING_CLASSES_SKIPPED_SINCE = KIND_AND_INHERITANCE_SINCE


@dataclass(frozen=True, slots=True)
class RuntimeRead:
    """The selected runtime as OME reads it: its own spec when auto-selected, the effective
    spec of its §7 chain when named (OME 1.3 and later). ``holder`` is the runtime whose own
    spec holds the ``supportedModelFormats`` list OME reads."""

    runtime: Runtime
    holder: Runtime
    named: bool


def _no_extras(_: Runtime) -> RuntimeExtras:
    return NO_EXTRAS


def read_selected_runtime(request: RankRequest, ranking: Ranking) -> RuntimeRead | None:
    """The runtime OME reads for the ranking's selection; None when nothing is selected."""
    selected = ranking.selected
    if selected is None or ranking.error is not None:
        return None
    isvc = request.inference_service
    if not selected.explicit or isvc is None or isvc.runtime_name is None:
        # The ranking's rows are candidates of the request (its selection the first), and no two
        # candidates share a name and a scope (rules §2): the row found is that candidate.
        for row in ranking.rows:
            runtime = row.runtime
            if runtime.name == selected.name and runtime.scope == selected.scope:
                return RuntimeRead(runtime, runtime, named=False)
        return None
    namespace = target_namespace(request)
    runtimes, _ = latest_runtimes(request.runtimes, namespace)
    candidates = [runtime for runtime in runtimes if is_candidate(runtime, namespace)]
    modern = Version(request.ome_version) >= KIND_AND_INHERITANCE_SINCE
    found = find_named_runtime(candidates, isvc.runtime_name, isvc.runtime_kind, modern)
    if found is None:
        return None
    chain = named_chain(found, candidates, modern)
    if isinstance(chain, InheritanceError):
        return None
    # Lists are replaced whole: the list read is the first one a runtime of the chain sets.
    holder = next((runtime for runtime in chain if runtime.entries), found)
    return RuntimeRead(effective_runtime(chain), holder, named=True)


def choose_entry(model: Model, read: RuntimeRead, provider: str) -> tuple[int, int] | None:
    """rules §20.2: (index, score) of the first entry with the largest entry score computed
    with priority 1, above 0; only ``autoSelect: true`` entries for an auto-selected runtime."""
    best: tuple[int, int] | None = None
    for index, entry in enumerate(read.runtime.entries):
        if not read.named and entry.auto_select is not True:
            continue
        score = entry_unit_score(model, entry, provider)
        if score > (0 if best is None else best[1]):
            best = (index, score)
    return best


def place(
    model: Model,
    read: RuntimeRead,
    accelerators: AcceleratorRequest | None,
    view: ClassView,
    ome_version: str,
    model_cache_provider: str | None = None,
    extras_of: Callable[[Runtime], RuntimeExtras] = _no_extras,
) -> Placement:
    """The placement on a runtime OME has selected (or that is named)."""
    chosen = choose_entry(model, read, configured_provider(model_cache_provider))
    entry = None
    extras = extras_of(read.holder)
    if chosen is not None:
        index, score = chosen
        # Names are unique along a chain (a name met again is a cycle), so a name tells.
        defined_in = None if read.holder.name == read.runtime.name else read.holder.name
        entry = PlacementEntry(index, extras.name(index), score, defined_in)

    def config_of(name: str) -> Mapping[str, Any] | None:
        if chosen is None:
            return None
        return accelerator_config(extras.accelerator_config(chosen[0]), name)

    if accelerators is None:
        return Placement(entry, None, None)
    context = ComponentContext(
        request=accelerators,
        listed=listed_classes(read.runtime.accelerator_classes),
        view=view,
        missing_aborts=Version(ome_version) < MISSING_CLASSES_SKIPPED_SINCE,
        config=config_of,
    )
    engine = place_component(context, ENGINE) if accelerators.engine is not None else None
    decoder = place_component(context, DECODER) if accelerators.decoder is not None else None
    return Placement(entry, engine, decoder, _event(engine, decoder))


def _event(*components: ComponentPlacement | None) -> PlacementEvent | None:
    """rules §20.5: engine first; the first failure stops OME's reconcile, and only a missing
    named class records an event."""
    for component in components:
        if component is not None and component.error is not None:
            if component.error.code == ACCELERATOR_CLASS_NOT_FOUND:
                return PlacementEvent(EVENT_REASON, component.error.message)
            return None
    return None


def predict_placement(
    request: RankRequest,
    ranking: Ranking,
    accelerators: AcceleratorRequest | None,
    classes: Mapping[str, AcceleratorClass],
    classes_known: bool,
    extras_of: Callable[[Runtime], RuntimeExtras] = _no_extras,
) -> Placement | None:
    """rules §20.8 ``placement`` for a ranking of ``request``: None when nothing is selected,
    on any §7 error, or for ``ModelNotReady``. ``accelerators`` is None without an
    InferenceService; ``classes`` are the cluster's classes by name (``latest_classes``);
    ``extras_of`` gives each runtime document's entry names and ``acceleratorConfig``."""
    read = read_selected_runtime(request, ranking)
    if read is None:
        return None
    return place(
        request.model,
        read,
        accelerators if request.inference_service is not None else None,
        ClassView(classes, classes_known),
        request.ome_version,
        request.model_cache_provider,
        extras_of,
    )
