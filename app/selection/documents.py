"""Normalised, immutable views of the documents selection reads (SPEC §1).

The schemas build these from request bodies; everything here already has the
SPEC §1.2 defaults applied where a default exists, and keeps ``None`` for
"absent" wherever absent and a default value behave differently.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NAMESPACED = "Namespaced"
CLUSTER = "Cluster"


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A model's ``modelFormat`` / ``modelFramework``."""

    name: str
    version: str | None = None


@dataclass(frozen=True, slots=True)
class EntryRef:
    """An entry's ``modelFormat`` / ``modelFramework``.

    ``weight`` keeps the raw value (SPEC §1.2: 1 when absent): the score reads an
    explicit 0 as 10 or 5 (§4) while the explain ``WEIGHT`` column reads it as 0 (§6).
    ``operator`` stays ``None`` when absent: absent means ``Equal`` (§8).
    """

    name: str
    version: str | None = None
    operator: str | None = None
    weight: int = 1


@dataclass(frozen=True, slots=True)
class PipelineComponent:
    library: str | None = None
    type: str | None = None


@dataclass(frozen=True, slots=True)
class DiffusionPipeline:
    """SPEC §12. ``components`` holds only the standard components that are set;
    ``additional`` is ``None`` when ``additionalComponents`` is absent."""

    class_name: str | None = None
    components: dict[str, PipelineComponent] = field(default_factory=dict)
    additional: dict[str, PipelineComponent] | None = None


@dataclass(frozen=True, slots=True)
class Model:
    kind: str  # BaseModel | ClusterBaseModel
    name: str
    namespace: str | None
    format: ModelRef
    framework: ModelRef | None = None
    architecture: str | None = None
    quantization: str | None = None
    parameter_size: str | None = None
    diffusion: DiffusionPipeline | None = None

    @property
    def is_cluster(self) -> bool:
        return self.kind == "ClusterBaseModel"


@dataclass(frozen=True, slots=True)
class Entry:
    """One item of ``spec.supportedModelFormats``."""

    name: str = ""
    format: EntryRef | None = None
    framework: EntryRef | None = None
    architecture: str | None = None
    quantization: str | None = None
    diffusion: DiffusionPipeline | None = None
    auto_select: bool | None = None  # absent != false (SPEC §3, §4)
    priority: int | None = None  # 1 when absent, but §13 tells absent from 1

    @property
    def effective_priority(self) -> int:
        return 1 if self.priority is None else self.priority


@dataclass(frozen=True, slots=True)
class SizeRange:
    min: str | None = None
    max: str | None = None


@dataclass(frozen=True, slots=True)
class Runtime:
    kind: str  # ServingRuntime | ClusterServingRuntime
    name: str
    namespace: str | None
    disabled: bool = False
    entries: tuple[Entry, ...] = ()
    size_range: SizeRange | None = None
    accelerator_classes: tuple[str, ...] | None = None
    engine_mode_annotation: str | None = None
    decoder_mode_annotation: str | None = None
    protocol_versions: tuple[str, ...] = ()

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
    # SPEC §10: present key counts whatever its value; a null value reads as "".
    accelerator_annotation: str | None = None
    accelerator_selector: str | None = None
    engine_accelerator: str | None = None
    decoder_accelerator: str | None = None
    runtime_name: str | None = None
    model_name: str | None = None
    deployment_mode: str | None = None
    has_engine: bool = False
    engine_mode_annotation: str | None = None
    has_decoder: bool = False
    decoder_mode_annotation: str | None = None


@dataclass(frozen=True, slots=True)
class RankRequest:
    """Everything one ranking depends on, after validation."""

    model: Model
    runtimes: tuple[Runtime, ...]
    inference_service: InferenceService | None = None
    namespace: str | None = None  # the request's own ``namespace`` (empty = absent)
    ome_version: str = "1.3"
