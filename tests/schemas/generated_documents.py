"""Documents for the plain loaders' agreement with the schemas (``test_fast_runtime``,
``test_fast_documents``): optional members, odd values, and documents changed at one or two of
their places, the corners between valid and not."""

from __future__ import annotations

import copy
from collections.abc import Iterator

from hypothesis import strategies as st

from app.selection.values import MAX_VALUE_CHARS

MISSING = object()

# Values of every JSON type, and the awkward ones next to the right ones (a string just within
# the bound on the strings the rules read, and one just over it).
AT_BOUND, OVER_BOUND = "v" * MAX_VALUE_CHARS, "v" * (MAX_VALUE_CHARS + 1)
ODD = st.sampled_from(
    [
        *(None, "", "x", AT_BOUND, OVER_BOUND, 0, 1, -1, 2.0, 1.5, True, False),
        *([], ["a"], [None], {}, {"name": "x"}),
    ]
)
TEXT = st.one_of(st.sampled_from(["", "Equal", "GreaterThan", "1.0.0", "a"]), st.text(max_size=4))


def maybe(strategy):
    """An optional field: present with a plausible value, null, or absent."""
    return st.one_of(strategy, strategy, st.none(), st.just(MISSING))


def document(**members):
    return st.fixed_dictionaries(members).map(
        lambda drawn: {key: value for key, value in drawn.items() if value is not MISSING}
    )


def places_of(value):
    """Every (container, key) of a nested document, the root's members included."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        yield value, key
        if isinstance(item, dict | list):
            yield from places_of(item)


@st.composite
def changed(draw, strategy, odd):
    """A document of ``strategy``, then up to two members replaced by values of ``odd`` or
    removed."""
    # A copy: st.just and sampled_from hand out the same objects to every example, and the
    # members replaced below would otherwise change them for the examples after this one.
    value = copy.deepcopy(draw(strategy))
    for _ in range(draw(st.integers(0, 2))):
        container, key = draw(st.sampled_from(list(places_of(value))))
        if isinstance(container, dict) and draw(st.booleans()):
            del container[key]
        else:
            # A copy: ODD hands out the same list and dict objects, which a later mutation
            # could otherwise change in place (even put inside themselves).
            container[key] = copy.deepcopy(draw(odd))
    return value


def single_changes(full: dict, replacements: list) -> Iterator[dict]:
    """``full`` with one member replaced by each of ``replacements``, or removed: every place."""
    count = sum(1 for _ in places_of(full))
    for index in range(count):
        for replacement in [MISSING, *replacements]:
            value = copy.deepcopy(full)
            container, key = list(places_of(value))[index]
            if replacement is MISSING:
                if not isinstance(container, dict):
                    continue
                del container[key]
            else:
                container[key] = replacement
            yield value


# Runtime documents (test_fast_runtime, tests/reading/test_fast_request.py).
def ints(low=-3, high=12):
    return st.integers(low, high)


ENTRY_REF = document(
    name=TEXT,
    version=maybe(TEXT),
    operator=maybe(TEXT),
    weight=maybe(st.one_of(ints(), st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1]))),
)
ENTRY = document(
    name=maybe(TEXT),
    modelFormat=maybe(ENTRY_REF),
    modelFramework=maybe(ENTRY_REF),
    modelArchitecture=maybe(TEXT),
    quantization=maybe(TEXT),
    autoSelect=maybe(st.booleans()),
    priority=maybe(st.one_of(ints(1, 9), st.sampled_from([2**31 - 1, 2**31, 2**40]))),
    modelCacheProviders=maybe(st.lists(TEXT, max_size=2)),
    diffusionPipeline=st.one_of(st.just(MISSING), st.none(), st.just({"className": "P"})),
    containers=maybe(st.just([{"image": "x"}])),
    acceleratorConfig=maybe(
        st.sampled_from([{}, {"a": {"tensorParallelismOverride": {"tensorParallelSize": 2}}}]) | ODD
    ),
)
ANNOTATIONS = document(**{"ome.io/deploymentMode": maybe(TEXT), "other": maybe(ints())})
RUNTIME = document(
    apiVersion=maybe(st.just("ome.io/v1beta1")),
    kind=st.sampled_from(["ServingRuntime", "ClusterServingRuntime"]),
    metadata=document(
        name=st.text(min_size=1, max_size=4),
        namespace=maybe(TEXT),
        annotations=maybe(document(**{"ome.io/inherit-from": maybe(TEXT), "x": maybe(ints())})),
    ),
    spec=document(
        disabled=maybe(st.booleans()),
        supportedModelFormats=maybe(st.lists(ENTRY, max_size=3)),
        modelSizeRange=maybe(document(min=maybe(TEXT), max=maybe(TEXT))),
        acceleratorRequirements=maybe(
            document(acceleratorClasses=maybe(st.lists(TEXT, max_size=2)))
        ),
        engineConfig=maybe(document(annotations=maybe(ANNOTATIONS))),
        decoderConfig=maybe(document(annotations=maybe(ANNOTATIONS))),
        protocolVersions=maybe(st.lists(TEXT, max_size=2)),
    ),
)


def mutated_runtimes():
    """A valid runtime document, then up to two members replaced by odd values or removed,
    or the odd keys the schema does not know added: the corners between valid and not."""
    return changed(RUNTIME, st.one_of(ODD, st.integers(-2, 2)))


FULL_RUNTIME = {
    "apiVersion": "ome.io/v1beta1",
    "kind": "ServingRuntime",
    "metadata": {
        "name": "rt",
        "namespace": "demo",
        "labels": {"a": "b"},
        "annotations": {"ome.io/inherit-from": "base", "other": "x"},
    },
    "spec": {
        "disabled": False,
        "supportedModelFormats": [
            {
                "name": "e",
                "modelFormat": {
                    "name": "safetensors",
                    "version": "1",
                    "operator": "Equal",
                    "weight": 2,
                },
                "modelFramework": {"name": "transformers", "version": "4", "weight": 0},
                "modelArchitecture": "LlamaForCausalLM",
                "quantization": "fp8",
                "autoSelect": True,
                "priority": 2,
                "modelCacheProviders": ["lustre", "nfs"],
                "version": "1.0.0",
            }
        ],
        "modelSizeRange": {"min": "1B", "max": "8B"},
        "acceleratorRequirements": {"acceleratorClasses": ["a100"]},
        "engineConfig": {"annotations": {"ome.io/deploymentMode": "RawDeployment"}},
        "decoderConfig": {"annotations": {"ome.io/deploymentMode": "MultiNode"}},
        "protocolVersions": ["openAI"],
    },
}
