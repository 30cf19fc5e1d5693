"""Normalised, immutable views of the documents selection reads (rules §1).

The schemas build these from request bodies; everything here already has the
rules §1.2 defaults applied where a default exists, and keeps ``None`` for
"absent" wherever absent and a default value behave differently.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .accelerator_classes import AcceleratorClass
from .accelerator_requests import AcceleratorRequest
from .frozen import quick_init
from .request_objects import OtherObject, RepeatedObject

NAMESPACED = "Namespaced"
CLUSTER = "Cluster"
# rules §1: the OME version emulated when a request (or a cluster's settings) names none.
DEFAULT_OME_VERSION = "1.3"


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A model's ``modelFormat`` / ``modelFramework``."""

    name: str
    version: str | None = None


@quick_init
@dataclass(frozen=True, slots=True)
class EntryRef:
    """An entry's ``modelFormat`` / ``modelFramework``.

    ``weight`` keeps the raw value (rules §1.2: 1 when absent): the score reads an
    explicit 0 as 10 or 5 (§4) while the explain ``WEIGHT`` column reads it as 0 (§6).
    ``operator`` stays ``None`` when absent: absent means ``Equal`` (§8).
    """

    name: str
    version: str | None = None
    operator: str | None = None
    weight: int = 1


Key = TypeVar("Key", bound=Hashable)
K = TypeVar("K", bound=tuple[object, ...])
V = TypeVar("V")


class MadeOnUse(dict[Key, V]):
    """``table[key]``: the value ``make(key)``, made on first use and then looked up (a lookup,
    not a call, for every later use). With a ``bound``, cleared when full."""

    __slots__ = ("_bound", "_make")

    def __init__(self, make: Callable[..., V], bound: int = sys.maxsize) -> None:
        super().__init__()
        self._make, self._bound = make, bound

    def __missing__(self, key: Key) -> V:
        if len(self) >= self._bound:
            self.clear()
        value = self[key] = self._value(key)
        return value

    def _value(self, key: Key) -> V:
        return self._make(key)


class SharedValues(MadeOnUse[K, V]):
    """``shared[fields]``: the frozen value ``make(*fields)``, made on first use and then
    served to every document with the same fields (a lookup, not a call, for the loader's
    every entry or runtime). Bounded: cleared when full. Callers pass exact types (``str``,
    ``int``): no ``True == 1`` or ``1.0 == 1`` can meet in a key."""

    __slots__ = ()

    def _value(self, key: K) -> V:
        return self._make(*key)


# A cluster's runtimes name a handful of formats and frameworks, thousands of times: the same
# EntryRef serves every entry that names the same one, which also lets the way out's per-request
# memo key on identity (advice/way_out.py). ``ENTRY_REFS[name, version, operator, weight]``.
_MAX_REFS = 4096
ENTRY_REFS: SharedValues[tuple[str, str | None, str | None, int], EntryRef] = SharedValues(
    EntryRef, _MAX_REFS
)


def shared_entry_ref(name: str, version: str | None, operator: str | None, weight: int) -> EntryRef:
    """``EntryRef(name, version, operator, weight)``, the object shared by equal ones
    (``ENTRY_REFS``)."""
    return ENTRY_REFS[name, version, operator, weight]


@dataclass(frozen=True, slots=True)
class PipelineComponent:
    library: str | None = None
    type: str | None = None


@dataclass(frozen=True, slots=True)
class DiffusionPipeline:
    """rules §12. ``components`` holds only the standard components that are set;
    ``additional`` is ``None`` when ``additionalComponents`` is absent."""

    class_name: str | None = None
    components: dict[str, PipelineComponent] = field(default_factory=dict)
    additional: dict[str, PipelineComponent] | None = None


SHARDED = "Sharded"  # rules §1.1: the only ``distribution`` that the cache-provider rule reads


@dataclass(frozen=True, slots=True)
class Model:
    """A BaseModel / ClusterBaseModel. ``format`` is ``None`` when ``modelFormat`` (or its
    name) is absent: OME's model agent has not filled it yet, so the model is not Ready."""

    kind: str  # BaseModel | ClusterBaseModel
    name: str
    namespace: str | None
    format: ModelRef | None
    framework: ModelRef | None = None
    architecture: str | None = None
    quantization: str | None = None
    parameter_size: str | None = None
    diffusion: DiffusionPipeline | None = None
    distribution: str | None = None
    disabled: bool | None = None  # only admission reads it (rules §18)
    storage_uri: str | None = None  # spec.storage.storageUri: only admission reads it (§18)

    @property
    def is_cluster(self) -> bool:
        return self.kind == "ClusterBaseModel"

    @property
    def is_ready(self) -> bool:
        """rules §15: a model without ``modelFormat.name`` (absent or empty) cannot be matched."""
        return self.format is not None and self.format.name != ""

    @property
    def is_sharded(self) -> bool:
        return self.distribution == SHARDED


@quick_init
@dataclass(frozen=True, slots=True)
class Entry:
    """One item of ``spec.supportedModelFormats``. A ``/v1/rank`` JSON request's entries are
    ``PlainEntry`` values with these attributes instead (app/schemas/fast_runtime.py): the
    rules read an entry's attributes only, never its type."""

    name: str = ""
    format: EntryRef | None = None
    framework: EntryRef | None = None
    architecture: str | None = None
    quantization: str | None = None
    diffusion: DiffusionPipeline | None = None
    auto_select: bool | None = None  # absent != false (rules §3, §4)
    priority: int | None = None  # 1 when absent, but §13 tells absent from 1
    cache_providers: tuple[str, ...] | None = None  # modelCacheProviders (rules §3.1)
    version: str | None = None  # the entry's own version: only the webhook compares it (§18)
    # rules §20.2: per accelerator class name, what OME applies to a component that gets it.
    accelerator_config: Mapping[str, Any] | None = None

    @property
    def effective_priority(self) -> int:
        return 1 if self.priority is None else self.priority


@quick_init
@dataclass(frozen=True, slots=True)
class SizeRange:
    min: str | None = None
    max: str | None = None


# Runtimes repeat a few size ranges: ``SIZE_RANGES[min, max]``, one SizeRange for each.
SIZE_RANGES: SharedValues[tuple[str | None, str | None], SizeRange] = SharedValues(SizeRange, 256)


@quick_init
@dataclass(frozen=True, slots=True)
class Runtime:
    kind: str  # ServingRuntime | ClusterServingRuntime
    name: str
    namespace: str | None
    # None when absent: a child's explicit ``false`` overrides its parent's ``true`` (rules §7).
    disabled: bool | None = None
    entries: tuple[Entry, ...] = ()
    size_range: SizeRange | None = None
    accelerator_classes: tuple[str, ...] | None = None
    engine_mode_annotation: str | None = None
    decoder_mode_annotation: str | None = None
    protocol_versions: tuple[str, ...] = ()
    inherit_from: str | None = None  # ome.io/inherit-from; None for absent, null or ""

    @property
    def is_disabled(self) -> bool:
        return self.disabled is True

    @property
    def scope(self) -> str:
        return CLUSTER if self.kind == "ClusterServingRuntime" else NAMESPACED

    @property
    def is_cluster(self) -> bool:
        return self.kind == "ClusterServingRuntime"


@dataclass(frozen=True, slots=True)
class InferenceService:
    name: str
    namespace: str | None = None
    # rules §10: present key counts whatever its value; a null value reads as "".
    accelerator_annotation: str | None = None
    accelerator_selector: str | None = None
    engine_accelerator: str | None = None
    decoder_accelerator: str | None = None
    runtime_name: str | None = None
    # spec.runtime.kind as written; None when absent (the CRD default ClusterServingRuntime).
    runtime_kind: str | None = None
    model_name: str | None = None
    model_kind: str | None = None  # spec.model.kind: where a stored catalog finds the model
    deployment_mode: str | None = None
    has_engine: bool = False
    engine_mode_annotation: str | None = None
    has_decoder: bool = False
    decoder_mode_annotation: str | None = None
    # rules §20.1: acceleratorSelector and the components' acceleratorOverride (placement only).
    accelerators: AcceleratorRequest | None = None


@dataclass(frozen=True, slots=True)
class RankRequest:
    """Everything one ranking depends on, after validation."""

    model: Model
    runtimes: tuple[Runtime, ...]
    inference_service: InferenceService | None = None
    namespace: str | None = None  # the request's own ``namespace`` (empty = absent)
    ome_version: str = DEFAULT_OME_VERSION
    model_cache_provider: str | None = None  # rules §2; None: none configured
    others: tuple[OtherObject, ...] = ()
    repeated: tuple[RepeatedObject, ...] = ()
    # rules §20.8: the request's AcceleratorClasses, one per name (the last given), by name, and
    # its acceleratorClassesKnown (None: known when at least one class is held).
    accelerator_classes: tuple[AcceleratorClass, ...] = ()
    accelerator_classes_known: bool | None = None
