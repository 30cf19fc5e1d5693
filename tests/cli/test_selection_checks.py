"""``select --expect``/``--expect-class`` and ``impact`` in CI formats
(``app/cli/selection_checks.py``, ``reports.impact_report``): a miss is a result at the object
asked about, with the exit code the table gives."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

from tests.cli.support import ACCELERATORS, SEED, invoke, line_of
from tests.rendering.report_builders import valid_sarif

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_another_runtime_is_one_result_and_exit_1():
    result = invoke("select", "-f", str(SEED), "--expect", "vllm-llama", "-o", "sarif")
    assert result.exit_code == 1
    (item,) = valid_sarif(json.loads(result.stdout))["runs"][0]["results"]
    assert item["ruleId"] == "UnexpectedRuntime"
    assert item["message"]["text"].endswith("OME selects team-llama, not vllm-llama")
    region = item["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == line_of(SEED, "kind: BaseModel") - 1  # the model's first line
    assert result.stderr == "error: OME selects team-llama, not vllm-llama\n"


def test_the_expected_runtime_is_a_passing_case():
    result = invoke("select", "-f", str(SEED), "--expect", "team-llama", "-o", "junit")
    assert result.exit_code == 0
    (case,) = ElementTree.fromstring(result.stdout).iter("testcase")
    assert case.findall("failure") == []
    assert invoke("select", "-f", str(SEED), "-o", "github").stdout == ""


def test_a_class_pin_is_a_result_and_exit_4():
    result = invoke(
        "select", "-f", str(ACCELERATORS), "--expect-class", "nvidia-h200", "-o", "github"
    )
    assert result.exit_code == 4
    (command,) = result.stdout.splitlines()
    assert command.startswith("::error file=")
    assert "title=UnexpectedEngineClass::" in command
    assert command.endswith("OME gives the engine nvidia-h100, not nvidia-h200")


def test_no_runtime_is_a_result_with_omes_refusal(tmp_path):
    text = SEED.read_text().replace("name: safetensors", "name: onnx", 1)  # the model's format
    path = tmp_path / "seed.yaml"
    path.write_text(text)
    result = invoke("select", "-f", str(path), "-o", "junit")
    assert result.exit_code == 1
    (failure,) = ElementTree.fromstring(result.stdout).iter("failure")
    assert failure.get("type") == "NoRuntimeSelected"
    assert "NoRuntimeFound" in failure.get("message")


def test_impact_changes_are_results_at_the_proposed_inference_services():
    args = ("impact", "--current", str(EXAMPLES / "cluster.yaml"), "-R")
    args += ("--proposed", str(EXAMPLES / "manifests"))
    warned = invoke(*args, "-o", "github")
    assert warned.exit_code == 0
    (command,) = warned.stdout.splitlines()
    path = EXAMPLES / "manifests" / "inferenceservices.yaml"
    assert command.startswith(f"::warning file={path},line=")
    assert (
        "title=RuntimeChanged::InferenceService llama-demo/llama-chat: team-llama -> vllm-llama"
        in command
    )
    failed = invoke(*args, "-o", "junit", "--fail-on-change")
    assert failed.exit_code == 1
    (failure,) = ElementTree.fromstring(failed.stdout).iter("failure")
    assert failure.get("type") == "RuntimeChanged"
