"""``lint``, ``impact`` and ``selections`` in-process (SPEC §18, §19): the API's answers, the
CLI's own lines with ``file:line``, and the exit codes."""

from __future__ import annotations

import json

import yaml

from tests.builders import entry, isvc_doc, runtime_doc
from tests.cli.support import SEED, invoke, line_of, write_yaml

SEED_MODEL = "llama-3-2-3b-instruct"
CHAT = isvc_doc("chat", namespace="llama-demo", model={"name": SEED_MODEL})


def seed_with(tmp_path, name: str, *extra: dict, text: str | None = None):
    """The seed example (changed by ``text``), then ``extra`` documents."""
    path = tmp_path / name
    documents = "".join(f"---\n{yaml.safe_dump(doc, sort_keys=False)}" for doc in extra)
    path.write_text((text or SEED.read_text()) + documents)
    return path


def test_lint_prints_findings_at_their_lines_and_a_summary(tmp_path):
    path = write_yaml(
        tmp_path / "runtimes.yaml",
        runtime_doc("zero", entry(priority=0)),
        runtime_doc("gt", entry(priority=3, operator="GreaterThan")),
    )
    result = invoke("lint", "-f", str(path), "--severity", "info")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    # Each at its field's line, not its object's: the value refused, the operator's key.
    zero = line_of(path, "priority: 0")
    assert lines[0].startswith(f"{path}:{zero}: error: ClusterServingRuntime zero: ")
    assert "priority" in lines[0]
    gt = line_of(path, "operator: GreaterThan")
    # The field, which this message does not name, before it.
    assert lines[1].startswith(
        f"{path}:{gt}: info: ClusterServingRuntime gt: "
        "spec.supportedModelFormats[0].modelFormat.operator: GreaterThan "
    )
    assert lines[2:] == ["1 error, 0 warnings, 1 info"]
    assert result.stderr == "error: the manifests would not be admitted\n"
    # The default hides infos, and the summary still counts them.
    default = invoke("lint", "-f", str(path))
    assert default.stdout.splitlines()[1:] == ["1 error, 0 warnings, 1 info"]
    only_errors = invoke("lint", "-f", str(path), "--severity", "error")
    assert only_errors.stdout == default.stdout


def test_lint_of_the_seed_admits_it():
    result = invoke("lint", "-f", str(SEED))
    # the info: srt-llama-small and srt-llama-large compete at one priority (docs/lint.md)
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "0 errors, 0 warnings, 1 info\n",
        "",
    )
    answer = json.loads(invoke("lint", "-f", str(SEED), "-o", "json").stdout)
    assert answer["admitted"] is True
    assert set(answer) >= {"admitted", "counts", "findings", "ignored"}
    assert yaml.safe_load(invoke("lint", "-f", str(SEED), "-o", "yaml").stdout) == answer


def test_lint_needs_files():
    assert invoke("lint").exit_code == 2


def test_impact_of_a_change_that_moves_an_inference_service(tmp_path):
    current = seed_with(tmp_path, "current.yaml", CHAT)
    # team-llama no longer auto-selectable: chat moves to vllm-llama.
    text = SEED.read_text().replace(
        "      autoSelect: true\n  engineConfig", "      autoSelect: false\n  engineConfig"
    )
    proposed = seed_with(tmp_path, "proposed.yaml", CHAT, text=text)
    args = ("impact", "--current", str(current), "--proposed", str(proposed))
    result = invoke(*args)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "NAMESPACE    INFERENCESERVICE   MODEL                   BEFORE       AFTER        MESSAGE",
        "llama-demo   chat               llama-3-2-3b-instruct   team-llama   vllm-llama   "
        f"Runtime vllm-llama will be auto-selected for model {SEED_MODEL}",
    ]
    assert result.stderr == (
        "1 of 1 InferenceService would change (read 6 objects from --current, 6 from --proposed)\n"
    )
    failing = invoke(*args, "--fail-on-change", "-o", "json")
    assert failing.exit_code == 1
    answer = json.loads(failing.stdout)
    assert (answer["checked"], answer["count"]) == (1, 1)
    assert answer["changes"][0]["before"]["runtime"]["name"] == "team-llama"
    assert failing.stderr.endswith("error: InferenceServices would change (--fail-on-change)\n")


def test_impact_without_change(tmp_path):
    current = seed_with(tmp_path, "current.yaml", CHAT)
    args = ("impact", "--current", str(current), "--proposed", str(current), "--fail-on-change")
    result = invoke(*args)
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "",
        "0 of 1 InferenceService would change (read 6 objects from --current, 6 from --proposed)\n",
    )


def test_impact_usage(tmp_path):
    assert invoke("impact", "--current", str(SEED)).exit_code == 2
    assert invoke("impact", "-f", str(SEED)).exit_code == 2
    cluster = invoke("impact", "--cluster", "prod", "-f", str(SEED))
    assert cluster.exit_code == 2
    assert "--cluster needs --server" in cluster.stderr


def test_impact_names_the_object_the_api_refuses(tmp_path):
    current = seed_with(tmp_path, "current.yaml", CHAT)
    proposed = write_yaml(tmp_path / "proposed.yaml", runtime_doc("zero", entry(priority=0)))
    result = invoke("impact", "--current", str(current), "--proposed", str(proposed))
    assert result.exit_code == 2
    assert f"  {proposed}:1: " in result.stderr


def test_selections_of_a_tree(tree):
    result = invoke("selections", "-R", "-f", str(tree))
    assert result.exit_code == 0, result.stderr
    rows = [line.split()[:4] for line in result.stdout.splitlines()]
    assert rows == [
        ["NAMESPACE", "INFERENCESERVICE", "MODEL", "RUNTIME"],
        ["demo", "chat", "llama", "team"],
        ["demo", "-", "qwen", "sglang"],
    ]
    answer = json.loads(invoke("selections", "-R", "-f", str(tree), "-o", "json").stdout)
    assert [row["name"] for row in answer["selections"]] == ["chat", None]


def test_selections_namespace_filters_only_a_catalog(tree):
    result = invoke("selections", "-R", "-f", str(tree), "--namespace", "demo")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: --namespace filters a stored catalog's selections (--cluster)\n",
    )


def test_selections_exit_1_when_an_inference_service_gets_no_runtime(tree):
    result = invoke("selections", "-f", str(tree))  # no -R: no runtime at all
    assert result.exit_code == 1
    assert result.stderr == (
        f"Warning: not read without -R: {tree / 'runtimes'}/ (3 files)\n"
        "error: 1 InferenceService would get no runtime\n"
    )
    assert result.stdout.splitlines()[1].split()[:4] == ["demo", "chat", "llama", "-"]
