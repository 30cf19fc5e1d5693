"""OME's own manifests through the service: every model and InferenceService sample of an OME
checkout, posted as YAML together with all of OME's shipped runtimes, must get a 200 or one of
OME's own refusals (``ModelNotReady``, ``ModelNotFound`` …), never a 400/422 for a file that
``kubectl apply`` would take. Also times those requests as YAML and as the same documents in JSON,
and checks that the objects' stored form (what ``ome-ranker push`` and ``--server`` send, rules
§17 "Stored is what is read") gets the same answer as the whole manifests.

The manifests are not part of this repository; point the script at an OME checkout::

    .venv/bin/python -m bench.ome_manifests /path/to/ome/config

It prints the outcomes by status and code, the files that got anything else, and the timings.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from app import create_app
from app.reading.manifests import collect
from app.reading.yaml_loader import load_documents
from app.schemas.stored import stored_form
from config.settings import TestConfig

# Answers OME itself gives for such inputs (SPEC §7, §15, §17): acceptable outcomes.
OME_REFUSALS = {"ModelNotReady", "ModelNotFound"}
# Both forms computed: the JSON request follows the YAML one and would find its answer cached.
YAML_HEADERS = {"Content-Type": "application/yaml", "Cache-Control": "no-cache"}
JSON_HEADERS = {"Content-Type": "application/json", "Cache-Control": "no-cache"}
MODEL_KINDS = ("BaseModel", "ClusterBaseModel")


def _manifests(directory: Path) -> list[Path]:
    return [p for p in sorted(directory.rglob("*.yaml")) if p.name != "kustomization.yaml"]


def _documents(raw: bytes) -> list:
    return [d for d in load_documents(raw) if isinstance(d, dict)]


def _model_files(models: list[Path]) -> dict[str, bytes]:
    by_name = {}
    for path in models:
        raw = path.read_bytes()
        for document in _documents(raw):
            if document.get("kind") in MODEL_KINDS:
                by_name[document["metadata"]["name"]] = raw
    return by_name


def _isvc_model(raw: bytes) -> str | None:
    for document in _documents(raw):
        if document.get("kind") == "InferenceService":
            model = (document.get("spec") or {}).get("model") or {}
            return model.get("name")
    return None


def run(config_dir: Path) -> int:
    settings = TestConfig()
    settings.CACHE_LOCAL_ENTRIES = 0  # every request computed
    settings.STORE_PATH = str(Path(tempfile.mkdtemp(prefix="ome-ranker-bench-")) / "c.sqlite3")
    client = create_app(settings).test_client()
    runtime_files = _manifests(config_dir / "runtimes")
    runtimes = b"".join(b"\n---\n" + path.read_bytes() for path in runtime_files)
    models = _manifests(config_dir / "models")
    model_by_name = _model_files(models)
    bodies: list[tuple[str, str, bytes]] = [
        ("model", str(path), path.read_bytes() + runtimes) for path in models
    ]
    for path in _manifests(config_dir / "samples" / "isvc"):
        raw = path.read_bytes()
        model = model_by_name.get(_isvc_model(raw) or "")
        extra = b"\n---\n" + model if model else b""
        bodies.append(("sample", str(path), raw + extra + runtimes))

    outcomes: Counter = Counter()
    unexpected = []
    yaml_seconds, json_seconds = [], []
    whole_bytes = stored_bytes = 0
    for what, name, body in bodies:
        started = time.perf_counter()
        response = client.post("/v1/rank", data=body, headers=YAML_HEADERS)
        yaml_seconds.append(time.perf_counter() - started)
        code = (response.get_json() or {}).get("error", {}).get("code")
        outcomes[(what, response.status_code, code)] += 1
        if response.status_code != 200 and code not in OME_REFUSALS:
            unexpected.append((name, response.status_code, response.get_data(as_text=True)[:300]))
            continue
        objects = [obj for _, obj in collect(_documents(body))]
        as_json = json.dumps(objects).encode()
        started = time.perf_counter()
        whole = client.post("/v1/rank", data=as_json, headers=JSON_HEADERS)
        json_seconds.append(time.perf_counter() - started)
        stored = json.dumps([stored_form(obj) for obj in objects]).encode()
        if client.post("/v1/rank", data=stored, headers=JSON_HEADERS).data != whole.data:
            unexpected.append((name, whole.status_code, "the stored form is answered otherwise"))
        stored_bytes += len(stored)
        whole_bytes += len(as_json)

    print(f"{len(runtime_files)} runtime files, {len(models)} model files, {len(bodies)} requests")
    for (what, status, code), count in sorted(outcomes.items(), key=str):
        print(f"  {what:6} {status} {code or '-':16} {count}")
    for name, status, text in unexpected:
        print(f"UNEXPECTED {status} {name}: {text}")
    if whole_bytes:
        print(
            f"stored forms: the same answers from {stored_bytes / whole_bytes:.0%} of the JSON "
            "bytes of the whole manifests"
        )
    if yaml_seconds and json_seconds:
        yaml_ms = statistics.median(yaml_seconds) * 1000
        json_ms = statistics.median(json_seconds) * 1000
        print(
            f"median request: YAML {yaml_ms:.1f} ms, the same documents as JSON {json_ms:.1f} ms "
            f"({yaml_ms / json_ms:.2f}x)"
        )
    return 1 if unexpected else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config_dir", type=Path, help="an OME checkout's config/ directory")
    args = parser.parse_args()
    if not (args.config_dir / "runtimes").is_dir():
        parser.error(f"{args.config_dir} has no runtimes/ directory")
    return run(args.config_dir)


if __name__ == "__main__":
    sys.exit(main())
