"""OME's *Select accelerators* page (rules §20.9) as the API tests send it: the model, the runtime
that lists two classes, the classes, and the InferenceService that names them."""

from __future__ import annotations

MODEL = {
    "apiVersion": "ome.io/v1beta1",
    "kind": "ClusterBaseModel",
    "metadata": {"name": "llama-3-3-70b-instruct"},
    "spec": {
        "modelFormat": {"name": "safetensors", "version": "1.0.0"},
        "modelFramework": {"name": "transformers", "version": "4.47.0.dev0"},
    },
}
RUNTIME = {
    "apiVersion": "ome.io/v1beta1",
    "kind": "ClusterServingRuntime",
    "metadata": {"name": "srt-llama-3-3-70b-instruct"},
    "spec": {
        "supportedModelFormats": [
            {
                "modelFormat": {"name": "safetensors", "version": "1.0.0"},
                "modelFramework": {"name": "transformers", "version": "4.47.0.dev0"},
            }
        ],
        "acceleratorRequirements": {"acceleratorClasses": ["nvidia-h100", "nvidia-h200"]},
    },
}


def accelerator_class(name: str, memory: str, bandwidth: int, per_hour: str) -> dict:
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "AcceleratorClass",
        "metadata": {"name": name},
        "spec": {
            "vendor": "nvidia",
            "discovery": {"nodeSelector": {"nvidia.com/gpu.product": name}},
            "capabilities": {
                "memoryGB": memory,
                "memoryBandwidthGBps": bandwidth,
                "performance": {"fp16Tflops": 989},
            },
            "cost": {"perHour": per_hour},
            "resources": [{"name": "nvidia.com/gpu", "quantity": "1"}],
        },
    }


H100 = accelerator_class("nvidia-h100", "80Gi", 3350, "10")
H200 = accelerator_class("nvidia-h200", "141Gi", 4800, "12")
CLASSES = [H100, H200]


def isvc(**spec) -> dict:
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "llama-3-3-70b", "namespace": "llama-demo"},
        "spec": {
            "model": {"name": "llama-3-3-70b-instruct"},
            "runtime": {"name": "srt-llama-3-3-70b-instruct"},
            "engine": {"minReplicas": 1},
            **spec,
        },
    }


def body(service: dict, classes: list | None = None, **extra) -> dict:
    return {
        "model": MODEL,
        "runtimes": [RUNTIME],
        "inferenceService": service,
        "acceleratorClasses": CLASSES if classes is None else classes,
        **extra,
    }
