"""Hypothesis strategies of models and entries for the fast paths of check 4 and the score
(test_entry_verdicts.py, test_unit_score.py): a few values per field, so that names, versions
and weights meet."""

from __future__ import annotations

from hypothesis import strategies as st

from app.selection.values import (
    DiffusionPipeline,
    Entry,
    EntryRef,
    Model,
    ModelRef,
    PipelineComponent,
)

VERSIONS = st.sampled_from([None, "1.0.0", "1.2", "2.0.0", "v1"])
OPERATORS = st.sampled_from([None, "Equal", "GreaterThan", "GreaterThanOrEqual"])
NAMES = st.sampled_from(["safetensors", "onnx"])
FRAMEWORKS = st.sampled_from(["transformers", "vllm"])
TEXTS = st.sampled_from([None, "A", "B"])
PIPELINES = st.sampled_from(
    [
        None,
        DiffusionPipeline("Flux"),
        DiffusionPipeline(None, {"vae": PipelineComponent("diffusers", "AutoencoderKL")}),
    ]
)


def refs(names):
    return st.builds(EntryRef, names, VERSIONS, OPERATORS, st.integers(-2, 3))


MODELS = st.builds(
    Model,
    kind=st.just("ClusterBaseModel"),
    name=st.just("m"),
    namespace=st.none(),
    format=st.builds(ModelRef, NAMES, VERSIONS),
    framework=st.none() | st.builds(ModelRef, FRAMEWORKS, VERSIONS),
    architecture=TEXTS,
    quantization=TEXTS,
    diffusion=PIPELINES,
    distribution=st.sampled_from([None, "Sharded"]),
)
ENTRIES = st.builds(
    Entry,
    name=st.just("e"),
    format=st.none() | refs(NAMES),
    framework=st.none() | refs(FRAMEWORKS),
    architecture=TEXTS,
    quantization=TEXTS,
    diffusion=PIPELINES,
    auto_select=st.sampled_from([None, True, False]),
    priority=st.sampled_from([None, 1, 3]),
    cache_providers=st.sampled_from([None, (), ("p",), ("q", "p")]),
)
PROVIDERS = st.sampled_from(["", "p", "q"])
