"""The placement's inputs from plain documents (rules §20.1, §20.8, §20.10 items 4, 19, 20)."""

import pytest

from app.selection.values.accelerator_classes import (
    AcceleratorClass,
    PlacementDocumentError,
    classes_known,
    latest_classes,
)
from app.selection.values.accelerator_requests import AcceleratorRequest, RuntimeExtras
from tests.selection.placement.builders import class_doc, h100


def test_a_class_document():
    accelerator = AcceleratorClass.from_mapping(h100())
    assert accelerator.name == "nvidia-h100"
    assert accelerator.memory_gb is not None and accelerator.memory_gb.whole_gib == 80
    assert accelerator.cost is not None and accelerator.cost.per_hour is not None
    assert accelerator.cost.per_hour.raw == "10"
    assert accelerator.cost.tier == ""


def test_a_class_without_spec_has_nothing():
    accelerator = AcceleratorClass.from_mapping({"metadata": {"name": "x", "namespace": "ignored"}})
    assert accelerator == AcceleratorClass("x")


def test_a_resource_without_a_quantity_asks_for_one():
    doc = class_doc("x", resources=[{"name": "gpu"}, {"name": "rdma", "quantity": "500m"}])
    resources = AcceleratorClass.from_mapping(doc).resources
    assert [(item.name, item.quantity) for item in resources] == [("gpu", "1"), ("rdma", "500m")]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"memory": "80 Gi"}, "spec.capabilities.memoryGB"),
        ({"bandwidth": "1e1.5"}, "spec.capabilities.memoryBandwidthGBps"),
        ({"cost": {"perHour": "1e30"}}, "spec.cost.perHour"),
        ({"performance": {"fp16Tflops": 2**63}}, "spec.capabilities.performance.fp16Tflops"),
        ({"performance": {"int4Tops": "5"}}, "spec.capabilities.performance.int4Tops"),
        ({"resources": [{"name": "gpu", "quantity": "x"}]}, "spec.resources[0].quantity"),
        ({"resources": [{"quantity": "1"}]}, "spec.resources[0].name"),
    ],
)
def test_fields_omes_crd_refuses(fields, field):
    with pytest.raises(PlacementDocumentError) as refused:
        AcceleratorClass.from_mapping(class_doc("x", **fields))
    assert refused.value.field == field


def test_the_last_class_of_a_name_is_kept_and_repeats_are_counted():
    first, second = class_doc("a", memory="1Gi"), class_doc("a", memory="2Gi")
    held, repeated = latest_classes(
        AcceleratorClass.from_mapping(doc) for doc in (first, class_doc("b"), second)
    )
    assert list(held) == ["a", "b"]
    memory = held["a"].memory_gb
    assert memory is not None and memory.whole_gib == 2
    assert [(r.kind, r.name, r.count) for r in repeated] == [("AcceleratorClass", "a", 2)]


@pytest.mark.parametrize(
    ("setting", "held", "known"),
    [(None, 0, False), (None, 1, True), (True, 0, True), (False, 3, False)],
)
def test_when_classes_are_known(setting, held, known):
    assert classes_known(setting, held) is known


def test_an_inference_services_accelerator_fields():
    request = AcceleratorRequest.from_mapping(
        {
            "spec": {
                "acceleratorSelector": {
                    "policy": "BestFit",
                    "constraints": {"minMemory": 80, "preferredPrecisions": ["fp8"]},
                },
                "engine": {"acceleratorOverride": {"acceleratorClass": ""}},
                "decoder": {"runner": {"resources": {"requests": {"cpu": "1"}}}},
            }
        }
    )
    assert request.selector is not None and request.selector.constraints is not None
    assert request.selector.constraints.min_memory == 80
    assert request.selector.constraints.preferred_precisions == ("fp8",)
    assert request.engine is not None and request.engine.override is not None
    assert request.engine.override.accelerator_class == ""
    assert request.decoder is not None and request.decoder.runner_sets_resources
    assert not request.engine.runner_sets_resources
    assert AcceleratorRequest.from_mapping({"spec": {}}) == AcceleratorRequest()


@pytest.mark.parametrize(
    ("selector", "field"),
    [
        ({"policy": ""}, "spec.acceleratorSelector.policy"),
        ({"policy": "bestfit"}, "spec.acceleratorSelector.policy"),
        ({"constraints": {"minMemory": -1}}, "spec.acceleratorSelector.constraints.minMemory"),
        ({"constraints": {"maxMemory": True}}, "spec.acceleratorSelector.constraints.maxMemory"),
        (
            {"constraints": {"minComputePerformanceTFLOPS": 2**63}},
            "spec.acceleratorSelector.constraints.minComputePerformanceTFLOPS",
        ),
    ],
)
def test_selector_fields_the_crd_refuses(selector, field):
    with pytest.raises(PlacementDocumentError) as refused:
        AcceleratorRequest.from_mapping({"spec": {"acceleratorSelector": selector}})
    assert refused.value.field == field
    with pytest.raises(PlacementDocumentError):
        AcceleratorRequest.from_mapping({"spec": {"decoder": {"acceleratorOverride": selector}}})


def test_a_runtimes_entry_names_and_accelerator_configs():
    extras = RuntimeExtras.from_mapping(
        {
            "spec": {
                "supportedModelFormats": [
                    {"name": "a", "acceleratorConfig": {"x": {}}},
                    {},
                    {"name": "", "acceleratorConfig": None},
                ]
            }
        }
    )
    assert [extras.name(index) for index in range(4)] == ["a", None, "", None]
    assert [extras.accelerator_config(index) for index in range(4)] == [{"x": {}}, None, None, None]
