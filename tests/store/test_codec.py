"""The stored form of the selection documents: exact, versioned, refusing what it cannot keep."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.schemas.document_schemas import runtime_document_schema
from app.schemas.fast_runtime import load_runtime
from app.selection.values import (
    AcceleratorClass,
    AcceleratorRequest,
    DiffusionPipeline,
    Entry,
    EntryRef,
    InferenceService,
    Model,
    ModelRef,
    Performance,
    PipelineComponent,
    Runtime,
    parse_quantity,
)
from app.selection.values.accelerator_classes import ClassResource, Cost
from app.store import codec
from app.store.codec import DecoderSource
from bench.manifests import rank_request_body

# Text as a store must keep it: any code point, lone surrogates and NUL included.
TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
# What a JSON object stored whole (an acceleratorConfig) may hold.
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


def strategy(hint: Any) -> st.SearchStrategy:
    """Every value of ``hint``, derived from the type hints alone (as the codec is)."""
    if hint is str:
        return TEXT
    if hint is int:
        return st.integers(min_value=-(2**70), max_value=2**70)  # beyond int64 too
    if hint is bool:
        return st.booleans()
    if hint is type(None):
        return st.none()
    if isinstance(hint, types.UnionType):
        return st.one_of(*map(strategy, typing.get_args(hint)))
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if codec.is_json_object(hint):
        return st.dictionaries(TEXT, JSON_VALUES, max_size=3)
    if origin is tuple:
        return st.lists(strategy(args[0]), max_size=4).map(tuple)
    if origin in (dict, Mapping):
        return st.dictionaries(TEXT, strategy(args[1]), max_size=3)
    hints = codec.type_hints(hint)
    return st.builds(
        hint, **{field.name: strategy(hints[field.name]) for field in dataclasses.fields(hint)}
    )


DOCUMENTS = st.one_of(strategy(Runtime), strategy(Model), strategy(InferenceService))


@settings(max_examples=4 * settings.default.max_examples, deadline=None)
@given(DOCUMENTS)
def test_round_trip_is_the_identity(document):
    text = codec.dumps(document)
    assert text.isascii()
    decoded = codec.loads(text)
    assert decoded == document
    assert repr(decoded) == repr(document)  # tuples stay tuples, dict order kept, None kept
    assert codec.dumps(decoded) == text
    # Once more, through the shared tables the first decoding filled.
    assert repr(codec.loads(text)) == repr(document)


@settings(deadline=None)
@given(st.lists(DOCUMENTS, max_size=5))
def test_a_catalog_round_trips_in_one_parse(documents):
    text = codec.join_array(codec.dumps(document) for document in documents)
    assert repr(codec.loads_array(text)) == repr(documents)


def test_real_runtimes_round_trip():
    manifests = rank_request_body(300)["runtimes"]
    runtimes = [load_runtime(m) or runtime_document_schema.load(m) for m in manifests]
    text = codec.join_array(map(codec.dumps, runtimes))
    decoded = codec.loads_array(text)
    assert decoded == runtimes
    assert repr(decoded) == repr(runtimes)


def test_values_that_differ_only_in_type_stay_apart():
    absent = Entry("a", auto_select=None, priority=None, cache_providers=None)
    empty = Entry("a", auto_select=False, priority=0, cache_providers=())
    one = Entry("a", auto_select=True, priority=1, cache_providers=("x",))
    runtime = Runtime("ClusterServingRuntime", "r", None, entries=(absent, empty, one, absent))
    decoded = codec.loads(codec.dumps(runtime))
    assert repr(decoded) == repr(runtime)
    assert decoded.entries[0] is decoded.entries[3]  # equal values are shared


def test_more_distinct_values_than_the_shared_tables_hold():
    entries = tuple(
        Entry("e", format=EntryRef("f", weight=n), auto_select=True)
        for n in range(codec.SHARED_LIMIT * 2 + 10)
    )
    runtime = Runtime("ClusterServingRuntime", "r", None, entries=entries)
    assert codec.loads(codec.dumps(runtime)) == runtime
    assert codec.loads(codec.dumps(runtime)) == runtime


def test_diffusion_pipelines_keep_their_dicts_apart():
    pipeline = DiffusionPipeline("P", {"unet": PipelineComponent("diffusers", "U")}, None)
    model = Model("BaseModel", "m", "ns", ModelRef("f"), diffusion=pipeline)
    first, second = codec.loads(codec.dumps(model)), codec.loads(codec.dumps(model))
    assert first == second == model
    assert first.diffusion.components is not second.diffusion.components


@pytest.mark.parametrize(
    "document",
    [
        Runtime("ClusterServingRuntime", "r", None, entries=[Entry("a")]),  # a list
        Runtime("ClusterServingRuntime", "r", None, protocol_versions=["v1"]),
        Runtime("ClusterServingRuntime", "r", None, disabled=1),  # an int for a bool
        Runtime("ClusterServingRuntime", "r", None, entries=(Entry("a", priority=True),)),
        Runtime("ClusterServingRuntime", "r", None, entries=(Entry("a", priority=1.0),)),
        Runtime("ClusterServingRuntime", 7, None),
        Runtime("ClusterServingRuntime", "r", None, entries=(EntryRef("a"),)),
        Model("BaseModel", "m", None, ModelRef("f"), diffusion=DiffusionPipeline(None, {1: None})),
        InferenceService("s", has_engine=None),
    ],
    ids=repr,
)
def test_what_would_not_come_back_equal_is_refused(document):
    with pytest.raises(TypeError):
        codec.dumps(document)


def test_only_documents_are_stored():
    with pytest.raises(TypeError, match="cannot store"):
        codec.dumps(EntryRef("a"))


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "{}",
        "[]",
        '[4,"R","ClusterServingRuntime","r",null,null,[],null,null,null,null,[],null]',  # version
        '[2,"X"]',
        '[2,"R","ClusterServingRuntime"]',  # too few fields
        '[2,"R","ClusterServingRuntime","r",null,null,[],null,null,null,null,[],null,0]',
        '[2,"R","ClusterServingRuntime","r",null,null,7,null,null,null,null,[],null]',
        '[2,"R","ClusterServingRuntime","r",null,null,[["e",[1,2]]],null,null,null,null,[],null]',
    ],
)
def test_what_is_not_a_stored_document_is_unreadable(text):
    with pytest.raises(codec.UnreadableDocument):
        codec.loads(text)


def test_a_stored_document_says_its_version():
    value = json.loads(codec.dumps(InferenceService("s")))
    assert value[:2] == [codec.CODEC_VERSION, "I"]


# The stored layout of CODEC_VERSION 3 (AcceleratorClass, a new tag, added within it: no
# other tag's layout changed). A change to app.selection.values.documents changes
# codec.layout(): bump CODEC_VERSION and put the new layout here (stored catalogs are then
# unreadable, 503, until they are written again).
LAYOUT_V3 = {
    "AcceleratorClass": [
        "name: str",
        "vendor: str",
        "family: str",
        "memory_gb: Quantity | None",
        "compute_capability: str",
        "memory_bandwidth_gbps: Quantity | None",
        "features: tuple[str, ...]",
        "performance: Performance | None",
        "cost: Cost | None",
        "node_selector: Mapping[str, str] | None",
        "affinity: Mapping[str, Any] | None",
        "resources: tuple[ClassResource, ...]",
    ],
    "ClassResource": ["name: str", "quantity: str"],
    "Cost": [
        "spot_per_hour: Quantity | None",
        "per_hour: Quantity | None",
        "per_million_tokens: Quantity | None",
        "tier: str",
    ],
    "Performance": [
        "fp32_tflops: int | None",
        "fp16_tflops: int | None",
        "int8_tops: int | None",
        "int4_tops: int | None",
    ],
    "Quantity": ["raw: str", "nanos: int"],
    "AcceleratorRequest": [
        "selector: Selector | None",
        "engine: ComponentRequest | None",
        "decoder: ComponentRequest | None",
    ],
    "ComponentRequest": ["override: Selector | None", "runner_sets_resources: bool"],
    "Constraints": [
        "min_memory: int | None",
        "max_memory: int | None",
        "min_compute_tflops: int | None",
        "min_architecture_version: str | None",
        "required_features: tuple[str, ...]",
        "excluded_classes: tuple[str, ...]",
        "architecture_families: tuple[str, ...]",
        "preferred_precisions: tuple[str, ...]",
    ],
    "DiffusionPipeline": [
        "class_name: str | None",
        "components: dict[str, PipelineComponent]",
        "additional: dict[str, PipelineComponent] | None",
    ],
    "Entry": [
        "name: str",
        "format: EntryRef | None",
        "framework: EntryRef | None",
        "architecture: str | None",
        "quantization: str | None",
        "diffusion: DiffusionPipeline | None",
        "auto_select: bool | None",
        "priority: int | None",
        "cache_providers: tuple[str, ...] | None",
        "version: str | None",
        "accelerator_config: Mapping[str, Any] | None",
    ],
    "EntryRef": ["name: str", "version: str | None", "operator: str | None", "weight: int"],
    "InferenceService": [
        "name: str",
        "namespace: str | None",
        "accelerator_annotation: str | None",
        "accelerator_selector: str | None",
        "engine_accelerator: str | None",
        "decoder_accelerator: str | None",
        "runtime_name: str | None",
        "runtime_kind: str | None",
        "model_name: str | None",
        "model_kind: str | None",
        "deployment_mode: str | None",
        "has_engine: bool",
        "engine_mode_annotation: str | None",
        "has_decoder: bool",
        "decoder_mode_annotation: str | None",
        "accelerators: AcceleratorRequest | None",
    ],
    "Model": [
        "kind: str",
        "name: str",
        "namespace: str | None",
        "format: ModelRef | None",
        "framework: ModelRef | None",
        "architecture: str | None",
        "quantization: str | None",
        "parameter_size: str | None",
        "diffusion: DiffusionPipeline | None",
        "distribution: str | None",
        "disabled: bool | None",
        "storage_uri: str | None",
    ],
    "ModelRef": ["name: str", "version: str | None"],
    "PipelineComponent": ["library: str | None", "type: str | None"],
    "Runtime": [
        "kind: str",
        "name: str",
        "namespace: str | None",
        "disabled: bool | None",
        "entries: tuple[Entry, ...]",
        "size_range: SizeRange | None",
        "accelerator_classes: tuple[str, ...] | None",
        "engine_mode_annotation: str | None",
        "decoder_mode_annotation: str | None",
        "protocol_versions: tuple[str, ...]",
        "inherit_from: str | None",
    ],
    "Selector": [
        "accelerator_class: str | None",
        "policy: str | None",
        "constraints: Constraints | None",
    ],
    "SizeRange": ["min: str | None", "max: str | None"],
}


def test_the_layout_is_that_of_the_version():
    assert codec.CODEC_VERSION == 3
    assert codec.layout() == LAYOUT_V3


def test_an_accelerator_class_round_trips_exactly():
    accelerator = AcceleratorClass(
        "nvidia-h100",
        vendor="nvidia",
        family="hopper",
        memory_gb=parse_quantity("80Gi"),
        compute_capability="9.0",
        memory_bandwidth_gbps=parse_quantity("3350"),
        features=("fp8", "nvlink"),
        performance=Performance(fp16_tflops=989, int8_tops=1979),
        cost=Cost(spot_per_hour=parse_quantity("1.5"), tier="high"),
        node_selector={"nvidia.com/gpu.product": "H100"},
        affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}},
        resources=(ClassResource("nvidia.com/gpu", "1"),),
    )
    text = codec.dumps(accelerator)
    assert json.loads(text)[:3] == [codec.CODEC_VERSION, "A", "nvidia-h100"]
    assert codec.loads(text) == accelerator
    assert codec.loads(codec.dumps(AcceleratorClass("bare"))) == AcceleratorClass("bare")


def test_a_version_1_value_reads_without_what_version_2_appended():
    entry = Entry("e", EntryRef("safetensors"), None, None, None, None, True, 2, None, "1")
    runtime = Runtime("ClusterServingRuntime", "rt", None, entries=(entry, entry))
    model = Model("BaseModel", "m", "demo", ModelRef("safetensors"), storage_uri="pvc://c/m")
    for document, cut in (
        (runtime, lambda v: [*v[:6], [e[:-2] for e in v[6]], *v[7:]]),
        (model, lambda v: v[:-1]),
    ):
        value = codec.encode(document)
        old = [1, *cut(value)[1:]]
        read = codec.decode(json.loads(json.dumps(old)))
        fields = {"entries": tuple(dataclasses.replace(e, version=None) for e in runtime.entries)}
        expected = (
            dataclasses.replace(document, **fields)
            if document is runtime
            else dataclasses.replace(document, storage_uri=None)
        )
        assert read == expected


def test_a_version_2_value_reads_without_what_version_3_appended():
    config = {"nvidia-h100": {"runtimeArgsOverride": ["--x=1"]}}
    entry = Entry("e", EntryRef("safetensors"), auto_select=True, accelerator_config=config)
    runtime = Runtime("ClusterServingRuntime", "rt", None, entries=(entry, entry))
    isvc = InferenceService("s", "demo", has_engine=True, accelerators=AcceleratorRequest())
    value = codec.encode(runtime)
    runtime_v2 = [2, *value[1:6], [e[:-1] for e in value[6]], *value[7:]]
    read = codec.decode(json.loads(json.dumps(runtime_v2)))
    bare = dataclasses.replace(entry, accelerator_config=None)
    assert read == dataclasses.replace(runtime, entries=(bare, bare))
    isvc_v2 = [2, *codec.encode(isvc)[1:-1]]
    assert codec.decode(isvc_v2) == dataclasses.replace(isvc, accelerators=None)
    assert codec.decode([3, *codec.encode(runtime)[1:]]) == runtime


def test_a_reader_without_classes_refuses_only_a_class():
    # What an instance from before AcceleratorClass was stored does with the values of one after.
    value = codec.encode(AcceleratorClass("nvidia-h100"))
    assert value[:2] == [3, "A"]
    tags = dict(codec._DECODE_BY_TAG)
    try:
        del codec._DECODE_BY_TAG["A"]
        with pytest.raises(codec.UnreadableDocument):
            codec.decode(json.loads(json.dumps(value)))
        runtime = Runtime("ClusterServingRuntime", "rt", None)
        assert codec.loads(codec.dumps(runtime)) == runtime
    finally:
        codec._DECODE_BY_TAG.clear()
        codec._DECODE_BY_TAG.update(tags)


@dataclasses.dataclass(frozen=True, slots=True)
class _Flag:
    value: int | bool


@dataclasses.dataclass(frozen=True, slots=True)
class _Flags:
    flags: tuple[_Flag, ...]


def test_a_field_that_holds_ints_and_bools_is_not_shared():
    # True == 1 as keys of a shared table: such a class must be built anew every time.
    source = DecoderSource()
    name = source.function(_Flags, shareable=False)
    decode = source.compile()[name]
    decoded = decode([[[1], [True], [0], [False]]])
    assert repr(decoded) == repr(_Flags((_Flag(1), _Flag(True), _Flag(0), _Flag(False))))
