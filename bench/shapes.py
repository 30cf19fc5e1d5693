"""Workload shapes for the cold rows: bodies a benchmark tuned to one catalog would not foresee.

Beside the benchmark's own catalog (``bench/manifests.py``: a fifth of the runtimes compatible,
entries drawn from a few formats and frameworks, so the per-request memo of entries hits):

- ``incompatible``: ~95 % of the runtimes fail, every entry with its own random format name,
  version, operator, weight, priority, architecture and framework, so no two entries share the
  fields a per-entry memo keys on;
- ``ome``: OME's own runtime files (an OME checkout's ``config/runtimes``), ranked against each
  of its models (``config/models``), one body per model, sent as JSON;
- ``wide``: few runtimes, each with many entries (the same random entries);
- ``namespaces``: namespaced runtimes spread over many namespaces, the model's among them.

Each generated shape is seeded (same arguments, same bytes) and carries what a cluster's runtimes
carry besides what selection reads (``manifests.py``'s containers, labels, annotations), so that
the orjson round trip it is compared with pays for realistic bytes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from app.reading.yaml_loader import load_documents

from .manifests import TARGET_NAMESPACE, model_manifest, runtime_manifest, set_limits

SEED = 20261205
FORMAT_NAMES = ("safetensors", "onnx", "gguf", "pytorch", "tensorrt", "mlx", "openvino", "awq")
FRAMEWORK_NAMES = ("transformers", "vllm", "sglang", "tensorrt-llm", "llama.cpp", "diffusers")
ARCHITECTURES = (
    "LlamaForCausalLM",
    "MistralForCausalLM",
    "MixtralForCausalLM",
    "Qwen2ForCausalLM",
    "Qwen3MoeForCausalLM",
    "GemmaForCausalLM",
    "Gemma2ForCausalLM",
    "Phi3ForCausalLM",
    "DeepseekV3ForCausalLM",
    "CohereForCausalLM",
)
OPERATORS = (None, None, "Equal", "GreaterThan", "GreaterThanOrEqual")
SIZES = (None, ("1B", "8B"), ("7B", "70B"), ("30B", "405B"), ("500M", "3B"), ("1B", None))
ACCELERATORS = (None, None, ("H100",), ("A100", "H100"), ("L40S",), ("MI300X",))
COMPATIBLE_SHARE = 0.06


def _version(rng: random.Random) -> str:
    return f"{rng.randint(0, 9)}.{rng.randint(0, 60)}.{rng.randint(0, 99)}"


def _ref(rng: random.Random, names: tuple[str, ...]) -> dict[str, Any]:
    ref: dict[str, Any] = {"name": rng.choice(names), "version": _version(rng)}
    operator = rng.choice(OPERATORS)
    if operator is not None:
        ref["operator"] = operator
    if rng.random() < 0.7:
        ref["weight"] = rng.randint(-3, 20)
    return ref


def random_entry(rng: random.Random, compatible: bool) -> dict[str, Any]:
    """An entry with its own random fields; ``compatible``: one that matches the model of
    ``manifests.model_manifest`` (its own weight, priority, operator)."""
    if compatible:
        fmt = {"name": "safetensors", "version": "1.0.0", "weight": rng.randint(1, 20)}
        # The entry's version is the left side (rules §8): GreaterThanOrEqual 4.46.0 takes 4.45.0.
        framework = rng.choice(
            (
                {"name": "transformers", "version": "4.45.0"},
                {"name": "transformers", "version": "4.46.0", "operator": "GreaterThanOrEqual"},
            )
        )
        architecture = "LlamaForCausalLM"
    else:
        fmt, framework = _ref(rng, FORMAT_NAMES), _ref(rng, FRAMEWORK_NAMES)
        architecture = rng.choice(ARCHITECTURES)
    entry: dict[str, Any] = {
        "name": fmt["name"],
        "modelFormat": fmt,
        "modelFramework": framework,
        "modelArchitecture": architecture,
        "autoSelect": compatible or rng.random() < 0.8,
        "priority": rng.randint(1, 100),
    }
    if not compatible and rng.random() < 0.1:
        entry["quantization"] = rng.choice(("fp8", "int4", "awq"))
    return entry


def random_runtime(
    index: int, rng: random.Random, entries: int, namespace: str | None = None
) -> dict[str, Any]:
    """A runtime as ``manifests.runtime_manifest`` makes it, with ``entries`` random entries
    (~5 % of runtimes with one that matches) and random runtime-wide fields."""
    runtime = runtime_manifest(index, rng)
    spec = runtime["spec"]
    compatible = rng.random() < COMPATIBLE_SHARE
    spec["disabled"] = rng.random() < 0.02
    spec["supportedModelFormats"] = [
        random_entry(rng, compatible and n == entries - 1) for n in range(entries)
    ]
    set_limits(spec, rng.choice(SIZES), rng.choice(ACCELERATORS))
    if namespace is not None:
        runtime["kind"] = "ServingRuntime"
        runtime["metadata"]["namespace"] = namespace
    elif runtime["kind"] == "ServingRuntime":
        runtime["metadata"]["namespace"] = TARGET_NAMESPACE
    return runtime


def _body(runtimes: list[dict[str, Any]]) -> bytes:
    document = {"model": model_manifest(), "runtimes": runtimes, "namespace": TARGET_NAMESPACE}
    return json.dumps(document, separators=(",", ":")).encode()


def incompatible_body(runtimes: int = 1000, *, seed: int = SEED) -> bytes:
    """~95 % of ``runtimes`` incompatible, 1-4 random entries each."""
    rng = random.Random(seed)
    return _body([random_runtime(i, rng, rng.randint(1, 4)) for i in range(runtimes)])


def wide_body(runtimes: int = 10, entries: int = 200, *, seed: int = SEED) -> bytes:
    """Few runtimes, each with ``entries`` random entries."""
    rng = random.Random(seed)
    return _body([random_runtime(i, rng, entries) for i in range(runtimes)])


def namespaces_body(runtimes: int = 1000, namespaces: int = 250, *, seed: int = SEED) -> bytes:
    """Namespaced runtimes over ``namespaces`` namespaces (the model's one of them, holding
    its share), a tenth of the runtimes cluster-scoped."""
    rng = random.Random(seed)
    names = [TARGET_NAMESPACE, *(f"team-{n:04d}" for n in range(namespaces - 1))]
    documents = []
    for index in range(runtimes):
        cluster = rng.random() < 0.1
        namespace = None if cluster else rng.choice(names)
        runtime = random_runtime(index, rng, rng.randint(1, 4), namespace)
        if cluster:
            runtime["kind"] = "ClusterServingRuntime"
            runtime["metadata"].pop("namespace", None)
        documents.append(runtime)
    return _body(documents)


def _yaml_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*.yaml") if p.name != "kustomization.yaml")


def _documents(path: Path) -> Iterator[dict[str, Any]]:
    """The objects of one of OME's files, read as the service reads a YAML body."""
    for document in load_documents(path.read_bytes()):
        if isinstance(document, dict):
            yield document


def _ready(model: dict[str, Any]) -> bool:
    """Whether OME ranks runtimes for the model (rules §15): its ``modelFormat`` has a name
    (most of OME's files leave it to the model agent, and are answered ``ModelNotReady``)."""
    fmt = (model.get("spec") or {}).get("modelFormat") or {}
    return bool(fmt.get("name"))


def ome_bodies(config: Path) -> dict[str, bytes]:
    """One JSON body per Ready model of OME's ``config/models``: the model and every runtime of
    ``config/runtimes``, in the model's namespace for a BaseModel."""
    runtimes = [
        document
        for path in _yaml_files(config / "runtimes")
        for document in _documents(path)
        if document.get("kind") in ("ServingRuntime", "ClusterServingRuntime")
    ]
    bodies = {}
    for path in _yaml_files(config / "models"):
        for model in _documents(path):
            if model.get("kind") not in ("BaseModel", "ClusterBaseModel") or not _ready(model):
                continue
            body: dict[str, Any] = {"model": model, "runtimes": runtimes}
            namespace = (model.get("metadata") or {}).get("namespace")
            if model["kind"] == "BaseModel" or namespace:
                body["namespace"] = namespace or "default"
            bodies[model["metadata"]["name"]] = json.dumps(body, separators=(",", ":")).encode()
    return bodies


# The generated shapes, by name (``ome`` needs a checkout: ``ome_bodies``), each made by seed.
GENERATED: dict[str, Callable[..., bytes]] = {
    "incompatible": incompatible_body,
    "wide": wide_body,
    "namespaces": namespaces_body,
}


def fresh_bodies(count: int) -> dict[str, list[bytes]]:
    """Each generated shape's bodies of ``count`` other seeds: entries, references and versions
    no process-wide table of the service has met, as a cluster's next catalog would be."""
    seeds = range(SEED + 1, SEED + 1 + count)
    return {name: [make(seed=seed) for seed in seeds] for name, make in GENERATED.items()}


def generated_bodies() -> dict[str, bytes]:
    """The generated shapes' bodies of the benchmark's seed, by name."""
    return {name: make() for name, make in GENERATED.items()}
