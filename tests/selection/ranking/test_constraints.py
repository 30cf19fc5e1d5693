"""The InferenceService's constraints on a runtime (app/selection/ranking/constraints.py): the
accelerator classes it names (rules §10) and the deployment modes it asks for (§11)."""

from __future__ import annotations

import pytest

from app.selection.ranking.constraints import (
    deployment_mode_mismatch,
    requested_modes,
    required_accelerator_classes,
    supports_accelerators,
    valid_mode,
)
from tests.builders import isvc_doc, loaded, runtime_doc

CLASS = "ome.io/accelerator-class"


def service(annotations=None, **spec):
    return loaded(isvc_doc("svc", annotations=annotations, model={"name": "llama"}, **spec))


def runtime(classes=None, engine_mode=None, decoder_mode=None):
    spec = {}
    if classes is not None:
        spec["acceleratorRequirements"] = {"acceleratorClasses": classes}
    for config, mode in (("engineConfig", engine_mode), ("decoderConfig", decoder_mode)):
        if mode is not None:
            spec[config] = {"annotations": {"ome.io/deploymentMode": mode}}
    return loaded(runtime_doc("rt", **spec))


def test_every_place_an_inference_service_names_a_class_counts():
    isvc = service(
        {CLASS: "a"},
        acceleratorSelector={"acceleratorClass": "b"},
        engine={"acceleratorOverride": {"acceleratorClass": "c"}},
        decoder={"acceleratorOverride": {"acceleratorClass": "c"}},
    )
    assert required_accelerator_classes(isvc) == {"a", "b", "c"}
    assert required_accelerator_classes(service()) == frozenset()
    assert required_accelerator_classes(None) == frozenset()


@pytest.mark.parametrize(
    ("offered", "required", "supported"),
    [
        (None, set(), True),
        (None, {"a"}, False),
        ([], {"a"}, False),  # an empty list offers none
        (["a", "b"], {"a"}, True),
        (["a"], {"a", "b"}, False),  # every class named must be offered
    ],
)
def test_a_runtime_supports_the_classes_it_lists(offered, required, supported):
    assert supports_accelerators(runtime(offered), frozenset(required)) is supported


@pytest.mark.parametrize("mode", ["RawDeployment", "MultiNode", "VirtualDeployment", "OMENative"])
def test_the_deployment_modes_ome_knows(mode):
    assert valid_mode(mode) == mode


@pytest.mark.parametrize("mode", [None, "", "Serverless", "multinode"])
def test_anything_else_is_no_mode(mode):
    assert valid_mode(mode) is None


def test_requested_modes_read_each_components_annotation_then_the_spec():
    annotated = {"annotations": {"ome.io/deploymentMode": "MultiNode"}}
    isvc = service(deploymentMode="RawDeployment", engine={}, decoder=annotated)
    assert requested_modes(isvc) == ("RawDeployment", "MultiNode")
    # rules §11: spec.deploymentMode applies to the engine even without spec.engine
    assert requested_modes(service(deploymentMode="MultiNode")) == ("MultiNode", None)
    invalid = {"annotations": {"ome.io/deploymentMode": "Serverless"}}
    assert requested_modes(service(deploymentMode="OMENative", engine=invalid)) == (
        "OMENative",
        None,
    )
    assert requested_modes(None) == (None, None)


def test_a_runtime_of_another_mode_is_named_by_its_component():
    assert deployment_mode_mismatch(runtime(decoder_mode="MultiNode"), None, "RawDeployment") == (
        "runtime decoder deployment mode MultiNode does not match requested decoder deployment "
        "mode RawDeployment"
    )
    assert deployment_mode_mismatch(runtime(engine_mode="MultiNode"), "OMENative", None) == (
        "runtime engine deployment mode MultiNode does not match requested engine deployment "
        "mode OMENative"
    )


@pytest.mark.parametrize(
    ("engine_mode", "wanted"),
    [(None, "MultiNode"), ("MultiNode", None), ("MultiNode", "MultiNode"), ("Turbo", "MultiNode")],
)
def test_modes_that_do_not_conflict(engine_mode, wanted):
    assert deployment_mode_mismatch(runtime(engine_mode=engine_mode), wanted, None) is None
