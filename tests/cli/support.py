"""What the command-line tests share: ``invoke`` (``CliRunner`` on the real commands, the API
in-process), and manifests written to disk as a repository keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner, Result

from app.cli import cli
from tests.builders import entry, isvc_doc, model_doc, runtime_doc, serving_runtime
from tests.paths import ROOT

SEED = ROOT / "tests" / "fixtures" / "seed_example.yaml"
ACCELERATORS = ROOT / "tests" / "fixtures" / "select_accelerators.yaml"  # rules §20.9


# A developer's own settings must not send the tests' commands to their service.
CLEAN_ENVIRONMENT = {
    "OME_RANKER_SERVER": None,
    "OME_RANKER_TOKEN": None,
    "OME_RANKER_CA_FILE": None,
    "OME_RANKER_DOCS_URL": None,
}


def invoke(*args: str, input: bytes | str | None = None, env: dict | None = None) -> Result:
    """Run ``ome-ranker <args>``; a Python exception is a failure, never an exit code."""
    runner = CliRunner()
    environment = {**CLEAN_ENVIRONMENT, **(env or {})}
    return runner.invoke(cli, list(args), input=input, env=environment, catch_exceptions=False)


def write_yaml(path: Path, *documents: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return path


LLAMA = model_doc("llama", namespace="demo", size="8B")
QWEN = model_doc("qwen", namespace="demo", architecture="Qwen2ForCausalLM")
SVC = isvc_doc("chat", namespace="demo", model={"name": "llama"})
TEAM = serving_runtime("team", entry(priority=1), namespace="demo")
VLLM = runtime_doc("vllm", entry(priority=2))
SGLANG = runtime_doc("sglang", entry(priority=1, architecture="Qwen2ForCausalLM"))


def write_tree(tmp_path: Path) -> Path:
    """manifests/ as a repository keeps them: a model and its InferenceService, runtimes in
    files, a JSON one, and one in a subdirectory that only ``-R`` reads; a README beside them.

    manifests/app.yaml               the Namespace, model llama (line 6) and InferenceService chat
    manifests/runtimes/team.json     ServingRuntime team (JSON)
    manifests/runtimes/vllm.yaml     ClusterServingRuntime vllm, line 1
    manifests/runtimes/more/qwen.yml model qwen and ClusterServingRuntime sglang (a List)
    """
    root = tmp_path / "manifests"
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}
    write_yaml(root / "app.yaml", namespace, LLAMA, SVC)
    (root / "runtimes").mkdir(parents=True)
    (root / "runtimes" / "team.json").write_text(json.dumps(TEAM, indent=2))
    write_yaml(root / "runtimes" / "vllm.yaml", VLLM)
    write_yaml(
        root / "runtimes" / "more" / "qwen.yml",
        QWEN,
        {"apiVersion": "v1", "kind": "List", "items": [SGLANG]},
    )
    (root / "README.md").write_text("# not a manifest\n")
    return root


def line_of(path: Path, text: str) -> int:
    """The line (from 1) where ``text`` first appears in ``path``."""
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")


def place_of(path: Path, text: str) -> tuple[int, int]:
    """The line and column (from 1) where ``text`` first appears in ``path``."""
    line = line_of(path, text)
    return line, path.read_text().splitlines()[line - 1].index(text) + 1
