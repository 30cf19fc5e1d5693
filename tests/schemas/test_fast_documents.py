"""The plain-Python model and InferenceService loaders agree with the marshmallow schemas:
whenever one answers, the schema accepts the document and builds an equal document; and they do
answer for the plain, valid manifests a repository holds, which is what takes marshmallow off a
local lint."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from app.schemas.document_schemas import (
    inference_service_document_schema,
    model_document_schema,
)
from app.schemas.fast_documents import load_inference_service, load_model
from app.selection.values import MAX_URI_CHARS
from bench.repository import repository_objects
from tests.schemas.generated_documents import (
    MISSING,
    ODD,
    TEXT,
    changed,
    document,
    maybe,
    single_changes,
)

NAME = st.sampled_from(["m", "llama-3", "a.b", "Bad_Name", "", "-x"])
NAMESPACE = st.sampled_from(["", "demo", "Demo", "x" * 64])
SCALAR = st.one_of(TEXT, st.none(), st.integers(-1, 2), st.booleans())
METADATA = document(name=NAME, namespace=maybe(NAMESPACE), labels=maybe(st.just({"a": "b"})))
REF = document(name=maybe(TEXT), version=maybe(TEXT), kind=maybe(TEXT))
URIS = st.sampled_from(["pvc://claim/m", "hf://org/m", "pvc://" + "x" * MAX_URI_CHARS, ""])

MODEL = document(
    apiVersion=maybe(st.sampled_from(["ome.io/v1beta1", "ome.io/v1"])),
    kind=st.sampled_from(["BaseModel", "ClusterBaseModel"]),
    metadata=METADATA,
    spec=document(
        modelFormat=maybe(REF),
        modelFramework=maybe(REF),
        modelArchitecture=maybe(TEXT),
        quantization=maybe(TEXT),
        modelParameterSize=maybe(TEXT),
        diffusionPipeline=st.one_of(st.just(MISSING), st.none(), st.just({"className": "P"})),
        distribution=maybe(TEXT),
        disabled=maybe(st.booleans()),
        storage=maybe(document(storageUri=maybe(URIS), path=maybe(TEXT))),
    ),
)
ANNOTATIONS = document(
    **{
        "ome.io/accelerator-class": maybe(TEXT),
        "ome.io/deploymentMode": maybe(TEXT),
        "other": maybe(st.integers(0, 2)),
    }
)
SELECTOR = document(
    acceleratorClass=maybe(TEXT),
    policy=maybe(st.sampled_from(["BestFit", "Cheapest", "Nope"])),
    constraints=maybe(st.sampled_from([{}, {"minMemory": 80}, {"minMemory": -1}, "x"])),
)
COMPONENT = document(
    annotations=maybe(ANNOTATIONS),
    acceleratorOverride=maybe(SELECTOR),
    runner=maybe(st.just({"image": "x"})),
)
SERVICE = document(
    apiVersion=maybe(st.sampled_from(["ome.io/v1beta1", "ome.io/v1"])),
    kind=st.just("InferenceService"),
    metadata=document(name=NAME, namespace=maybe(NAMESPACE), annotations=maybe(ANNOTATIONS)),
    spec=document(
        model=maybe(REF),
        runtime=maybe(REF),
        deploymentMode=maybe(TEXT),
        acceleratorSelector=maybe(SELECTOR),
        engine=maybe(COMPONENT),
        decoder=maybe(COMPONENT),
    ),
)
LOADERS = {
    "model": (MODEL, load_model, model_document_schema),
    "service": (SERVICE, load_inference_service, inference_service_document_schema),
}


def schema_load(schema, value):
    try:
        return schema.load(value)
    except ValidationError:
        return None


def _agrees(kind, value):
    _, load, schema = LOADERS[kind]
    fast = load(value)
    if fast is not None:
        expected = schema_load(schema, value)
        assert expected is not None, "the fast loader accepted what the schema rejects"
        assert repr(fast) == repr(expected)
    return fast


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_agrees_with_the_schema_whenever_it_answers(kind):
    strategy = LOADERS[kind][0]

    @settings(
        max_examples=6 * settings.default.max_examples,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(changed(strategy, st.one_of(ODD, SCALAR)))
    def check(value):
        _agrees(kind, value)

    check()


FULL = {
    "model": repository_objects(10)["models/model-00000.yaml"],
    "service": {
        "apiVersion": "ome.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {
            "name": "svc",
            "namespace": "demo",
            "annotations": {"ome.io/accelerator-class": "a100"},
        },
        "spec": {
            "model": {"name": "m", "kind": "BaseModel"},
            "runtime": {"name": "rt", "kind": "ServingRuntime"},
            "deploymentMode": "RawDeployment",
            "acceleratorSelector": {"acceleratorClass": "a100", "policy": "BestFit"},
            "engine": {
                "annotations": {"ome.io/deploymentMode": "MultiNode"},
                "acceleratorOverride": {"acceleratorClass": "h100"},
                "runner": {"image": "x"},
            },
            "decoder": {"annotations": {}},
        },
    },
}
REPLACEMENTS = [None, "", "x", 0, 1, 2.0, True, [], ["a"], {}, {"k": 1}]


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_agrees_with_the_schema_on_every_single_change(kind):
    answered = 0
    for value in single_changes(FULL[kind], REPLACEMENTS):
        answered += _agrees(kind, value) is not None
    assert answered > 20  # the changes that keep a document plain and valid


def test_answers_for_a_generated_repository():
    """Every model and InferenceService of the command line's benchmark repository loads
    without marshmallow, to the schema's document."""
    loaded = 0
    for path, value in repository_objects(200).items():
        kind = "model" if path.startswith("models/") else "service"
        if path.startswith("runtimes/"):
            continue
        assert _agrees(kind, value) is not None, path
        loaded += 1
    assert loaded == 140


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("model", {**FULL["model"], "kind": "ServingRuntime"}),
        ("service", {**FULL["service"], "apiVersion": "v1"}),
        ("model", {**FULL["model"], "spec": {"diffusionPipeline": {"className": "P"}}}),
        ("service", {**FULL["service"], "spec": {"acceleratorSelector": {"policy": "Nope"}}}),
        ("model", {**FULL["model"], "metadata": {"name": "Bad_Name"}}),
    ],
)
def test_leaves_the_unusual_to_the_schema(kind, value):
    assert LOADERS[kind][1](value) is None
