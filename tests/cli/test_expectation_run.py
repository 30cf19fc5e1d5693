"""``ome-ranker test`` (``app/cli/expectation_run.py``, ``case_checks.py``): many expected
outcomes in one run, the misses at their expectations' lines in every format, and a name the
manifests do not hold refused before anything is asked."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml

from tests.cli.support import ACCELERATORS, SEED, invoke, line_of
from tests.rendering.report_builders import valid_sarif

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SEED_MODEL = "llama-3-2-3b-instruct"


def plan(tmp_path: Path, *cases: dict, **top) -> Path:
    path = tmp_path / "ome-ranker-test.yaml"
    path.write_text(yaml.safe_dump({**top, "cases": list(cases)}, sort_keys=False))
    return path


def run(path: Path, *args: str):
    return invoke("test", "--expectations", str(path), *args)


def model_case(runtime, **expect) -> dict:
    return {
        "model": SEED_MODEL,
        "namespace": "llama-demo",
        "expect": {"runtime": runtime, **expect},
    }


def test_the_example_passes_from_its_own_directory(monkeypatch):
    monkeypatch.chdir(EXAMPLES)  # manifests: [manifests/], recursive, from the file
    result = invoke("test")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "3 cases: 3 passed, 0 failed"


def test_a_miss_exits_1_at_the_expectations_line(tmp_path):
    path = plan(tmp_path, model_case("team-llama"), model_case("vllm-llama"))
    result = run(path, "-f", str(SEED))
    assert result.exit_code == 1
    line = line_of(path, "runtime: vllm-llama")
    assert result.stdout.splitlines() == [
        f"PASS  model llama-demo/{SEED_MODEL} ({path}:{line_of(path, '- model:')})",
        f"FAIL  model llama-demo/{SEED_MODEL} ({path}:{line - 3})",
        f"  {path}:{line}: UnexpectedRuntime: OME selects team-llama, not vllm-llama",
        "2 cases: 1 passed, 1 failed",
    ]
    assert result.stderr == "error: 1 of 2 cases failed\n"


def test_classes_findings_and_admission(tmp_path):
    isvc = "llama-demo/llama-3-3-70b"
    good = {
        "inferenceService": isvc,
        "expect": {
            "engineClass": "nvidia-h100",
            "admitted": True,
            "noFindings": ["UnknownField"],
        },
    }
    bad = {
        "name": "wrong on every count",
        "inferenceService": isvc,
        "expect": {
            "engineClass": "nvidia-h200",
            "admitted": False,
            "findings": ["NoAutoSelect"],
        },
    }
    path = plan(tmp_path, good, bad)
    result = run(path, "-f", str(ACCELERATORS), "-o", "json")
    assert result.exit_code == 1
    answer = json.loads(result.stdout)
    assert (answer["passed"], answer["failed"]) == (1, 1)
    codes = [f["code"] for f in answer["cases"][1]["failures"]]
    assert codes == ["UnexpectedEngineClass", "UnexpectedAdmission", "MissingFinding"]
    messages = [f["message"] for f in answer["cases"][1]["failures"]]
    assert messages[0] == "OME gives the engine nvidia-h100, not nvidia-h200"
    assert answer["cases"][1]["failures"][0]["line"] == line_of(path, "engineClass: nvidia-h200")


def test_no_runtime_expected(tmp_path):
    path = plan(tmp_path, model_case(None))
    result = run(path, "-f", str(SEED), "-o", "github")
    assert result.exit_code == 1
    (command,) = result.stdout.splitlines()
    assert command.startswith(f"::error file={path},line={line_of(path, 'runtime: null')},")
    assert "OME selects team-llama, expected none" in command


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        ({"runtime": "team-lama"}, "runtime team-lama is not in the manifests"),
        ({"engineClass": "nvidia-h10"}, "AcceleratorClass nvidia-h10 is not in the manifests"),
        ({"findings": ["NoAutoselect"]}, "code NoAutoselect is not in lint's codes"),
    ],
)
def test_a_name_the_manifests_do_not_hold_is_a_usage_error(tmp_path, expect, message):
    path = plan(tmp_path, {"model": SEED_MODEL, "namespace": "llama-demo", "expect": expect})
    result = run(path, "-f", str(SEED), "-f", str(ACCELERATORS))
    assert result.exit_code == 2
    assert message in result.stderr
    assert "did you mean" in result.stderr
    assert result.stdout == ""


def test_every_format_reads_the_same_misses(tmp_path):
    path = plan(tmp_path, model_case("team-llama"), model_case("vllm-llama"))
    log = valid_sarif(json.loads(run(path, "-f", str(SEED), "-o", "sarif").stdout))
    (item,) = log["runs"][0]["results"]
    region = item["locations"][0]["physicalLocation"]["region"]
    assert (item["ruleId"], region["startLine"]) == (
        "UnexpectedRuntime",
        line_of(path, "runtime: vllm-llama"),
    )
    suite = ElementTree.fromstring(run(path, "-f", str(SEED), "-o", "junit").stdout)[0]
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    as_yaml = yaml.safe_load(run(path, "-f", str(SEED), "-o", "yaml").stdout)
    assert as_yaml == json.loads(run(path, "-f", str(SEED), "-o", "json").stdout)


def test_the_manifests_are_read_once(tmp_path, monkeypatch):
    from app.cli import sources

    reads = []
    original = sources.parse
    monkeypatch.setattr(sources, "parse", lambda *a, **k: reads.append(a[1]) or original(*a, **k))
    path = plan(tmp_path, *(model_case("team-llama") for _ in range(3)))
    assert run(path, "-f", str(SEED)).exit_code == 0
    assert reads == [str(SEED)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cases: []\n", "cases: must be a list of at least one case"),
        ("cases:\n  - expect: {runtime: x}\n", "cases[0]: needs an inferenceService"),
        ("cases:\n  - model: m\n    expct: {}\n", "cases[0].expct: unknown setting; did you mean"),
        (
            "cases:\n  - model: m\n    expect: {runtim: x}\n",
            "cases[0].expect.runtim: unknown setting; did you mean runtime?",
        ),
        ("cases:\n  - inferenceService: x\n    expect: {runtime: x}\n", "write NAMESPACE/NAME"),
    ],
)
def test_a_bad_expectations_file_is_a_usage_error(tmp_path, text, message):
    path = tmp_path / "t.yaml"
    path.write_text(text)
    result = run(path, "-f", str(SEED))
    assert result.exit_code == 2
    assert message in result.stderr, result.stderr


def test_without_a_file_here_it_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("test", "-f", str(SEED))
    assert result.exit_code == 2
    assert "no ome-ranker-test.yaml here" in result.stderr


def test_a_case_whose_inference_service_is_not_there(tmp_path):
    path = plan(tmp_path, {"inferenceService": "demo/nope", "expect": {"runtime": "team-llama"}})
    result = run(path, "-f", str(SEED))
    assert result.exit_code == 2
