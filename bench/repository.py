"""A repository of manifests as a team keeps one, one object per file, generated
deterministically: 30 % runtimes (``bench.manifests``' realistic ones), 20 % models (copies of
its BaseModel under other names), 50 % InferenceServices, each naming one of the models in turn.
200 files are 60 runtimes, 40 models and 100 InferenceServices; 2 000 files ask 400 questions of
600 runtimes each, more runtime checks than the service allows one request
(``OME_RANKER_MAX_RUNTIME_CHECKS``), which the command line lifts."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import yaml

from .manifests import SEED, inference_services, model_copies, model_manifest, runtime_manifest


def repository_objects(files: int, *, seed: int = SEED) -> dict[str, dict[str, Any]]:
    """``{relative path: manifest}`` for a repository of ``files`` files."""
    runtimes, models = files * 3 // 10, files * 2 // 10
    services = files - runtimes - models
    rng = random.Random(seed)
    objects = {f"runtimes/runtime-{n:05d}.yaml": runtime_manifest(n, rng) for n in range(runtimes)}
    for n, model in enumerate(model_copies(model_manifest(), models)):
        objects[f"models/model-{n:05d}.yaml"] = model
    for n, service in enumerate(inference_services(services, max(models, 1))):
        objects[f"services/service-{n:05d}.yaml"] = service
    return objects


def write_repository(root: Path, files: int) -> Path:
    """The repository written under ``root`` (created), as ``yaml.safe_dump`` writes each file."""
    for relative, manifest in repository_objects(files).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(manifest, sort_keys=False))
    return root
