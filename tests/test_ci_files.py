"""The files CI systems install the command from: the pre-commit hook (``.pre-commit-hooks.yaml``)
and the composite GitHub Action (``action.yml``), read as pre-commit and GitHub read them, and the
action's lint step run with a stand-in ``ome-ranker`` that records the command line it gets."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
CI_PAGE = (ROOT / "docs" / "ci.md").read_text()


def yaml_example(heading: str) -> dict:
    """The first YAML example of docs/ci.md under ``heading`` (a line of its own)."""
    section = CI_PAGE.split(f"\n{heading}\n", 1)[1]
    return yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])


def test_the_pre_commit_hook():
    (hook,) = HOOKS
    assert hook["id"] == "ome-ranker-lint"
    assert hook["entry"] == "ome-ranker lint"
    assert hook["language"] == "python"  # pre-commit installs this repository (pyproject.toml)
    assert hook["pass_filenames"] is False  # an object is judged against all the others
    assert hook["args"] == ["-R", "-f", "manifests/"]
    for key in ("name", "description", "files"):
        assert isinstance(hook[key], str) and hook[key]
    # The page's example sets the args, as the hook's comment says to.
    example = yaml_example("### pre-commit")
    (used,) = example["repos"][0]["hooks"]
    assert used["id"] == hook["id"] and used["args"][:2] == ["-R", "-f"]


def test_the_action_declares_its_inputs_and_steps():
    assert ACTION["runs"]["using"] == "composite"
    inputs = ACTION["inputs"]
    assert {"paths", "recursive", "fail-on", "output", "output-file"} <= set(inputs)
    for name, declared in inputs.items():
        assert declared["description"], name
        assert isinstance(declared.get("default"), str), name  # inputs are strings
    steps = ACTION["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    for step in steps[1:]:
        assert step["shell"] == "bash" and step["run"].strip(), step.get("name")
    assert '"$GITHUB_ACTION_PATH"' in steps[1]["run"]  # installs the action's own checkout
    # Inputs reach the script through the environment, never pasted into it.
    assert "${{" not in steps[2]["run"]


def test_the_documented_workflow_uploads_the_sarif_it_writes():
    workflow = yaml_example("### The GitHub Action")
    steps = workflow["jobs"]["lint"]["steps"]
    lint = next(step for step in steps if "ome-ranker" in step.get("uses", ""))
    upload = next(step for step in steps if "upload-sarif" in step.get("uses", ""))
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert lint["with"]["output"] == "sarif"
    assert upload["with"]["sarif_file"] == lint["with"]["output-file"]
    assert upload["if"] == "always()"  # a failing lint still uploads its findings
    assert set(lint["with"]) <= set(ACTION["inputs"])


def run_lint_step(tmp_path: Path, exit_code: int = 0, **inputs: str):
    """The action's lint step, in bash, with ``inputs`` (the defaults otherwise) and a stand-in
    ``ome-ranker`` that writes each argument on a line of ``argv`` and prints ``findings``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    stand_in = bin_dir / "ome-ranker"
    stand_in.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" > "{tmp_path}/argv"\necho findings\nexit {exit_code}\n'
    )
    stand_in.chmod(stand_in.stat().st_mode | stat.S_IEXEC)
    step = ACTION["runs"]["steps"][2]
    values = {name: declared["default"] for name, declared in ACTION["inputs"].items()}
    values.update({name.replace("_", "-"): value for name, value in inputs.items()})
    environment = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        **{
            variable: values[name]
            for variable, name in (
                ("PATHS", "paths"),
                ("RECURSIVE", "recursive"),
                ("FAIL_ON", "fail-on"),
                ("OUTPUT", "output"),
                ("OUTPUT_FILE", "output-file"),
            )
        },
    }
    assert set(step["env"]) == {"PATHS", "RECURSIVE", "FAIL_ON", "OUTPUT", "OUTPUT_FILE"}
    done = subprocess.run(
        ["bash", "-c", step["run"]],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    argv_file = tmp_path / "argv"
    argv = argv_file.read_text().splitlines() if argv_file.exists() else None
    return done, argv


def test_the_lint_step_passes_the_inputs_through(tmp_path):
    done, argv = run_lint_step(tmp_path)
    assert done.returncode == 0
    assert argv == ["lint", "-o", "table", "--fail-on", "error", "-R", "-f", "manifests/"]
    assert done.stdout == "findings\n"
    done, argv = run_lint_step(
        tmp_path,
        paths="deploy/a.yaml\n  deploy/more dir/ \n",
        recursive="false",
        fail_on="warning",
        output="sarif",
        output_file="out.sarif",
    )
    assert done.returncode == 0
    assert argv == [
        "lint", "-o", "sarif", "--fail-on", "warning",
        "-f", "deploy/a.yaml", "-f", "deploy/more", "-f", "dir/",
    ]  # fmt: skip
    assert (tmp_path / "out.sarif").read_text() == "findings\n"
    assert done.stdout == ""


@pytest.mark.parametrize("exit_code", [1, 2])
def test_the_lint_step_fails_as_the_command_does_and_still_writes_its_file(tmp_path, exit_code):
    done, _ = run_lint_step(tmp_path, exit_code=exit_code, output_file="out.sarif")
    assert done.returncode == exit_code
    assert (tmp_path / "out.sarif").read_text() == "findings\n"


@pytest.mark.parametrize(("name", "value"), [("recursive", "yes"), ("paths", "  \n")])
def test_the_lint_step_refuses_inputs_it_cannot_read(tmp_path, name, value):
    done, argv = run_lint_step(tmp_path, **{name: value})
    assert done.returncode == 2 and argv is None
    assert done.stdout.startswith("::error::")
