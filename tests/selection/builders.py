"""Hypothesis strategies of rank request bodies for the property tests: runtimes and a model drawn
from the values the rules treat apart (versions, sizes, weights, operators, scopes), the corners
included."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime

VERSIONS = st.sampled_from([None, "1.0.0", "1.0", "v1.0.0", "2.0.0", "1.0.0-rc1", "bad..", "1"])
SIZES = st.sampled_from([None, "7B", "1B", "70B", "1.5", "2", "7b", "nan", "inf", "0x1p4M"])
WEIGHTS = st.sampled_from([None, 0, 1, 2, -1, 3])


@st.composite
def entries(draw):
    return entry(
        format_name=draw(st.sampled_from(["safetensors", "onnx", None])),
        format_version=draw(VERSIONS),
        operator=draw(st.sampled_from([None, "Equal", "GreaterThan", "GreaterThanOrEqual", "X"])),
        weight=draw(WEIGHTS),
        framework=draw(st.sampled_from(["transformers", "vllm", None])),
        framework_version=draw(VERSIONS),
        framework_weight=draw(WEIGHTS),
        architecture=draw(st.sampled_from(["LlamaForCausalLM", None, "Other"])),
        auto_select=draw(st.sampled_from([True, False, None])),
        priority=draw(st.sampled_from([None, 1, 2, 3])),
    )


@st.composite
def runtimes(draw, name):
    size_range = draw(
        st.sampled_from(
            [None, {}, {"min": "1B"}, {"max": "8B"}, {"min": "1B", "max": "8B"}, {"min": "2"}]
        )
    )
    kwargs = {"disabled": draw(st.sampled_from([None, False, True]))}
    if draw(st.booleans()):
        kwargs["acceleratorRequirements"] = {"acceleratorClasses": ["a100"]}
    items = draw(st.lists(entries(), min_size=0, max_size=3))
    doc = (
        serving_runtime(name, namespace=draw(st.sampled_from([None, "demo", "other"])), **kwargs)
        if draw(st.booleans())
        else runtime_doc(name, **kwargs)
    )
    doc["spec"]["supportedModelFormats"] = items
    if size_range is not None:
        doc["spec"]["modelSizeRange"] = size_range
    return doc


@st.composite
def requests(draw):
    names = draw(st.lists(st.sampled_from("abcdefgh"), min_size=0, max_size=7, unique=True))
    docs = [draw(runtimes(name)) for name in names]
    model = model_doc(
        format_version=draw(VERSIONS),
        framework=draw(st.sampled_from(["transformers", None])),
        framework_version=draw(VERSIONS),
        size=draw(SIZES),
    )
    body = rank_body(model, *docs)
    if draw(st.booleans()):
        annotations = {"ome.io/accelerator-class": "a100"} if draw(st.booleans()) else None
        body["inferenceService"] = isvc_doc(annotations=annotations)
    body["omeVersion"] = draw(st.sampled_from(["1.3", "1.2"]))
    return body
