"""Realistic, deterministic request bodies: one BaseModel and N OME runtimes as real manifests.

Every runtime carries what a cluster's runtimes carry besides what selection reads: labels and
annotations, an ``engineConfig`` runner container (image, args, env, resources, volume mounts),
sometimes a ``decoderConfig`` and a router, protocol versions, a size range, accelerator
requirements. That matters for the figures: decoding and the JSON baseline pay for every byte,
validation skips the unknown fields, selection reads only its own.

The mix is fixed by a seeded ``random.Random``, so the same N always gives the same bytes:
about one runtime in five is compatible with the model, the rest fail on format, framework,
architecture, version, size or accelerator for varied reasons (each with its own explain text),
and a few namespaced runtimes sit in another namespace (listed as ignored).
"""

from __future__ import annotations

import json
import random
from typing import Any

API = "ome.io/v1beta1"
TARGET_NAMESPACE = "llama-demo"
OTHER_NAMESPACES = ("team-a", "team-b", "research")
SEED = 20240601

MODEL_NAME = "llama-3-1-8b-instruct"
ENGINES = (
    ("vllm", "docker.io/vllm/vllm-openai", ("v0.8.5", "v0.9.0", "v0.9.2")),
    ("srt", "docker.io/lmsysorg/sglang", ("v0.4.6", "v0.4.7", "v0.4.9")),
    ("trtllm", "nvcr.io/nvidia/tritonserver", ("25.03-trtllm", "25.05-trtllm")),
)
ARCHITECTURES = ("LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "GemmaForCausalLM")
FORMATS = (
    ("safetensors", "1.0.0"),
    ("safetensors", "1.0.0"),
    ("safetensors", "1.0.0"),
    ("onnx", "1.16.0"),
    ("gguf", "3.0.0"),
)
FRAMEWORKS = (
    ("transformers", "4.45.0"),
    ("transformers", "4.45.0"),
    ("transformers", "4.46.1"),
    ("vllm", "0.9.0"),
)
SIZE_RANGES = (
    None,
    None,
    ("1B", "8B"),
    ("1B", "70B"),
    ("7B", "13B"),
    ("30B", "405B"),
    ("1B", None),
)
ACCELERATORS = (None, None, None, ("H100",), ("A100", "H100"), ("L40S",))


def model_manifest() -> dict[str, Any]:
    return {
        "apiVersion": API,
        "kind": "BaseModel",
        "metadata": {
            "name": MODEL_NAME,
            "namespace": TARGET_NAMESPACE,
            "labels": {"app.kubernetes.io/part-of": "ome", "model-family": "llama"},
        },
        "spec": {
            "modelFormat": {"name": "safetensors", "version": "1.0.0"},
            "modelFramework": {"name": "transformers", "version": "4.45.0"},
            "modelArchitecture": "LlamaForCausalLM",
            "modelParameterSize": "8.03B",
            "maxTokens": 131072,
            "storage": {
                "storageUri": "hf://meta-llama/Llama-3.1-8B-Instruct",
                "path": "/raid/models/llama-3-1-8b-instruct",
                "key": "hf-token",
            },
        },
    }


def _entry(rng: random.Random, compatible: bool) -> dict[str, Any]:
    if compatible:
        fmt, framework, arch = ("safetensors", "1.0.0"), FRAMEWORKS[0], ARCHITECTURES[0]
    else:
        fmt, framework, arch = (
            rng.choice(FORMATS),
            rng.choice(FRAMEWORKS),
            rng.choice(ARCHITECTURES),
        )
    entry: dict[str, Any] = {
        "name": fmt[0],
        "modelFormat": {"name": fmt[0], "version": fmt[1]},
        "modelFramework": {"name": framework[0], "version": framework[1]},
        "modelArchitecture": arch,
        "autoSelect": rng.random() < 0.85,
    }
    if rng.random() < 0.4:
        entry["modelFormat"]["weight"] = rng.choice((0, 1, 2, 5))
    if rng.random() < 0.3:
        entry["modelFramework"]["weight"] = rng.choice((1, 2, 3))
    if rng.random() < 0.2:
        entry["modelFramework"]["operator"] = rng.choice(("GreaterThanOrEqual", "GreaterThan"))
        entry["modelFramework"]["version"] = "4.46.0" if compatible else framework[1]
    if rng.random() < 0.5:
        entry["priority"] = rng.randint(1, 5)
    return entry


def _container(rng: random.Random, engine: str, image: str, tag: str, gpus: int) -> dict:
    port = 8080
    return {
        "name": "ome-container",
        "image": f"{image}:{tag}",
        "command": ["python3", "-m", f"{engine}.entrypoints.openai.api_server"]
        if engine == "vllm"
        else ["python3", "-m", f"{engine}.launch_server"],
        "args": [
            "--port",
            str(port),
            "--model",
            "/mnt/models",
            "--served-model-name",
            "$(MODEL_NAME)",
            "--tensor-parallel-size",
            str(gpus),
            "--max-model-len",
            str(rng.choice((8192, 32768, 131072))),
            "--gpu-memory-utilization",
            "0.92",
        ],
        "env": [
            {"name": "MODEL_NAME", "value": MODEL_NAME},
            {"name": "HF_HOME", "value": "/tmp/hf_home"},
            {"name": "NCCL_DEBUG", "value": "WARN"},
            {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
        ],
        "ports": [{"containerPort": port, "name": "http1", "protocol": "TCP"}],
        "resources": {
            "requests": {"cpu": "10", "memory": "60Gi", "nvidia.com/gpu": str(gpus)},
            "limits": {"cpu": "10", "memory": "60Gi", "nvidia.com/gpu": str(gpus)},
        },
        "volumeMounts": [
            {"name": "dshm", "mountPath": "/dev/shm"},
            {"name": "model-weights", "mountPath": "/mnt/models", "readOnly": True},
        ],
        "readinessProbe": {
            "httpGet": {"path": "/health", "port": port},
            "initialDelaySeconds": 60,
            "periodSeconds": 10,
            "failureThreshold": 30,
        },
    }


def set_limits(
    spec: dict[str, Any],
    size: tuple[str, str | None] | None,
    accelerators: tuple[str, ...] | None,
) -> None:
    """A runtime spec's ``modelSizeRange`` (``(min, max)``, max None for one bound) and
    ``acceleratorRequirements``, each replaced, or removed for None."""
    spec.pop("modelSizeRange", None)
    spec.pop("acceleratorRequirements", None)
    if size is not None:
        low, high = size
        spec["modelSizeRange"] = {"min": low} if high is None else {"min": low, "max": high}
    if accelerators is not None:
        spec["acceleratorRequirements"] = {"acceleratorClasses": list(accelerators)}


def runtime_manifest(index: int, rng: random.Random) -> dict[str, Any]:
    """The ``index``-th runtime; names are unique per scope, so no request has duplicates."""
    engine, image, tags = rng.choice(ENGINES)
    tag = rng.choice(tags)
    compatible = rng.random() < 0.25
    namespaced = rng.random() < 0.2
    kind = "ServingRuntime" if namespaced else "ClusterServingRuntime"
    metadata: dict[str, Any] = {
        "name": f"{engine}-{index:05d}",
        "labels": {"app.kubernetes.io/managed-by": "ome", "runtime-engine": engine},
        "annotations": {"ome.io/description": f"{engine} {tag} runtime #{index}"},
    }
    if namespaced:
        in_target = rng.random() < 0.7
        metadata["namespace"] = TARGET_NAMESPACE if in_target else rng.choice(OTHER_NAMESPACES)
    gpus = rng.choice((1, 1, 2, 4, 8))
    spec: dict[str, Any] = {
        "disabled": rng.random() < 0.03,
        "supportedModelFormats": [
            _entry(rng, compatible and n == 0) for n in range(rng.randint(1, 4))
        ],
        "protocolVersions": ["openAI"],
        "engineConfig": {
            "annotations": {"ome.io/deploymentMode": "RawDeployment"},
            "minReplicas": 1,
            "maxReplicas": rng.choice((1, 2, 4)),
            "runner": _container(rng, engine, image, tag, gpus),
            "volumes": [
                {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
            ],
        },
    }
    set_limits(spec, rng.choice(SIZE_RANGES), rng.choice(ACCELERATORS))
    if rng.random() < 0.15:
        spec["decoderConfig"] = {
            "annotations": {"ome.io/deploymentMode": "RawDeployment"},
            "runner": _container(rng, engine, image, tag, gpus),
        }
        spec["routerConfig"] = {
            "runner": {
                "name": "router",
                "image": "ghcr.io/moirai-internal/sgl-router:0.1.4",
                "resources": {"limits": {"cpu": "1", "memory": "2Gi"}},
            }
        }
    return {"apiVersion": API, "kind": kind, "metadata": metadata, "spec": spec}


def rank_request_body(runtimes: int, *, seed: int = SEED) -> dict[str, Any]:
    """A ``/v1/rank`` JSON body with ``runtimes`` runtimes; same arguments, same body."""
    rng = random.Random(seed)
    return {
        "model": model_manifest(),
        "runtimes": [runtime_manifest(index, rng) for index in range(runtimes)],
        "namespace": TARGET_NAMESPACE,
    }


def encoded_body(runtimes: int, *, seed: int = SEED) -> bytes:
    """The body as a client sends it (compact JSON, as kubectl/requests would)."""
    return json.dumps(rank_request_body(runtimes, seed=seed), separators=(",", ":")).encode()


def inference_services(count: int, models: int, offset: int = 0) -> list[dict]:
    """``count`` InferenceServices over the ``models`` copies, the first naming ``offset``."""
    return [
        {
            "apiVersion": "ome.io/v1beta1",
            "kind": "InferenceService",
            "metadata": {"name": f"svc-{i}", "namespace": TARGET_NAMESPACE},
            "spec": {"model": {"name": f"{MODEL_NAME}-{(i + offset) % models}"}, "engine": {}},
        }
        for i in range(count)
    ]


def model_copies(model: dict, count: int) -> list[dict]:
    copies = []
    for i in range(count):
        copy = json.loads(json.dumps(model))
        copy["metadata"]["name"] = f"{MODEL_NAME}-{i}"
        copies.append(copy)
    return copies
