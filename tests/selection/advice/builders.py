"""Requests for the property tests of the advice (rules §19): every field the checks of §3 read,
drawn from values at and around the model's, the edge cases of versions, sizes and modes among
them, so that a ``No`` row fails any check, several at once, or none."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime

VERSIONS = st.sampled_from([None, "1.0.0", "1.0", "v1.0.0", "2.0.0", "1.0.0-rc1", "bad..", "1"])
OPERATORS = st.sampled_from([None, "Equal", "GreaterThan", "GreaterThanOrEqual", "X"])
MODES = st.sampled_from([None, "RawDeployment", "MultiNode", "bogus"])


@st.composite
def entries(draw):
    item = entry(
        format_name=draw(st.sampled_from(["safetensors", "onnx", None])),
        format_version=draw(VERSIONS),
        operator=draw(OPERATORS),
        weight=draw(st.sampled_from([None, 0, 1, -1, -7])),
        framework=draw(st.sampled_from(["transformers", "vllm", None])),
        framework_version=draw(VERSIONS),
        framework_weight=draw(st.sampled_from([None, 0, 2, -6])),
        architecture=draw(st.sampled_from(["LlamaForCausalLM", None, "Other"])),
        auto_select=draw(st.sampled_from([True, False, None])),
        priority=draw(st.sampled_from([None, 1, 3])),
    )
    if "modelFramework" in item and draw(st.booleans()):
        item["modelFramework"]["operator"] = draw(OPERATORS)
    quantization = draw(st.sampled_from([None, "fp8"]))
    if quantization:
        item["quantization"] = quantization
    providers = draw(st.sampled_from([None, [], ["fleet"], ["local", " fleet"]]))
    if providers is not None:
        item["modelCacheProviders"] = providers
    if draw(st.integers(0, 5)) == 0:
        item["diffusionPipeline"] = {"className": "FluxPipeline"}
    return item


@st.composite
def runtimes(draw, name):
    spec = {"disabled": draw(st.sampled_from([None, False, True]))}
    classes = draw(st.sampled_from([None, [], ["a100"], ["h100", "a100"]]))
    if classes is not None:
        spec["acceleratorRequirements"] = {"acceleratorClasses": classes}
    for part in ("engineConfig", "decoderConfig"):
        mode = draw(MODES)
        if mode is not None:
            spec[part] = {"annotations": {"ome.io/deploymentMode": mode}}
    size_range = draw(
        st.sampled_from(
            [None, {}, {"min": "1B"}, {"max": "8B"}, {"min": "1B", "max": "8B"}, {"min": "2"}]
        )
    )
    if size_range is not None:
        spec["modelSizeRange"] = size_range
    doc = serving_runtime(name, **spec) if draw(st.booleans()) else runtime_doc(name, **spec)
    doc["spec"]["supportedModelFormats"] = draw(st.lists(entries(), max_size=3))
    return doc


@st.composite
def requests(draw):
    names = draw(st.lists(st.sampled_from("abcdef"), max_size=5, unique=True))
    model = model_doc(
        format_version=draw(VERSIONS),
        framework=draw(st.sampled_from(["transformers", None])),
        framework_version=draw(VERSIONS),
        architecture=draw(st.sampled_from(["LlamaForCausalLM", None])),
        quantization=draw(st.sampled_from([None, "fp8"])),
        size=draw(st.sampled_from([None, "7B", "70B", "0.5B", "nan", "inf", "7b", "-1"])),
    )
    if draw(st.booleans()):
        model["spec"]["distribution"] = "Sharded"
    if draw(st.integers(0, 3)) == 0:
        model["spec"]["diffusionPipeline"] = {"className": draw(st.sampled_from(["X", None]))}
    body = rank_body(model, *[draw(runtimes(name)) for name in names])
    if draw(st.booleans()):
        annotations = {"ome.io/accelerator-class": "a100"} if draw(st.booleans()) else None
        spec = {"deploymentMode": draw(MODES)} if draw(st.booleans()) else {}
        if draw(st.booleans()):
            spec["decoder"] = {"annotations": {"ome.io/deploymentMode": "MultiNode"}}
        body["inferenceService"] = isvc_doc(annotations=annotations, **spec)
    body["omeVersion"] = draw(st.sampled_from(["1.3", "1.2"]))
    provider = draw(st.sampled_from([None, "fleet", " fleet "]))
    if provider is not None:
        body["modelCacheProvider"] = provider
    return body
